import { EventEmitter } from 'node:events';

/**
 * In-process nudge: emitted ('written') after a transaction that wrote outbox messages commits, so
 * a dispatcher in the same process claims them at once instead of at its next poll. Dispatchers in
 * other processes find them by polling.
 */
export const outboxSignal = new EventEmitter();
outboxSignal.setMaxListeners(100);
