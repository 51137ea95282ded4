import { DataSource, EntityManager } from 'typeorm';
import type { Config } from '../config';
import { transaction } from '../db/transaction';
import { OutboxMessage } from './outbox.entity';
import { metrics } from '../common/metrics';
import { backoffMs, nextAttemptAt } from './retry-timing';
import type { DeliveryOutcome } from './transports';
import { AttemptTiming, attemptRow, SuccessBatch } from './success-batch';
import { WebhookAttempt } from './webhook-attempt.entity';
import { WebhookSubscription } from './webhook-subscription.entity';

export interface DispatcherLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Totals since a dispatcher started, for logs and benches. */
export interface DispatchStats {
  delivered: number;
  failed: number;
  dead: number;
  /** Claims made, claims that found nothing due, and rows a claim selected but another dispatcher took first. */
  claims: number;
  emptyClaims: number;
  lostRows: number;
}

/** A datetime read back from a raw query (a Date on MySQL, a UTC string on SQLite). */
export function rawDate(v: unknown): Date | null {
  if (v == null) return null;
  if (v instanceof Date) return v;
  const s = String(v);
  return new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s.replace(' ', 'T')}Z`);
}

export type { AttemptTiming } from './success-batch';

/** The answer by which a receiver says it no longer wants the subscription's messages. */
const GONE = 410;

/**
 * Records what became of a claimed message, with one webhook_attempts row per attempt written in the
 * same transaction. Every write is conditional on the claim's lease token,
 * so a dispatcher whose lease ran out (and whose message another dispatcher took over) records
 * nothing.
 */
export class DeliveryResults {
  /** Successes are recorded in batches (success-batch.ts); failures, rarer and with more to decide, one by one. */
  private readonly successes: SuccessBatch;

  constructor(
    private readonly ds: DataSource,
    private readonly config: Config,
    private readonly log: DispatcherLog,
    private readonly stats: DispatchStats,
    /** Told when a failed message is due again, so its dispatcher can claim it then rather than at its next poll. */
    private readonly retryDue: (at: Date) => void = () => undefined,
  ) {
    this.successes = new SuccessBatch(ds, ds.options.type === 'mysql' || ds.options.type === 'mariadb');
  }

  /**
   * Subscriptions this dispatcher deactivated, and when. A message claimed before that (a dispatcher
   * claims ahead of its free slots) carries the subscription as it was then: it must not be sent.
   */
  private readonly deactivations = new Map<string, { at: number; reason: string }>();

  private deactivatedHere(subscriptionId: string, reason: string): void {
    const now = Date.now();
    // A claim older than an hour has long lost its lease: nothing claimed then can still be sent.
    for (const [id, d] of this.deactivations) if (now - d.at > 3_600_000) this.deactivations.delete(id);
    this.deactivations.set(subscriptionId, { at: now, reason });
  }

  /** Why the subscription was deactivated here after `claimedAt` (ms), or null. */
  deactivatedSince(subscriptionId: string, claimedAt: number): string | null {
    const d = this.deactivations.get(subscriptionId);
    return d && d.at >= claimedAt ? d.reason : null;
  }

  /** Waits for batched successes to be written (a stopping dispatcher records what it delivered). */
  settled(): Promise<void> {
    return this.successes.settled();
  }

  /** Ends a message without an attempt (its subscription is gone, deactivated or no longer wants it). */
  async finish(m: OutboxMessage, token: string, status: 'cancelled' | 'dead', reason: string): Promise<void> {
    await transaction(this.ds, (em) =>
      em
        .createQueryBuilder()
        .update(OutboxMessage)
        .set({ status, attempts: () => 'attempts - 1', lastError: reason.slice(0, 1000), leaseToken: null, updatedAt: new Date() })
        .where('id = :id AND lease_token = :token', { id: m.id, token })
        .execute(),
    );
    if (status === 'dead') this.stats.dead++;
    metrics.webhookDeliveries.inc({ result: status });
  }

  /** The attempt's log row, inserted beside the result it belongs to. */
  private logAttempt(em: EntityManager, m: OutboxMessage, t: AttemptTiming, outcome: DeliveryOutcome): Promise<unknown> {
    return em.getRepository(WebhookAttempt).insert(attemptRow(m, t, outcome));
  }

  async success(m: OutboxMessage, token: string, sub: WebhookSubscription, t: AttemptTiming, outcome: DeliveryOutcome): Promise<void> {
    await this.successes.record({ message: m, token, subscription: sub, timing: t, outcome });
    this.stats.delivered++;
    metrics.webhookDeliveries.inc({ result: 'delivered' });
  }

  /**
   * A failed attempt: retried after its backoff (and no sooner than a 429/503's Retry-After) within the
   * retry window, else dead-lettered. 410 Gone deactivates the subscription at once.
   */
  async failure(m: OutboxMessage, token: string, sub: WebhookSubscription, t: AttemptTiming, outcome: DeliveryOutcome): Promise<void> {
    const c = this.config;
    const at = t.startedAt;
    const now = new Date();
    const attempt = m.attempts;
    const gone = outcome.statusCode === GONE;
    const exhausted = gone || now.getTime() >= m.retryUntil.getTime();
    const next = nextAttemptAt(now, backoffMs(attempt, c.WEBHOOK_RETRY_BASE_MS, c.WEBHOOK_RETRY_MAX_MS), outcome.retryAfterMs ?? null, m.retryUntil);
    let deactivated: string | null = null;
    let recorded = false;
    await transaction(this.ds, async (em) => {
      const res = await em
        .createQueryBuilder()
        .update(OutboxMessage)
        .set({
          status: exhausted ? 'dead' : 'pending',
          nextAttemptAt: exhausted ? now : next,
          firstAttemptAt: m.firstAttemptAt ?? at,
          lastAttemptAt: at,
          lastError: outcome.error,
          lastStatusCode: outcome.statusCode,
          leaseToken: null,
          updatedAt: now,
        })
        .where("id = :id AND lease_token = :token AND status = 'delivering'", { id: m.id, token })
        .execute();
      if (!res.affected) return;
      recorded = true;
      await this.logAttempt(em, m, t, outcome);
      await em
        .createQueryBuilder()
        .update(WebhookSubscription)
        .set({ consecutiveFailures: () => 'consecutive_failures + 1' })
        .where('id = :id', { id: sub.id })
        .execute();
      if (gone) deactivated = await this.deactivate(em, sub.id, now, `the endpoint answered 410 Gone at ${at.toISOString()}`);
      else deactivated = await this.maybeDeactivate(em, sub.id, now, outcome.error);
    });
    if (deactivated) this.deactivatedHere(sub.id, deactivated);
    else if (recorded && !exhausted) this.retryDue(next);
    this.stats.failed++;
    if (exhausted || deactivated) this.stats.dead++;
    // A failed attempt, and (when retries are over or the subscription was deactivated) a dead message.
    metrics.webhookDeliveries.inc({ result: 'failed' });
    if (exhausted || deactivated) metrics.webhookDeliveries.inc({ result: 'dead' });
    if (deactivated) {
      this.log.warn(
        { subscriptionId: sub.id, lastError: outcome.error },
        gone ? 'webhook subscription deactivated: its endpoint answered 410 Gone' : 'webhook subscription deactivated: its endpoint keeps failing',
      );
    }
  }

  /** Deactivates a subscription (unless it already is) and dead-letters its pending messages; the reason when it did. */
  private async deactivate(em: EntityManager, subscriptionId: string, now: Date, reason: string): Promise<string | null> {
    const res = await em
      .createQueryBuilder()
      .update(WebhookSubscription)
      .set({ deactivatedAt: now, deactivationReason: reason.slice(0, 255) })
      .where('id = :id AND deactivated_at IS NULL', { id: subscriptionId })
      .execute();
    if (!res.affected) return null;
    await em
      .createQueryBuilder()
      .update(OutboxMessage)
      .set({ status: 'dead', lastError: `subscription deactivated: ${reason}`.slice(0, 1000), leaseToken: null, updatedAt: now })
      .where("subscription_id = :id AND status = 'pending'", { id: subscriptionId })
      .execute();
    return reason;
  }

  private async maybeDeactivate(em: EntityManager, subscriptionId: string, now: Date, lastError: string | null): Promise<string | null> {
    const c = this.config;
    const sub = await em.getRepository(WebhookSubscription).findOneBy({ id: subscriptionId });
    if (!sub || sub.deactivatedAt || sub.consecutiveFailures < c.WEBHOOK_DEACTIVATE_FAILURES) return null;
    const lastSuccess = rawDate(
      (
        await em
          .getRepository(OutboxMessage)
          .createQueryBuilder('m')
          .select('MAX(m.delivered_at)', 'at')
          .where("m.subscription_id = :id AND m.status = 'delivered'", { id: subscriptionId })
          .getRawOne<{ at: unknown }>()
      )?.at,
    );
    const firstFailure = em
      .getRepository(OutboxMessage)
      .createQueryBuilder('m')
      .select('MIN(m.first_attempt_at)', 'at')
      .where("m.subscription_id = :id AND m.status <> 'delivered' AND m.first_attempt_at IS NOT NULL", { id: subscriptionId });
    if (lastSuccess) firstFailure.andWhere('m.first_attempt_at > :since', { since: lastSuccess });
    const failingSince = rawDate((await firstFailure.getRawOne<{ at: unknown }>())?.at) ?? now;
    if (now.getTime() - failingSince.getTime() < c.WEBHOOK_DEACTIVATE_WINDOW_MS) return null;
    const reason = `${sub.consecutiveFailures} failed deliveries in a row since ${failingSince.toISOString()}; last error: ${lastError ?? 'unknown'}`;
    return this.deactivate(em, subscriptionId, now, reason);
  }
}
