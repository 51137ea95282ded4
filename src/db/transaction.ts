import { DataSource, EntityManager } from 'typeorm';
import { flushAfterCommit } from '../events/domain-events';

/**
 * One transaction per mutation. SQLite has a single connection, so transactions there are queued
 * one after another rather than interleaved on it; MySQL takes a pooled connection per transaction.
 */
const queues = new WeakMap<DataSource, Promise<unknown>>();

export async function transaction<T>(ds: DataSource, fn: (em: EntityManager) => Promise<T>): Promise<T> {
  let manager: EntityManager | undefined;
  const body = (em: EntityManager) => {
    manager = em;
    return fn(em);
  };
  let result: T;
  if (ds.options.type !== 'better-sqlite3') result = await ds.transaction(body);
  else {
    const prev = queues.get(ds) ?? Promise.resolve();
    const run = prev.catch(() => undefined).then(() => ds.transaction(body));
    queues.set(ds, run.catch(() => undefined));
    result = await run;
  }
  if (manager) await flushAfterCommit(manager);
  return result;
}
