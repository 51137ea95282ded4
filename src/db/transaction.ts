import { DataSource, EntityManager } from 'typeorm';

/**
 * One transaction per mutation. SQLite has a single connection, so transactions there are queued
 * one after another rather than interleaved on it; MySQL takes a pooled connection per transaction.
 */
const queues = new WeakMap<DataSource, Promise<unknown>>();

export function transaction<T>(ds: DataSource, fn: (em: EntityManager) => Promise<T>): Promise<T> {
  if (ds.options.type !== 'better-sqlite3') return ds.transaction(fn);
  const prev = queues.get(ds) ?? Promise.resolve();
  const run = prev.catch(() => undefined).then(() => ds.transaction(fn));
  queues.set(ds, run.catch(() => undefined));
  return run;
}
