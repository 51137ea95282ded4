import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config';
import { primaryRelay } from '../messaging/worker-relay';
import { MemoryBucketStore, RedisBucketStore, RelayedBucketStore, type BucketStore } from './throttle-store';

/**
 * Canvas's request throttle (app/middleware/request_throttle.rb): a leaky bucket per client. A request
 * reserves an up-front cost, is refused when that leaves the bucket at or above the high-water mark,
 * and at its end the reservation is swapped for what it really cost (its time plus any extra cost).
 * The bucket leaks OUTFLOW units a second, so a serial client is rarely throttled while a flood of
 * concurrent or expensive requests is.
 */

/** Canvas's answer before October 2025 (RATE_LIMIT_STATUS=403): canvasapi's current release recognises it by this body. */
export const RATE_LIMIT_BODY = '403 Forbidden (Rate Limit Exceeded)\n';
/** Canvas's answer since October 2025 (the default): 429, with the same words for clients that look for them. */
export const RATE_LIMIT_BODY_429 = '429 Too Many Requests (Rate Limit Exceeded)\n';

/**
 * After the shared store (Redis, or the cluster primary) failed or answered too slowly, requests are
 * counted in this process's own buckets for this long before the shared store is tried again, so an
 * outage costs one slow request per interval rather than a second on every request.
 */
const SHARED_RETRY_MS = 5_000;

export interface Reservation {
  key: string;
  /** Reserved now, refunded at the end. */
  upFront: number;
  /** Charged for the route itself (anonymous or expensive routes), on top of its time. */
  extra: number;
  settled: boolean;
  /** Reserved in this process's fallback buckets (the shared store was down or slow): settled there too. */
  local: boolean;
}

export type ReserveResult = { allowed: true; reservation: Reservation } | { allowed: false; retryAfter: number };

/** Canvas prints Ruby floats: always with a decimal point, e.g. `600.0`, `0.0123`. */
export function formatUnits(n: number): string {
  const s = String(Math.round(n * 10_000) / 10_000);
  return /[.e]/.test(s) ? s : `${s}.0`;
}

export class Throttle {
  private lastWarning = 0;
  /** The shared store is skipped until then (see SHARED_RETRY_MS). */
  private sharedDownUntil = 0;
  /**
   * Names the bucket of a credential (src/http/throttle-key.ts bucketKey, which needs the app and so is
   * set by registerThrottle); graphql-ws charges its sockets through it too.
   */
  bucketOf: ((token: string | null, ip: string) => Promise<string>) | null = null;

  /**
   * @param store where buckets live (Redis, the cluster primary, or this process's memory)
   * @param fallback this process's buckets, used while a shared `store` fails or is slow (null when `store` is already local)
   */
  private constructor(
    readonly store: BucketStore,
    private readonly fallback: MemoryBucketStore | null,
    readonly hwm: number,
    private readonly upFront: number,
    private readonly outflow: number,
    /** The status of a refusal: Canvas's current 429 (with Retry-After), or its older 403. */
    readonly status: 429 | 403,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** The configured throttle, or null with RATE_LIMIT=off. Buckets live in Redis when REDIS_URL is set, else in the (cluster primary's) memory. */
  static fromConfig(config: Config, log: FastifyBaseLogger): Throttle | null {
    if (config.RATE_LIMIT === 'off') return null;
    const limits = { outflow: config.RATE_LIMIT_OUTFLOW, maximum: config.RATE_LIMIT_MAX };
    const relay = primaryRelay();
    // A cluster worker without Redis charges the buckets its primary keeps, so workers share one budget.
    const shared = config.REDIS_URL ? new RedisBucketStore(config.REDIS_URL, limits) : relay ? new RelayedBucketStore(relay) : null;
    const status = config.RATE_LIMIT_STATUS === '403' ? 403 : 429;
    const local = new MemoryBucketStore(limits);
    return new Throttle(shared ?? local, shared ? local : null, config.RATE_LIMIT_HWM, config.RATE_LIMIT_UP_FRONT, config.RATE_LIMIT_OUTFLOW, status, log);
  }

  /** The refusal's body for this throttle's status. */
  get body(): string {
    return this.status === 403 ? RATE_LIMIT_BODY : RATE_LIMIT_BODY_429;
  }

  /** Reserves the up-front cost; a full bucket gets its reservation back at once and is refused. */
  async reserve(key: string, extra = 0): Promise<ReserveResult> {
    const upFront = this.upFront + extra;
    const { count, local } = await this.add(key, upFront);
    const reservation: Reservation = { key, upFront, extra, settled: false, local };
    if (count < this.hwm) return { allowed: true, reservation };
    const after = await this.addIn(local, key, -upFront);
    return { allowed: false, retryAfter: this.retryAfter(after ?? Math.max(count - upFront, 0), upFront) };
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
    let count = await this.addIn(r.local, r.key, cost - r.upFront);
    // The shared store failed after it took the reservation: the cost is still counted, here (the
    // reservation it keeps leaks away; over-counting once beats not counting at all).
    if (count === null && this.fallback) count = await this.fallback.add(r.key, cost);
    return count === null ? null : { cost, remaining: Math.max(this.hwm - count, 0) };
  }

  /**
   * Charges a request that never held a reservation (refused before the throttle could name its
   * client, e.g. an unparsable body) what it cost, as settle would.
   */
  async charge(key: string, seconds: number, extra: number, registered: number): Promise<{ cost: number; remaining: number } | null> {
    const local = this.fallback !== null && Date.now() < this.sharedDownUntil;
    return this.settle({ key, upFront: 0, extra, settled: false, local }, seconds, registered);
  }

  async close(): Promise<void> {
    await this.store.close();
    await this.fallback?.close();
  }

  /** Seconds until a bucket now at `count` has leaked enough to take `upFront` below the high-water mark. */
  private retryAfter(count: number, upFront: number): number {
    return Math.max(1, Math.ceil((count + upFront - this.hwm) / this.outflow));
  }

  /**
   * Adds to the shared store, or to this process's buckets when the shared store fails, answers
   * slower than its timeout (1 s: src/http/throttle-store.ts, src/messaging/worker-relay.ts) or failed
   * within the last SHARED_RETRY_MS. Never lets a request through uncounted.
   */
  private async add(key: string, amount: number): Promise<{ count: number; local: boolean }> {
    if (!this.fallback) return { count: await this.store.add(key, amount), local: false };
    if (Date.now() >= this.sharedDownUntil) {
      try {
        return { count: await this.store.add(key, amount), local: false };
      } catch (e) {
        this.sharedDown(e);
      }
    }
    return { count: await this.fallback.add(key, amount), local: true };
  }

  /** Adds in the store a reservation was made in; null when that was the shared store and it failed. */
  private async addIn(local: boolean, key: string, amount: number): Promise<number | null> {
    if (local && this.fallback) return this.fallback.add(key, amount);
    try {
      return await this.store.add(key, amount);
    } catch (e) {
      this.sharedDown(e);
      return null;
    }
  }

  private sharedDown(e: unknown): void {
    this.sharedDownUntil = Date.now() + SHARED_RETRY_MS;
    const now = Date.now();
    if (now - this.lastWarning < 60_000) return;
    this.lastWarning = now;
    // The error's name and message only: bucket keys are never logged.
    const err = e instanceof Error ? { name: e.name, message: e.message } : { message: String(e) };
    this.log.warn({ err }, "throttle store unavailable or slow; requests are counted in this instance's own buckets meanwhile");
  }
}
