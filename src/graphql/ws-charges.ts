import { GraphQLError } from 'graphql';
import type { Throttle } from '../http/throttle';

/** How often the charges gathered per bucket are added to the store (one store call per bucket, not per event). */
const FLUSH_MS = 100;

/** Thrown into a subscription whose subscriber's bucket is full: graphql-ws ends it with this error. */
export function eventThrottled(): GraphQLError {
  return new GraphQLError('Rate Limit Exceeded', { extensions: { code: 'RATE_LIMIT_EXCEEDED' } });
}

/**
 * Charges delivered subscription events to the subscriber's throttle bucket, the same bucket its HTTP
 * requests and graphql-ws operations fill, so subscriptions are not unmetered work: a socket holding
 * many subscriptions to busy topics pays for what it receives, and once its bucket is full it receives
 * nothing more until the bucket leaks (its HTTP requests and new operations are refused meanwhile, as
 * usual).
 *
 * Delivery never waits for the store: charges are summed per bucket and added every FLUSH_MS, and an
 * event is refused when the bucket's last reading (at most FLUSH_MS old) was at the high-water mark.
 * A store that fails is ignored, as the throttle itself fails open.
 */
export class EventCharges {
  private readonly pending = new Map<string, number>();
  /** Buckets at the high-water mark at their last reading, and when that was. */
  private readonly full = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly throttle: Throttle,
    private readonly costPerEvent: number,
  ) {}

  /** Charges `events` delivered events to the bucket; false when the bucket is full (they must not be delivered). */
  charge(bucket: string, events = 1): boolean {
    if (this.costPerEvent <= 0) return true;
    const fullAt = this.full.get(bucket);
    if (fullAt !== undefined) {
      if (performance.now() - fullAt < FLUSH_MS) return false;
      // The reading is stale: deliver, charge, and read the bucket again.
      this.full.delete(bucket);
    }
    this.pending.set(bucket, (this.pending.get(bucket) ?? 0) + this.costPerEvent * events);
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
    return true;
  }

  private async flush(): Promise<void> {
    const batch = [...this.pending];
    this.pending.clear();
    await Promise.all(
      batch.map(async ([bucket, amount]) => {
        try {
          const count = await this.throttle.store.add(bucket, amount);
          if (count >= this.throttle.hwm) this.full.set(bucket, performance.now());
        } catch {
          // The store is unavailable: the throttle fails open, so do events.
        }
      }),
    );
    this.timer = null;
    if (this.pending.size) this.timer = setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending.clear();
  }
}
