import { Brackets, DataSource, EntityManager } from 'typeorm';
import { transaction } from '../db/transaction';
import { OutboxMessage } from '../events/outbox.entity';
import type { DeliveryOutcome } from './transports';
import { WebhookAttempt } from './webhook-attempt.entity';
import { WebhookSubscription } from './webhook-subscription.entity';

/** When an attempt started and how long it took. */
export interface AttemptTiming {
  startedAt: Date;
  durationMs: number;
}

/** One successful attempt waiting to be recorded. */
export interface SuccessRecord {
  message: OutboxMessage;
  token: string;
  subscription: WebhookSubscription;
  timing: AttemptTiming;
  outcome: DeliveryOutcome;
}

interface Waiting extends SuccessRecord {
  done: (recorded: boolean) => void;
  fail: (e: unknown) => void;
}

/** Most rows one flush writes (bounds the statement's size and its parameter count). */
const MAX_ROWS = 200;
/**
 * Least time between the end of one flush and the start of the next: a few times what the last flush
 * took, within these bounds. A commit costs a disk sync (SQLite's WAL with synchronous=FULL syncs on
 * every commit, about 3 ms here, blocking the event loop), so under load waiting for more successes is
 * cheaper than committing each handful, and the slower commits are the more it pays; when idle the
 * last flush is long past and a success is written at once.
 */
const MIN_GAP_MS = 2;
const MAX_GAP_MS = 50;
const GAP_PER_FLUSH_MS = 4;

/** The attempt log row of an attempt. */
export function attemptRow(m: OutboxMessage, t: AttemptTiming, outcome: DeliveryOutcome): Partial<WebhookAttempt> {
  return {
    outboxMessageId: m.id,
    attempt: m.attempts,
    startedAt: t.startedAt,
    durationMs: Math.max(0, Math.round(t.durationMs)),
    statusCode: outcome.statusCode,
    errorClass: outcome.ok ? null : outcome.errorClass,
    error: outcome.ok ? null : outcome.error,
    responseBody: outcome.responseBody ?? null,
  };
}

/**
 * Records successful deliveries in batches (group commit): every success that arrives while one batch
 * is being written (or arrives within a few milliseconds of the last write) joins the next, so under load one transaction of three statements (find the rows
 * still held under their claim's lease token, mark them delivered, insert their attempt rows) records
 * up to MAX_ROWS messages, where one transaction per message cost most of a dispatcher's time (on
 * SQLite each is a serialized BEGIN IMMEDIATE … COMMIT). With nothing else arriving a success is
 * written at once (the next turn of the event loop), so batching adds no latency when idle and at
most MAX_GAP_MS under load.
 *
 * The write is conditional on each row's lease token, as the single-row path is: a row whose claim ran
 * out (and that another dispatcher took over) is left alone and gets no attempt row.
 */
export class SuccessBatch {
  private queue: Waiting[] = [];
  private flushing: Promise<void> | null = null;
  private lastFlushEnded = 0;
  private gapMs = MIN_GAP_MS;

  constructor(
    private readonly ds: DataSource,
    private readonly mysql: boolean,
  ) {}

  /** Resolves once written: true when the row was still held under the claim (so it was recorded). */
  record(r: SuccessRecord): Promise<boolean> {
    return new Promise<boolean>((done, fail) => {
      this.queue.push({ ...r, done, fail });
      this.flushing ??= new Promise<void>((resolve) => {
        const wait = this.lastFlushEnded + this.gapMs - Date.now();
        if (wait > 0) setTimeout(resolve, wait);
        else setImmediate(resolve);
      }).then(() => this.flush());
    });
  }

  /** Waits for every queued success to be written (stop()). */
  async settled(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async flush(): Promise<void> {
    while (this.queue.length) {
      const wait = this.lastFlushEnded + this.gapMs - Date.now();
      if (wait > 0 && this.queue.length < MAX_ROWS) await new Promise((resolve) => setTimeout(resolve, wait));
      const batch = this.queue.splice(0, MAX_ROWS);
      const started = Date.now();
      try {
        const recorded = await transaction(this.ds, (em) => this.write(em, batch));
        for (const w of batch) w.done(recorded.has(w.message.id));
      } catch (e) {
        for (const w of batch) w.fail(e);
      }
      this.lastFlushEnded = Date.now();
      this.gapMs = Math.min(MAX_GAP_MS, Math.max(MIN_GAP_MS, GAP_PER_FLUSH_MS * (this.lastFlushEnded - started)));
    }
    this.flushing = null;
  }

  private async write(em: EntityManager, batch: Waiting[]): Promise<Set<number>> {
    // The rows still held under their claims: a batch holds rows of a few claims, each with its token.
    const byToken = new Map<string, number[]>();
    for (const w of batch) byToken.set(w.token, [...(byToken.get(w.token) ?? []), w.message.id]);
    const held = em
      .getRepository(OutboxMessage)
      .createQueryBuilder('m')
      .select('m.id', 'id')
      .where("m.status = 'delivering'")
      .andWhere(
        new Brackets((q) => {
          let i = 0;
          for (const [token, ids] of byToken) {
            q.orWhere(`(m.lease_token = :token${i} AND m.id IN (:...ids${i}))`, { [`token${i}`]: token, [`ids${i}`]: ids });
            i++;
          }
        }),
      );
    if (this.mysql) held.setLock('pessimistic_write');
    const ours = new Set((await held.getRawMany<{ id: number | string }>()).map((r) => Number(r.id)));
    const rows = batch.filter((w) => ours.has(w.message.id));
    if (!rows.length) return ours;

    // One UPDATE for the batch: the per-row values (when the attempt started, the answer's status)
    // are CASE expressions on the id.
    const params: Record<string, unknown> = { ids: rows.map((w) => w.message.id), now: new Date() };
    const when = (column: (w: Waiting) => unknown, name: string) =>
      `CASE id ${rows
        .map((w, i) => {
          params[`${name}${i}`] = column(w);
          params[`id${i}`] = w.message.id;
          return `WHEN :id${i} THEN :${name}${i}`;
        })
        .join(' ')} END`;
    const startedAt = when((w) => w.timing.startedAt, 'at');
    const statusCode = when((w) => w.outcome.statusCode, 'code');
    await em
      .createQueryBuilder()
      .update(OutboxMessage)
      .set({
        status: 'delivered',
        deliveredAt: () => ':now',
        lastAttemptAt: () => startedAt,
        firstAttemptAt: () => `COALESCE(first_attempt_at, ${startedAt})`,
        lastError: null,
        lastStatusCode: () => statusCode,
        leaseToken: null,
        updatedAt: () => ':now',
      })
      .where('id IN (:...ids)')
      .setParameters(params)
      .execute();
    await em
      .createQueryBuilder()
      .insert()
      .into(WebhookAttempt)
      .values(rows.map((w) => attemptRow(w.message, w.timing, w.outcome)))
      .updateEntity(false)
      .execute();
    // A success ends a run of failures (only subscriptions that had one, as they were when claimed).
    const failing = [...new Set(rows.filter((w) => w.subscription.consecutiveFailures > 0).map((w) => w.subscription.id))];
    if (failing.length) {
      await em.createQueryBuilder().update(WebhookSubscription).set({ consecutiveFailures: 0 }).where('id IN (:...failing)', { failing }).execute();
    }
    return ours;
  }
}
