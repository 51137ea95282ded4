import { LRUCache } from 'lru-cache';
import { DataSource, QueryFailedError } from 'typeorm';
import { traceStatement } from './traced-queries';

/**
 * SELECT results as arrays from better-sqlite3, for the lean reads (lean-read.ts). Rows as objects
 * cost better-sqlite3 a named property store per value (a page of 51 groups, 21 columns: about 290 µs
 * of the statement's 25 µs of SQLite work); as arrays about 115 µs, and the hydrator then stores each
 * value under its property in one fixed order. Everything the driver's query runner does for a
 * statement is kept: the logger counts it (statements per request stay checkable), booleans bind as
 * 0/1, tracing gives it the runner's span, and a failure is logged and thrown as TypeORM's
 * QueryFailedError carrying the driver's code (so db/unavailable.ts reads it the same). better-sqlite3
 * has one connection per data source, the one TypeORM's runner and transactions use, so a read here
 * sees what a transaction in progress has written, as ds.query would.
 */
export interface ArrayRows {
  /** Result column names, in the order of each row's values. */
  columns: readonly string[];
  /** One key per distinct column list (for caching what is built per shape of result). */
  columnsKey: string;
  rows: unknown[][];
}

interface Statement {
  all(...params: unknown[]): unknown[][];
  raw(on: boolean): Statement;
  columns(): { name: string }[];
  readonly reader: boolean;
}

interface Prepared {
  stmt: Statement;
  columns: string[];
  columnsKey: string;
}

/** Statements per connection: lean reads have a few hundred texts (IN lists vary in length). */
const MAX_STATEMENTS = 1_000;
const prepared = new WeakMap<object, LRUCache<string, Prepared>>();

function connectionOf(ds: DataSource): { prepare(sql: string): Statement } | null {
  if (ds.options.type !== 'better-sqlite3') return null;
  return ((ds.driver as unknown as { databaseConnection?: { prepare(sql: string): Statement } }).databaseConnection ?? null) as never;
}

function prepare(db: { prepare(sql: string): Statement }, sql: string): Prepared {
  let cache = prepared.get(db);
  if (!cache) prepared.set(db, (cache = new LRUCache<string, Prepared>({ max: MAX_STATEMENTS })));
  let p = cache.get(sql);
  if (!p) {
    const stmt = db.prepare(sql);
    if (!stmt.reader) throw new Error('sqliteArrayRows runs only statements that return rows');
    stmt.raw(true);
    const columns = stmt.columns().map((c) => c.name);
    p = { stmt, columns, columnsKey: columns.join('\u0000') };
    cache.set(sql, p);
  }
  return p;
}

/** The rows of a SELECT as arrays on better-sqlite3; null on other engines (use ds.query there). */
export async function sqliteArrayRows(ds: DataSource, sql: string, params: readonly unknown[]): Promise<ArrayRows | null> {
  const db = connectionOf(ds);
  if (!db) return null;
  const bound = params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p));
  ds.logger.logQuery(sql, bound);
  try {
    return traceStatement(ds, sql, () => {
      const p = prepare(db, sql);
      return { columns: p.columns, columnsKey: p.columnsKey, rows: p.stmt.all(...bound) };
    });
  } catch (e) {
    ds.logger.logQueryError(e as Error, sql, bound);
    throw new QueryFailedError(sql, bound, e as Error);
  }
}
