import { EventEmitter } from 'node:events';
import type { AppPubSub } from '../messaging/pubsub';

/**
 * In-process nudge: emitted ('written') after a transaction that wrote outbox messages commits, so
 * a dispatcher in the same process claims them at once instead of at its next poll.
 */
export const outboxSignal = new EventEmitter();
outboxSignal.setMaxListeners(100);

/**
 * The same nudge for dispatchers in other processes (`cli dispatch` workers), through the app's
 * pubsub: with REDIS_URL it reaches every process on that Redis, so a worker claims new messages
 * within a round trip instead of at its next poll (WEBHOOK_POLL_MS). Without Redis it stays in the
 * process and other workers poll.
 */
export const OUTBOX_WRITTEN_TOPIC = 'outboxWritten';

/** The same nudge from a cluster worker to its primary, whose dispatcher delivers for every worker. */
export const OUTBOX_WRITTEN_NOTICE = 'outbox-written';

/** Announces committed outbox messages (or messages due again) to dispatchers here and elsewhere. */
export function announceOutboxWritten(pubsub: AppPubSub | undefined, count: number): void {
  outboxSignal.emit('written', count);
  // Only Redis reaches other processes; in memory the signal above already did the job.
  if (pubsub?.kind === 'redis') pubsub.publish(OUTBOX_WRITTEN_TOPIC, { count });
}
