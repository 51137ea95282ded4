import { Brackets, DataSource, EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { transaction } from '../db/transaction';
import { OutboxMessage } from './outbox.entity';
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

/** The columns of an attempt row, as attemptRow fills them. */
const ATTEMPT_COLUMNS: (keyof WebhookAttempt)[] = ['outboxMessageId', 'attempt', 'startedAt', 'durationMs', 'statusCode', 'errorClass', 'error', 'responseBody'];

const column = <T extends ObjectLiteral>(em: EntityManager, entity: EntityTarget<T>, property: keyof T): ColumnMetadata =>
  em.connection.getMetadata(entity).findColumnWithPropertyName(String(property))!;
/** A value as the driver stores it in that column (a datetime string on SQLite, a Date on MySQL). */
const persist = (em: EntityManager, c: ColumnMetadata, value: unknown): unknown => em.connection.driver.preparePersistentValue(value, c) ?? null;
const esc = (em: EntityManager, name: string): string => em.connection.driver.escape(name);

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
        // READ COMMITTED on MySQL/MariaDB, as claims are: the locking read then takes record locks on
        // these rows only, no gap locks that would hold up other workers' claims and writes.
        const recorded = this.mysql
          ? await this.ds.transaction('READ COMMITTED', (em) => this.write(em, batch))
          : await transaction(this.ds, (em) => this.write(em, batch));
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
      .where('m.id IN (:...all)', { all: batch.map((w) => w.message.id) })
      // By primary key first (the id list), so the locking read touches only these rows.
      .andWhere("m.status = 'delivering'")
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

    // One UPDATE and one INSERT for the batch, as SQL written here: TypeORM's query builder replaces
    // named parameters by scanning the whole statement once per parameter, which for a few hundred
    // rows cost more of the event loop than the database's work. Column names and value conversion
    // (datetimes on SQLite) still come from the entities' metadata.
    const now = new Date();
    const ids = rows.map((w) => w.message.id);
    const m = (property: keyof OutboxMessage) => column(em, OutboxMessage, property);
    const byId = (c: ColumnMetadata, value: (w: Waiting) => unknown) => {
      const params: unknown[] = [];
      const sql = `CASE ${esc(em, 'id')} ${rows.map((w) => (params.push(w.message.id, persist(em, c, value(w))), 'WHEN ? THEN ?')).join(' ')} END`;
      return { sql, params };
    };
    const startedAt = byId(m('lastAttemptAt'), (w) => w.timing.startedAt);
    const firstAt = byId(m('firstAttemptAt'), (w) => w.timing.startedAt);
    const statusCode = byId(m('lastStatusCode'), (w) => w.outcome.statusCode);
    const set = (c: ColumnMetadata) => `${esc(em, c.databaseName)} = `;
    await em.query(
      `UPDATE ${esc(em, em.connection.getMetadata(OutboxMessage).tableName)} SET ` +
        [
          `${set(m('status'))}'delivered'`,
          `${set(m('deliveredAt'))}?`,
          `${set(m('lastAttemptAt'))}${startedAt.sql}`,
          `${set(m('firstAttemptAt'))}COALESCE(${esc(em, m('firstAttemptAt').databaseName)}, ${firstAt.sql})`,
          `${set(m('lastError'))}NULL`,
          `${set(m('lastStatusCode'))}${statusCode.sql}`,
          `${set(m('leaseToken'))}NULL`,
          `${set(m('updatedAt'))}?`,
        ].join(', ') +
        ` WHERE ${esc(em, 'id')} IN (${ids.map(() => '?').join(', ')})`,
      [persist(em, m('deliveredAt'), now), ...startedAt.params, ...firstAt.params, ...statusCode.params, persist(em, m('updatedAt'), now), ...ids],
    );
    const attemptColumns = ATTEMPT_COLUMNS.map((p) => column(em, WebhookAttempt, p));
    const values: unknown[] = [];
    for (const w of rows) {
      const row = attemptRow(w.message, w.timing, w.outcome);
      for (const c of attemptColumns) values.push(persist(em, c, row[c.propertyName as keyof WebhookAttempt]));
    }
    const tuple = `(${attemptColumns.map(() => '?').join(', ')})`;
    await em.query(
      `INSERT INTO ${esc(em, em.connection.getMetadata(WebhookAttempt).tableName)} (${attemptColumns.map((c) => esc(em, c.databaseName)).join(', ')}) VALUES ${rows.map(() => tuple).join(', ')}`,
      values,
    );
    // A success ends a run of failures (only subscriptions that had one, as they were when claimed).
    const failing = [...new Set(rows.filter((w) => w.subscription.consecutiveFailures > 0).map((w) => w.subscription.id))];
    if (failing.length) {
      await em.createQueryBuilder().update(WebhookSubscription).set({ consecutiveFailures: 0 }).where('id IN (:...failing)', { failing }).execute();
    }
    return ours;
  }
}
