import type { DataSource } from 'typeorm';
import { metrics, registerPoolMetrics } from '../common/metrics';

/** Queue-like lists of mysql2's pool (internal but long-standing fields). */
interface Mysql2Pool {
  _allConnections?: { length: number };
  _freeConnections?: { length: number };
  _connectionQueue?: { length: number };
}

/** A datetime from a raw query: a Date on MySQL, a UTC `YYYY-MM-DD HH:MM:SS.mmm` string on SQLite. */
function rawDate(v: unknown): Date | null {
  if (v == null) return null;
  if (v instanceof Date) return v;
  const s = String(v);
  const d = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s.replace(' ', 'T')}Z`);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** The mysql2 pool's connections in use, idle, and requests waiting; nothing on SQLite. */
function collectPool(ds: DataSource): void {
  if (ds.options.type !== 'mysql' && ds.options.type !== 'mariadb') return;
  const pool = (ds.driver as unknown as { pool?: Mysql2Pool }).pool;
  if (!pool?._allConnections || !pool._freeConnections) return;
  registerPoolMetrics();
  const all = pool._allConnections.length;
  const idle = pool._freeConnections.length;
  metrics.dbPoolConnections.set({ state: 'active' }, Math.max(all - idle, 0));
  metrics.dbPoolConnections.set({ state: 'idle' }, idle);
  metrics.dbPoolWaiting.set(pool._connectionQueue?.length ?? 0);
}

/** Outbox depth and the oldest undelivered message's age, in one query on the (status, …) index. */
async function collectOutbox(ds: DataSource): Promise<void> {
  const rows: { n: number | string; oldest: unknown }[] = await ds.query(
    "SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM outbox_messages WHERE status IN ('pending', 'delivering')",
  );
  const n = Number(rows[0]?.n ?? 0);
  const oldest = rawDate(rows[0]?.oldest);
  metrics.outboxPending.set(n);
  metrics.outboxOldestAge.set(n > 0 && oldest ? Math.max((Date.now() - oldest.getTime()) / 1000, 0) : 0);
}

/** Sets the gauges read from this instance's database, just before a scrape is answered. */
export async function collectOnScrape(ds: DataSource): Promise<void> {
  collectPool(ds);
  await collectOutbox(ds);
}
