import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { DataSource, EntityManager, In } from 'typeorm';
import type { Config } from '../config';
import { transaction } from '../db/transaction';
import { OutboxMessage } from '../events/outbox.entity';
import { outboxSignal } from '../events/outbox-signal';
import { ToolProxy } from '../lti/tool-proxy.entity';
import { withSendTime } from './caliper.format';
import { DestinationGuard } from './destination-guard';
import { DeliverySigner } from './signing-keys';
import { DeliveryOutcome, HttpsTransport, SqsTransport, Transport } from './transports';
import { unwantedReason } from './subscription-match';
import { WebhookSubscription } from './webhook-subscription.entity';

export interface DispatcherLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

const silent: DispatcherLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

export interface DispatcherOptions {
  ds: DataSource;
  config: Config;
  tokenKey: string;
  log?: DispatcherLog;
  /** Names this dispatcher in claimed rows (host, pid and a random suffix by default). */
  workerId?: string;
}

/** Full-jitter exponential backoff: uniformly random in [0, min(max, base · 2^(attempt−1))]. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 40));
  return Math.floor(random() * ceiling);
}

/** A datetime read back from a raw query (a Date on MySQL, a UTC string on SQLite). */
function rawDate(v: unknown): Date | null {
  if (v == null) return null;
  if (v instanceof Date) return v;
  const s = String(v);
  return new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s.replace(' ', 'T')}Z`);
}

interface Claimed {
  message: OutboxMessage;
  token: string;
  /** The message's subscription as it is now (null when it no longer exists). */
  subscription: WebhookSubscription | null;
  /** The subscription's tool proxy as it is now: its capabilities decide what may still be sent. */
  tool: ToolProxy | null;
}

/**
 * Delivers outbox messages: claims due ones (and ones whose claim lease ran out), sends each through
 * its subscription's transport and records the outcome. Several dispatchers can share one database:
 * on MySQL/MariaDB the claim is SELECT … FOR UPDATE SKIP LOCKED, and everywhere the claiming UPDATE
 * re-checks that the row is still due, so a row is only ever claimed by one of them at a time.
 *
 * At-least-once: a dispatcher that dies mid-delivery leaves its rows `delivering` until the lease
 * (WEBHOOK_LEASE_MS) runs out; another then sends them again, with the same message id.
 *
 * Failures are retried with full-jitter exponential backoff until `retry_until` (24 hours after the
 * event by default), then dead-lettered. A subscription is deactivated once it has failed
 * WEBHOOK_DEACTIVATE_FAILURES attempts in a row and its endpoint has been failing, with no success
 * in between, for WEBHOOK_DEACTIVATE_WINDOW_MS (24 hours), as Canvas deactivates endpoints that keep
 * failing; its pending messages are then dead-lettered.
 */
export class Dispatcher {
  readonly workerId: string;
  private readonly ds: DataSource;
  private readonly config: Config;
  private readonly log: DispatcherLog;
  private readonly transports: Record<'https' | 'sqs', Transport>;
  private readonly mysql: boolean;
  private running = false;
  /** Set when stopped as if the process died: outcomes of in-flight deliveries are not recorded. */
  private abandoned = false;
  private loopDone: Promise<void> | null = null;
  private readonly inFlight = new Map<number, { abort: AbortController; done: Promise<void> }>();
  private wakeUp: (() => void) | null = null;
  private woken = false;
  private lastPurge = Date.now();
  private readonly onWritten = () => this.wake();
  /** Totals since start, for logs and benches. */
  readonly stats = { delivered: 0, failed: 0, dead: 0 };

  constructor(opts: DispatcherOptions) {
    this.ds = opts.ds;
    this.config = opts.config;
    this.log = opts.log ?? silent;
    this.workerId = opts.workerId ?? `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.mysql = opts.ds.options.type === 'mysql' || opts.ds.options.type === 'mariadb';
    const c = opts.config;
    this.transports = {
      https: new HttpsTransport(new DestinationGuard(c.WEBHOOK_ALLOW_PRIVATE_NETWORKS), new DeliverySigner(opts.ds, opts.tokenKey), c.WEBHOOK_TIMEOUT_MS, c.WEBHOOK_CA_FILE),
      sqs: new SqsTransport(c, c.WEBHOOK_TIMEOUT_MS),
    };
  }

  /** A claim outlives the longest possible attempt, so a live dispatcher never loses its rows. */
  private get leaseMs(): number {
    return Math.max(this.config.WEBHOOK_LEASE_MS, this.config.WEBHOOK_TIMEOUT_MS + 1_000);
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** Starts the delivery loop (in the background). */
  start(): this {
    if (this.running) return this;
    this.running = true;
    this.abandoned = false;
    outboxSignal.on('written', this.onWritten);
    this.loopDone = this.loop().catch((e) => this.log.error({ err: { message: (e as Error).message } }, 'webhook dispatcher stopped on an error'));
    this.log.info({ worker: this.workerId }, 'webhook dispatcher started');
    return this;
  }

  /**
   * Stops claiming. By default waits for in-flight deliveries (bounded by the timeout) and records
   * them; `abandon` aborts them unrecorded, as if the process had died (their leases then expire).
   */
  async stop(opts: { abandon?: boolean } = {}): Promise<void> {
    if (!this.running && !this.loopDone) return;
    this.running = false;
    outboxSignal.off('written', this.onWritten);
    if (opts.abandon) {
      this.abandoned = true;
      for (const f of this.inFlight.values()) f.abort.abort();
    }
    this.wake();
    await this.loopDone;
    this.loopDone = null;
    await Promise.allSettled([...this.inFlight.values()].map((f) => f.done));
    for (const t of Object.values(this.transports)) t.close();
    this.log.info({ worker: this.workerId, ...this.stats }, 'webhook dispatcher stopped');
  }

  /** Claim now rather than at the next poll. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  private idle(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = null;
        this.woken = false;
        done();
      };
    });
  }

  private async loop(): Promise<void> {
    const c = this.config;
    while (this.running) {
      const room = c.WEBHOOK_CONCURRENCY - this.inFlight.size;
      let claimed = 0;
      if (room > 0) {
        try {
          const batch = await this.claim(Math.min(room, c.WEBHOOK_BATCH_SIZE));
          claimed = batch.length;
          if (this.running) for (const b of batch) this.launch(b);
          else await this.release(batch);
        } catch (e) {
          this.log.error({ err: { message: (e as Error).message } }, 'webhook claim failed');
        }
      }
      if (!this.running) break;
      if (Date.now() - this.lastPurge > 10 * 60_000) await this.purge();
      // Full: wait for a slot. Nothing due: wait for a poll, a commit that wrote messages, or a slot.
      if (claimed === 0 || this.inFlight.size >= c.WEBHOOK_CONCURRENCY) await this.idle(c.WEBHOOK_POLL_MS);
    }
  }

  private launch(b: Claimed): void {
    const abort = new AbortController();
    const done = this.deliver(b, abort.signal)
      .catch((e) => this.log.error({ err: { message: (e as Error).message }, messageId: b.message.messageId }, 'webhook delivery failed unexpectedly'))
      .finally(() => {
        this.inFlight.delete(b.message.id);
        this.wake();
      });
    this.inFlight.set(b.message.id, { abort, done });
  }

  /**
   * One pass: delivers what is due now (not the retries it schedules) and returns how many attempts
   * were made (CLI `dispatch --once`, tests).
   */
  async drain(): Promise<number> {
    const dueBy = new Date();
    let total = 0;
    for (;;) {
      const batch = await this.claim(this.config.WEBHOOK_BATCH_SIZE, dueBy);
      if (!batch.length) return total;
      total += batch.length;
      const pool = [...batch];
      const workers = Array.from({ length: Math.min(this.config.WEBHOOK_CONCURRENCY, pool.length) }, async () => {
        for (let b = pool.shift(); b; b = pool.shift()) await this.deliver(b, new AbortController().signal);
      });
      await Promise.all(workers);
    }
  }

  // ---- claiming -------------------------------------------------------------------------------

  private async claim(limit: number, dueBy?: Date): Promise<Claimed[]> {
    const now = new Date();
    const due_by = dueBy ?? now;
    const token = randomUUID();
    const leaseUntil = new Date(now.getTime() + this.leaseMs);
    const due = ['pending', 'delivering'];
    const work = async (em: EntityManager) => {
      const qb = em
        .getRepository(OutboxMessage)
        .createQueryBuilder('m')
        .select('m.id', 'id')
        .where('m.status IN (:...due)', { due })
        .andWhere('m.next_attempt_at <= :dueBy', { dueBy: due_by })
        .orderBy('m.next_attempt_at', 'ASC')
        .limit(limit);
      if (this.mysql) qb.setLock('pessimistic_write').setOnLocked('skip_locked');
      const ids = (await qb.getRawMany<{ id: number | string }>()).map((r) => Number(r.id));
      if (!ids.length) return [];
      await em
        .createQueryBuilder()
        .update(OutboxMessage)
        .set({ status: 'delivering', attempts: () => 'attempts + 1', nextAttemptAt: leaseUntil, leaseToken: token, claimedBy: this.workerId, updatedAt: now })
        .where('id IN (:...ids)', { ids })
        .andWhere('status IN (:...due)', { due })
        .andWhere('next_attempt_at <= :dueBy', { dueBy: due_by })
        .execute();
      return em.getRepository(OutboxMessage).find({ where: { leaseToken: token }, order: { id: 'ASC' } });
    };
    // READ COMMITTED: the locking read takes no gap locks, so it never holds up the request
    // transactions inserting new messages (SQLite's transactions are serialized anyway).
    const rows = this.mysql ? await this.ds.transaction('READ COMMITTED', work) : await transaction(this.ds, work);
    const subIds = [...new Set(rows.map((m) => m.subscriptionId))];
    const subs = subIds.length ? await this.ds.getRepository(WebhookSubscription).findBy({ id: In(subIds) }) : [];
    const toolIds = [...new Set(subs.map((s) => s.toolProxyId))];
    const tools = toolIds.length
      ? await this.ds.getRepository(ToolProxy).find({ select: { id: true, workflowState: true, capabilities: true }, where: { id: In(toolIds) } })
      : [];
    return rows.map((message) => {
      const subscription = subs.find((s) => s.id === message.subscriptionId) ?? null;
      return { message, token, subscription, tool: tools.find((t) => t.id === subscription?.toolProxyId) ?? null };
    });
  }

  /** Gives claimed rows back (claimed while stopping). */
  private async release(batch: Claimed[]): Promise<void> {
    if (!batch.length) return;
    await transaction(this.ds, (em) =>
      em
        .createQueryBuilder()
        .update(OutboxMessage)
        .set({ status: 'pending', attempts: () => 'attempts - 1', nextAttemptAt: new Date(), leaseToken: null, claimedBy: null })
        .where('lease_token = :token', { token: batch[0].token })
        .execute(),
    );
  }

  // ---- delivering ------------------------------------------------------------------------------

  private async deliver({ message: m, token, subscription: sub, tool }: Claimed, signal: AbortSignal): Promise<void> {
    if (!sub || sub.state !== 'Active') return this.finish(m, token, 'cancelled', 'subscription deleted');
    if (sub.deactivatedAt) return this.finish(m, token, 'dead', `subscription deactivated: ${sub.deactivationReason ?? ''}`.trim());
    // Queued before the tool lost the capability (or the subscription the event type): not sent.
    const unwanted = unwantedReason(sub, tool, m.eventName);
    if (unwanted) return this.finish(m, token, 'cancelled', unwanted);
    const transport = sub.transportType === 'sqs' ? this.transports.sqs : sub.transportType === 'https' ? this.transports.https : null;
    if (!transport) return this.finish(m, token, 'dead', `unknown transport ${sub.transportType}`);
    // Counted when claimed, so an attempt cut short by a dying dispatcher still counts.
    const attempt = m.attempts;
    const startedAt = new Date();
    const body = m.format === 'caliper' ? JSON.stringify(withSendTime(JSON.parse(m.payload))) : m.payload;
    const outcome = await transport.send({
      messageId: m.messageId,
      subscriptionId: sub.id,
      eventName: m.eventName,
      attempt,
      url: sub.transportUrl,
      body,
      signal,
    });
    if (this.abandoned) return;
    if (outcome.ok) await this.recordSuccess(m, token, sub, startedAt, outcome);
    else await this.recordFailure(m, token, sub, startedAt, outcome);
  }

  /** Ends a message without an attempt (its subscription is gone, deactivated or no longer wants it). */
  private async finish(m: OutboxMessage, token: string, status: 'cancelled' | 'dead', reason: string): Promise<void> {
    if (this.abandoned) return;
    await transaction(this.ds, (em) =>
      em
        .createQueryBuilder()
        .update(OutboxMessage)
        .set({ status, attempts: () => 'attempts - 1', lastError: reason.slice(0, 1000), leaseToken: null, updatedAt: new Date() })
        .where('id = :id AND lease_token = :token', { id: m.id, token })
        .execute(),
    );
    if (status === 'dead') this.stats.dead++;
  }

  private async recordSuccess(m: OutboxMessage, token: string, sub: WebhookSubscription, at: Date, outcome: DeliveryOutcome): Promise<void> {
    const now = new Date();
    await transaction(this.ds, async (em) => {
      const res = await em
        .createQueryBuilder()
        .update(OutboxMessage)
        .set({
          status: 'delivered',
          deliveredAt: now,
          firstAttemptAt: m.firstAttemptAt ?? at,
          lastAttemptAt: at,
          lastError: null,
          lastStatusCode: outcome.statusCode,
          leaseToken: null,
          updatedAt: now,
        })
        .where("id = :id AND lease_token = :token AND status = 'delivering'", { id: m.id, token })
        .execute();
      if (!res.affected) return;
      if (sub.consecutiveFailures > 0) {
        await em.createQueryBuilder().update(WebhookSubscription).set({ consecutiveFailures: 0 }).where('id = :id', { id: sub.id }).execute();
      }
    });
    this.stats.delivered++;
  }

  private async recordFailure(m: OutboxMessage, token: string, sub: WebhookSubscription, at: Date, outcome: DeliveryOutcome): Promise<void> {
    const c = this.config;
    const now = new Date();
    const attempt = m.attempts;
    const exhausted = now.getTime() >= m.retryUntil.getTime();
    const next = new Date(now.getTime() + backoffMs(attempt, c.WEBHOOK_RETRY_BASE_MS, c.WEBHOOK_RETRY_MAX_MS));
    let deactivated = false;
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
      await em
        .createQueryBuilder()
        .update(WebhookSubscription)
        .set({ consecutiveFailures: () => 'consecutive_failures + 1' })
        .where('id = :id', { id: sub.id })
        .execute();
      deactivated = await this.maybeDeactivate(em, sub.id, now, outcome.error);
    });
    this.stats.failed++;
    if (exhausted || deactivated) this.stats.dead++;
    if (deactivated) this.log.warn({ subscriptionId: sub.id, lastError: outcome.error }, 'webhook subscription deactivated: its endpoint keeps failing');
  }

  private async maybeDeactivate(em: EntityManager, subscriptionId: string, now: Date, lastError: string | null): Promise<boolean> {
    const c = this.config;
    const sub = await em.getRepository(WebhookSubscription).findOneBy({ id: subscriptionId });
    if (!sub || sub.deactivatedAt || sub.consecutiveFailures < c.WEBHOOK_DEACTIVATE_FAILURES) return false;
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
    if (now.getTime() - failingSince.getTime() < c.WEBHOOK_DEACTIVATE_WINDOW_MS) return false;
    const reason = `${sub.consecutiveFailures} failed deliveries in a row since ${failingSince.toISOString()}; last error: ${lastError ?? 'unknown'}`;
    await em.getRepository(WebhookSubscription).update({ id: subscriptionId }, { deactivatedAt: now, deactivationReason: reason.slice(0, 255) });
    await em
      .createQueryBuilder()
      .update(OutboxMessage)
      .set({ status: 'dead', lastError: `subscription deactivated: ${reason}`.slice(0, 1000), leaseToken: null, updatedAt: now })
      .where("subscription_id = :id AND status = 'pending'", { id: subscriptionId })
      .execute();
    return true;
  }

  /** Removes delivered and cancelled messages past retention (dead ones stay for operators). */
  private async purge(): Promise<void> {
    this.lastPurge = Date.now();
    const cutoff = new Date(Date.now() - this.config.WEBHOOK_RETENTION_DAYS * 86_400_000);
    try {
      for (let round = 0; round < 20; round++) {
        const ids = (
          await this.ds
            .getRepository(OutboxMessage)
            .createQueryBuilder('m')
            .select('m.id', 'id')
            .where("m.status IN ('delivered', 'cancelled') AND m.updated_at < :cutoff", { cutoff })
            .limit(1000)
            .getRawMany<{ id: number }>()
        ).map((r) => Number(r.id));
        if (!ids.length) return;
        await transaction(this.ds, (em) => em.getRepository(OutboxMessage).delete({ id: In(ids) }));
      }
    } catch (e) {
      this.log.warn({ err: { message: (e as Error).message } }, 'webhook outbox purge failed');
    }
  }
}
