import cluster from 'node:cluster';
import type { EventEmitter } from 'node:events';
import { isRelayMessage, ToPrimary, ToWorker } from './relay-protocol';

/**
 * A bucket answer slower than this fails the call, and the throttle counts the request in the worker's
 * own buckets instead (as with Redis): the primary also runs the dispatcher, and a burst of deliveries
 * keeping it busy must not switch the throttle off.
 */
const BUCKET_TIMEOUT_MS = 1_000;

type Pending = { resolve(count: number): void; reject(e: Error): void; timer: NodeJS.Timeout };

/**
 * A cluster worker's line to its primary (src/app/cluster-primary.ts), used instead of process memory for
 * state every worker must share when there is no REDIS_URL: pubsub channels, throttle buckets, and
 * notices for the primary (see forward).
 */
export class WorkerRelay {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly pubsubListeners = new Set<(channel: string, message: string) => void>();
  private readonly forwarded: (() => void)[] = [];

  constructor() {
    process.on('message', this.onMessage);
  }

  /** Sends an event on a channel; the primary relays it to every worker, this one included. */
  publish(channel: string, message: string): void {
    this.send({ lms: 'pubsub', channel, message });
  }

  onPubsubMessage(fn: (channel: string, message: string) => void): void {
    this.pubsubListeners.add(fn);
  }

  /** Leaks and adds to a bucket the primary keeps (see BucketStore.add); rejects when the primary does not answer. */
  addToBucket(key: string, amount: number): Promise<number> {
    const id = this.nextId++;
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => this.settle(id, new Error('the cluster primary did not answer')), BUCKET_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      this.send({ lms: 'throttle', id, key, amount }, (e) => this.settle(id, e));
    });
  }

  /** Passes every `event` of `emitter` (a count) to the primary as the notice `name`, until close. */
  forward(emitter: EventEmitter, event: string, name: string): void {
    const listener = (value: number) => this.send({ lms: 'notice', name, value });
    emitter.on(event, listener);
    this.forwarded.push(() => emitter.off(event, listener));
  }

  close(): void {
    process.off('message', this.onMessage);
    for (const stop of this.forwarded.splice(0)) stop();
    for (const id of [...this.pending.keys()]) this.settle(id, new Error('relay closed'));
    this.pubsubListeners.clear();
  }

  private readonly onMessage = (m: unknown) => {
    if (!isRelayMessage<ToWorker>(m)) return;
    if (m.lms === 'pubsub') for (const fn of this.pubsubListeners) fn(m.channel, m.message);
    else if (m.lms === 'throttle') this.settle(m.id, m.count);
  };

  private settle(id: number, result: number | Error): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    if (result instanceof Error) p.reject(result);
    else p.resolve(result);
  }

  /** Lost when the primary has gone (the worker is then shutting down): `onError` hears of it. */
  private send(m: ToPrimary, onError?: (e: Error) => void): void {
    if (!process.connected || !process.send) {
      onError?.(new Error('not connected to the cluster primary'));
      return;
    }
    process.send(m, undefined, {}, (e: Error | null) => {
      if (e) onError?.(e);
    });
  }
}

let current: WorkerRelay | undefined;

/** This process's relay, when it is a worker of a WEB_CONCURRENCY > 1 cluster; undefined otherwise. */
export function primaryRelay(): WorkerRelay | undefined {
  return current;
}

/** Called once by a cluster worker before it builds its app (src/app/main.ts). */
export function joinPrimaryRelay(): WorkerRelay {
  if (!cluster.isWorker) throw new Error('only a cluster worker has a primary');
  current ??= new WorkerRelay();
  return current;
}
