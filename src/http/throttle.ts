import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config';
import { primaryRelay } from '../process/worker-relay';
import { MemoryBucketStore, RedisBucketStore, RelayedBucketStore, type BucketStore } from './throttle-store';

/**
 * Canvas's request throttle (app/middleware/request_throttle.rb): a leaky bucket per client. A request
 * reserves an up-front cost, is refused when that leaves the bucket at or above the high-water mark,
 * and at its end the reservation is swapped for what it really cost (its time plus any extra cost).
 * The bucket leaks OUTFLOW units a second, so a serial client is rarely throttled while a flood of
 * concurrent or expensive requests is.
 */

/** Canvas's exact body: canvasapi (and other clients) recognise a throttled request by it. */
export const RATE_LIMIT_BODY = '403 Forbidden (Rate Limit Exceeded)\n';

export interface Reservation {
  key: string;
  /** Reserved now, refunded at the end. */
  upFront: number;
  /** Charged for the route itself (anonymous or expensive routes), on top of its time. */
  extra: number;
  settled: boolean;
  /** The store failed: the request was let through uncounted and carries no throttle headers. */
  uncounted: boolean;
}

export type ReserveResult = { allowed: true; reservation: Reservation } | { allowed: false };

/** Canvas prints Ruby floats: always with a decimal point, e.g. `600.0`, `0.0123`. */
export function formatUnits(n: number): string {
  const s = String(Math.round(n * 10_000) / 10_000);
  return /[.e]/.test(s) ? s : `${s}.0`;
}

export class Throttle {
  private lastWarning = 0;

  private constructor(
    readonly store: BucketStore,
    readonly hwm: number,
    private readonly upFront: number,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** The configured throttle, or null with RATE_LIMIT=off. Buckets live in Redis when REDIS_URL is set, else in the (cluster primary's) memory. */
  static fromConfig(config: Config, log: FastifyBaseLogger): Throttle | null {
    if (config.RATE_LIMIT === 'off') return null;
    const limits = { outflow: config.RATE_LIMIT_OUTFLOW, maximum: config.RATE_LIMIT_MAX };
    const relay = primaryRelay();
    // A cluster worker without Redis charges the buckets its primary keeps, so workers share one budget.
    const store = config.REDIS_URL ? new RedisBucketStore(config.REDIS_URL, limits) : relay ? new RelayedBucketStore(relay) : new MemoryBucketStore(limits);
    return new Throttle(store, config.RATE_LIMIT_HWM, config.RATE_LIMIT_UP_FRONT, log);
  }

  /** Reserves the up-front cost; a full bucket gets its reservation back at once and is refused. */
  async reserve(key: string, extra = 0): Promise<ReserveResult> {
    const reservation: Reservation = { key, upFront: this.upFront + extra, extra, settled: false, uncounted: false };
    let count: number;
    try {
      count = await this.store.add(key, reservation.upFront);
    } catch (e) {
      // An unreachable Redis must not take the API down with it: fail open, and say so (rarely).
      this.warn(e);
      return { allowed: true, reservation: { ...reservation, settled: true, uncounted: true } };
    }
    if (count < this.hwm) return { allowed: true, reservation };
    await this.store.add(key, -reservation.upFront).catch((e) => this.warn(e));
    return { allowed: false };
  }

  /**
   * Swaps the reservation for the request's real cost (seconds it took, the route's extra cost, and
   * what the request registered, e.g. GraphQL complexity). Returns what is left below the high-water
   * mark, or null when nothing was counted.
   */
  async settle(r: Reservation, seconds: number, registered: number): Promise<{ cost: number; remaining: number } | null> {
    if (r.settled) return null;
    r.settled = true;
    const cost = Math.max(seconds, 0) + r.extra + registered;
    try {
      const count = await this.store.add(r.key, cost - r.upFront);
      return { cost, remaining: Math.max(this.hwm - count, 0) };
    } catch (e) {
      this.warn(e);
      return null;
    }
  }

  async close(): Promise<void> {
    await this.store.close();
  }

  private warn(e: unknown): void {
    const now = Date.now();
    if (now - this.lastWarning < 60_000) return;
    this.lastWarning = now;
    // The error's name and message only: bucket keys are never logged.
    const err = e instanceof Error ? { name: e.name, message: e.message } : { message: String(e) };
    this.log.warn({ err }, 'throttle store unavailable; requests are not being rate limited');
  }
}
