import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, In } from 'typeorm';
import { transaction } from '../db/transaction';
import { OutboxMessage } from './outbox.entity';
import { ToolProxy } from '../lti/tool-proxy.entity';
import { WebhookSubscription } from './webhook-subscription.entity';
import { recordSpan } from '../tracing/tracing';

/** A message a dispatcher holds under one claim, with what decides whether it may still be sent. */
export interface Claimed {
  message: OutboxMessage;
  token: string;
  /** The message's subscription as it is now (null when it no longer exists). */
  subscription: WebhookSubscription | null;
  /** The subscription's tool proxy as it is now: its capabilities decide what may still be sent. */
  tool: ToolProxy | null;
  /** When the claim began (ms): the subscription and tool above are as they were then. */
  claimedAt: number;
  /** The claim's span (a traceparent) while tracing is on: delivery spans link to it. */
  claimTrace?: string | null;
}

export interface ClaimOptions {
  mysql: boolean;
  workerId: string;
  /** How long the claim lasts (next_attempt_at of a delivering row). */
  leaseMs: number;
  limit: number;
  /** Only rows due by then (default now). */
  dueBy?: Date;
  /** Told how many rows the claim selected and how many it got (fewer: another dispatcher was first). */
  onClaim?: (selected: number, claimed: number) => void;
}

/**
 * Claims due `pending` rows and `delivering` rows whose lease ran out, oldest first:
 * SELECT … FOR UPDATE SKIP LOCKED on MySQL/MariaDB, then an UPDATE that re-checks the row is still
 * due (so SQLite, whose transactions are serialized, is safe too). `attempts` counts claims.
 */
export async function claimDue(ds: DataSource, o: ClaimOptions): Promise<Claimed[]> {
  const now = new Date();
  const dueBy = o.dueBy ?? now;
  const token = randomUUID();
  const leaseUntil = new Date(now.getTime() + o.leaseMs);
  const due = ['pending', 'delivering'];
  const work = async (em: EntityManager) => {
    // One status at a time, so each read walks the (status, next_attempt_at) index in order and stops
    // at the limit: `status IN (…) ORDER BY next_attempt_at` sorted every due row of a backlog on
    // each claim. Rows whose lease ran out (a dispatcher died) are older, so they go first.
    const ids: number[] = [];
    for (const status of ['delivering', 'pending']) {
      const qb = em
        .getRepository(OutboxMessage)
        .createQueryBuilder('m')
        .select('m.id', 'id')
        .where('m.status = :status', { status })
        .andWhere('m.next_attempt_at <= :dueBy', { dueBy })
        .orderBy('m.next_attempt_at', 'ASC')
        .limit(o.limit - ids.length);
      // Due rows are taken with FOR UPDATE SKIP LOCKED. Rows whose lease ran out are read without a
      // lock: the scan stops at the first row still under lease, and a locking read would hold that
      // row (another delivery's, in flight) until this claim commits, stalling its result write.
      // The UPDATE below re-checks each row is still due, so two claims cannot both take one.
      if (o.mysql && status === 'pending') qb.setLock('pessimistic_write').setOnLocked('skip_locked');
      ids.push(...(await qb.getRawMany<{ id: number | string }>()).map((r) => Number(r.id)));
      if (ids.length >= o.limit) break;
    }
    if (!ids.length) return [];
    await em
      .createQueryBuilder()
      .update(OutboxMessage)
      .set({ status: 'delivering', attempts: () => 'attempts + 1', nextAttemptAt: leaseUntil, leaseToken: token, claimedBy: o.workerId, updatedAt: now })
      .where('id IN (:...ids)', { ids })
      .andWhere('status IN (:...due)', { due })
      .andWhere('next_attempt_at <= :dueBy', { dueBy })
      .execute();
    // By primary key (lease_token has no index of its own).
    const got = await em.getRepository(OutboxMessage).find({ where: { id: In(ids), leaseToken: token }, order: { id: 'ASC' } });
    o.onClaim?.(ids.length, got.length);
    return got;
  };
  // READ COMMITTED: the locking read takes no gap locks, so it never holds up the request
  // transactions inserting new messages (SQLite's transactions are serialized anyway).
  const rows = o.mysql ? await ds.transaction('READ COMMITTED', work) : await transaction(ds, work);
  const subIds = [...new Set(rows.map((m) => m.subscriptionId))];
  const subs = subIds.length ? await ds.getRepository(WebhookSubscription).findBy({ id: In(subIds) }) : [];
  const toolIds = [...new Set(subs.map((s) => s.toolProxyId))];
  const tools = toolIds.length
    ? await ds.getRepository(ToolProxy).find({ select: { id: true, workflowState: true, capabilities: true }, where: { id: In(toolIds) } })
    : [];
  // Traced only when it took messages (an idle dispatcher's polls would be a trace a second); each
  // delivery span links to it.
  const claimTrace = rows.length ? recordSpan('webhook claim', now.getTime(), { 'webhook.claimed': rows.length, 'webhook.batch_limit': o.limit, 'webhook.worker': o.workerId }) : null;
  return rows.map((message) => {
    const subscription = subs.find((s) => s.id === message.subscriptionId) ?? null;
    return { message, token, subscription, tool: tools.find((t) => t.id === subscription?.toolProxyId) ?? null, claimedAt: now.getTime(), claimTrace };
  });
}

/**
 * Gives claimed rows back without counting an attempt, due at `dueAt` (now by default): rows claimed
 * while stopping, or held back for a destination that is being slowed down.
 */
export async function releaseClaimed(ds: DataSource, batch: Claimed[], dueAt = new Date()): Promise<void> {
  if (!batch.length) return;
  const ids = batch.map((b) => b.message.id);
  await transaction(ds, (em) =>
    em
      .createQueryBuilder()
      .update(OutboxMessage)
      .set({ status: 'pending', attempts: () => 'attempts - 1', nextAttemptAt: dueAt, leaseToken: null, claimedBy: null })
      .where('id IN (:...ids) AND lease_token = :token', { ids, token: batch[0].token })
      .execute(),
  );
}
