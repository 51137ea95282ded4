import cluster, { type Worker } from 'node:cluster';
import { isRelayMessage, ToPrimary, ToWorker } from './relay-protocol';

function send(worker: Worker, m: ToWorker): void {
  // A worker that is exiting misses the message, as a Redis subscriber that disconnected would.
  if (worker.isConnected()) worker.send(m, undefined, () => undefined);
}

/**
 * The primary's half of the relay (see relay-protocol.ts): fans pubsub events out to every worker,
 * keeps the throttle's buckets for all of them (made on first use), and hands workers' notices on.
 */
export function primaryRelay(opts: {
  buckets: () => { add(key: string, amount: number): Promise<number> };
  onNotice: (name: string, value: number) => void;
}): (worker: Worker, message: unknown) => void {
  let buckets: ReturnType<typeof opts.buckets> | undefined;
  return (worker, m) => {
    if (!isRelayMessage<ToPrimary>(m)) return;
    switch (m.lms) {
      case 'pubsub':
        for (const w of Object.values(cluster.workers ?? {})) if (w) send(w, m);
        return;
      case 'throttle':
        buckets ??= opts.buckets();
        void buckets.add(m.key, m.amount).then((count) => send(worker, { lms: 'throttle', id: m.id, count }));
        return;
      case 'notice':
        opts.onNotice(m.name, m.value);
        return;
    }
  };
}
