import { Redis } from 'ioredis';
import type { WorkerRelay } from '../messaging/worker-relay';

/**
 * Where the leaky buckets live. `add` leaks a bucket down to "now" at `outflow` units per second, then
 * adds `amount` (negative to refund), keeping the count within [0, maximum], and answers the new count.
 * One call is atomic, so concurrent requests of one client never lose each other's charges.
 */
export interface BucketStore {
  add(key: string, amount: number): Promise<number>;
  /** Resolves once the store can answer (or has failed to connect: the throttle then counts in this process). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export interface BucketLimits {
  outflow: number;
  maximum: number;
}

interface Bucket {
  count: number;
  /** Seconds on a monotonic clock. */
  touched: number;
}

const clamp = (n: number, max: number) => Math.min(Math.max(n, 0), max);

/** One process's buckets (the default): enough for a single instance; lost on restart, like Canvas's cache. */
export class MemoryBucketStore implements BucketStore {
  private readonly buckets = new Map<string, Bucket>();
  private calls = 0;

  constructor(private readonly limits: BucketLimits) {}

  async add(key: string, amount: number): Promise<number> {
    const now = performance.now() / 1000;
    const b = this.buckets.get(key) ?? { count: 0, touched: now };
    b.count = clamp(clamp(b.count - (now - b.touched) * this.limits.outflow, this.limits.maximum) + amount, this.limits.maximum);
    b.touched = now;
    this.buckets.set(key, b);
    // Drained buckets are forgotten now and then, so a stream of one-off IPs cannot grow the map for ever.
    if (++this.calls % 1024 === 0) this.sweep(now);
    return b.count;
  }

  private sweep(now: number): void {
    for (const [key, b] of this.buckets) if (b.count - (now - b.touched) * this.limits.outflow <= 0) this.buckets.delete(key);
  }

  async ready(): Promise<void> {}

  async close(): Promise<void> {
    this.buckets.clear();
  }
}

/**
 * Canvas's LeakyBucket script, with Redis's own clock (instances' clocks may disagree). The bucket
 * expires once it would have drained, so idle clients leave nothing behind.
 */
const LEAK_AND_ADD = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local amount, outflow, maximum = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local count = tonumber(redis.call('HGET', KEYS[1], 'count') or '0') or 0
local touched = tonumber(redis.call('HGET', KEYS[1], 'touched') or '') or now
count = count - math.max(now - touched, 0) * outflow
if count < 0 then count = 0 end
if count > maximum then count = maximum end
count = count + amount
if count < 0 then count = 0 end
if count > maximum then count = maximum end
redis.call('HSET', KEYS[1], 'count', tostring(count), 'touched', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(count / outflow * 1000) + 1000)
return tostring(count)
`;

const READY_TIMEOUT_MS = 2_000;

type ThrottleRedis = Redis & { lmsThrottleAdd(key: string, amount: string, outflow: string, maximum: string): Promise<string> };

/** Buckets in Redis (REDIS_URL), shared by every instance behind the load balancer. */
export class RedisBucketStore implements BucketStore {
  private readonly redis: ThrottleRedis;
  private readonly connected: Promise<void>;

  constructor(
    url: string,
    private readonly limits: BucketLimits,
  ) {
    // A request must not wait on an unreachable or stalled Redis: commands fail fast (or after a second)
    // and the throttle counts the request in this process's own buckets (see Throttle.add), while
    // ioredis keeps reconnecting in the background.
    this.redis = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 1000 }) as ThrottleRedis;
    this.redis.on('error', () => undefined);
    this.redis.defineCommand('lmsThrottleAdd', { numberOfKeys: 1, lua: LEAK_AND_ADD });
    this.connected = this.redis.connect().catch(() => undefined);
  }

  /** Bounded: a Redis that accepts connections but never answers must not hold the server's start. */
  ready(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, READY_TIMEOUT_MS)));
    return Promise.race([this.connected, late]).finally(() => clearTimeout(timer));
  }

  async add(key: string, amount: number): Promise<number> {
    const out = await this.redis.lmsThrottleAdd(`lms:throttle:${key}`, String(amount), String(this.limits.outflow), String(this.limits.maximum));
    return Number(out);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

/** A cluster worker's view of the buckets its primary keeps (WEB_CONCURRENCY > 1 without REDIS_URL). */
export class RelayedBucketStore implements BucketStore {
  constructor(private readonly relay: WorkerRelay) {}

  add(key: string, amount: number): Promise<number> {
    return this.relay.addToBucket(key, amount);
  }

  async ready(): Promise<void> {}

  async close(): Promise<void> {}
}
