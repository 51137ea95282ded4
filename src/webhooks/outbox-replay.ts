import { DataSource, IsNull, Not } from 'typeorm';
import { transaction } from '../db/transaction';
import { OutboxMessage, OutboxStatus } from './outbox.entity';
import { WebhookSubscription } from './webhook-subscription.entity';

/** Rows one UPDATE re-queues: big enough that 100,000 take a few dozen statements, small enough that each holds its locks briefly. */
const CHUNK = 5_000;

export interface ReplayWindow {
  /** Messages whose event happened at or after this time … */
  from: Date;
  /** … and before this one. */
  to: Date;
  /** Only dead-lettered messages (else delivered, dead and cancelled ones). */
  onlyDead: boolean;
}

export interface ReplayResult {
  /** Messages put back in the queue. */
  requeued: number;
  /** Subscriptions replayed to. */
  subscriptions: number;
  /** Subscriptions left out: deleted, or deactivated without `reactivate`. */
  skipped: number;
}

/**
 * Re-queues every message of the given subscriptions whose event time (created_at: the message is
 * written in the transaction of the event) lies in [from, to): `pending`, due now, with a fresh retry
 * window and the same message id, so receivers that already have it deduplicate by `webhook-id`.
 * Messages still pending or being delivered are left alone (they are queued already).
 *
 * Set-based: per subscription, chunks of CHUNK rows in id order, each one SELECT of the chunk's last
 * id (walking the (subscription_id, id) index) and one UPDATE of the id range, in its own short
 * transaction; never a statement per row. A deactivated subscription is replayed to only with
 * `reactivate`, which clears the deactivation (as redeliverWebhookMessage does).
 */
export async function replayOutbox(
  ds: DataSource,
  subs: WebhookSubscription[],
  w: ReplayWindow & { reactivate: boolean; retryWindowMs: number; onProgress?: (result: ReplayResult, subscriptionsDone: number) => void },
): Promise<ReplayResult> {
  const statuses: OutboxStatus[] = w.onlyDead ? ['dead'] : ['delivered', 'dead', 'cancelled'];
  const now = new Date();
  const retryUntil = new Date(now.getTime() + w.retryWindowMs);
  const result: ReplayResult = { requeued: 0, subscriptions: 0, skipped: 0 };
  for (const [i, sub] of subs.entries()) {
    if (sub.state !== 'Active' || (sub.deactivatedAt && !w.reactivate)) {
      result.skipped++;
      w.onProgress?.(result, i + 1);
      continue;
    }
    if (sub.deactivatedAt) {
      await ds
        .getRepository(WebhookSubscription)
        .update({ id: sub.id, deactivatedAt: Not(IsNull()) }, { deactivatedAt: null, deactivationReason: null, consecutiveFailures: 0 });
    }
    result.subscriptions++;
    // Plain column names: the same condition serves the SELECT (alias m) and the UPDATE.
    const where = 'subscription_id = :sub AND status IN (:...statuses) AND created_at >= :from AND created_at < :to AND id > :after';
    let after = 0;
    for (;;) {
      const requeued = await transaction(ds, async (em) => {
        const params = { sub: sub.id, statuses, from: w.from, to: w.to, after };
        const last = await em
          .getRepository(OutboxMessage)
          .createQueryBuilder('m')
          .select('m.id', 'id')
          .where(where, params)
          .orderBy('m.id', 'ASC')
          .offset(CHUNK - 1)
          .limit(1)
          .getRawOne<{ id: number | string }>();
        const upTo = last ? Number(last.id) : null;
        const update = em
          .createQueryBuilder()
          .update(OutboxMessage)
          .set({ status: 'pending', nextAttemptAt: now, retryUntil, leaseToken: null, claimedBy: null, updatedAt: now })
          .where(where, params);
        if (upTo != null) update.andWhere('id <= :upTo', { upTo });
        const res = await update.execute();
        return { count: res.affected ?? 0, upTo };
      });
      result.requeued += requeued.count;
      w.onProgress?.(result, i);
      if (requeued.upTo == null) break;
      after = requeued.upTo;
    }
    w.onProgress?.(result, i + 1);
  }
  return result;
}

/** The subscriptions of one tool proxy (all of them; replayOutbox skips the ones it may not replay to). */
export function subscriptionsOfTool(ds: DataSource, toolProxyId: number): Promise<WebhookSubscription[]> {
  return ds.getRepository(WebhookSubscription).find({ where: { toolProxyId }, order: { createdAt: 'ASC' } });
}
