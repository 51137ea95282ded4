import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../config';
import { outboxSignal } from '../webhooks/outbox-signal';
import { MemoryBucketStore } from '../http/throttle-store';
import { isRelayMessage, ToPrimary, ToWorker } from './relay-protocol';

function send(worker: Worker, m: ToWorker): void {
  // A worker that is exiting misses the message, as a Redis subscriber that disconnected would.
  if (worker.isConnected()) worker.send(m, undefined, () => undefined);
}

/**
 * The primary's half of the relay (see relay-protocol.ts): fans pubsub events out to every worker,
 * keeps the throttle's buckets for all of them, and wakes its own dispatcher when a worker has
 * committed outbox messages.
 */
export function primaryRelay(config: Config): (worker: Worker, message: unknown) => void {
  let buckets: MemoryBucketStore | undefined;
  return (worker, m) => {
    if (!isRelayMessage<ToPrimary>(m)) return;
    switch (m.lms) {
      case 'pubsub':
        for (const w of Object.values(cluster.workers ?? {})) if (w) send(w, m);
        return;
      case 'throttle':
        buckets ??= new MemoryBucketStore({ outflow: config.RATE_LIMIT_OUTFLOW, maximum: config.RATE_LIMIT_MAX });
        void buckets.add(m.key, m.amount).then((count) => send(worker, { lms: 'throttle', id: m.id, count }));
        return;
      case 'outbox-written':
        outboxSignal.emit('written', m.count);
        return;
    }
  };
}
