import { AsyncLocalStorage } from 'node:async_hooks';
import { DataSource, EntityManager } from 'typeorm';

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
  if (ds.options.type !== 'better-sqlite3') result = await withPoolSlot(ds, () => retryingDeadlocks(() => ds.transaction(body)));
  else {
    const prev = queues.get(ds) ?? Promise.resolve();
    const run = prev.catch(() => undefined).then(() => ds.transaction(body));
    queues.set(ds, run.catch(() => undefined));
    result = await run;
  }
  if (manager) await flushAfterCommit(manager);
  return result;
}

const pending = new WeakMap<EntityManager, (() => Promise<void> | void)[]>();

/** Work to run only once the transaction of `em` has committed (e.g. publishing to subscribers). */
export function afterCommit(em: EntityManager, fn: () => Promise<void> | void): void {
  const list = pending.get(em) ?? [];
  list.push(fn);
  pending.set(em, list);
}

/** Runs the work queued for a transaction, after its commit. */
async function flushAfterCommit(em: EntityManager): Promise<void> {
  const list = pending.get(em);
  if (!list) return;
  pending.delete(em);
  for (const fn of list) await fn();
}

/** InnoDB's answers that roll the whole transaction back and ask for it to be run again. */
const RETRYABLE = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT']);
/** Six joins of one user to one set at once on a loaded 2-core machine used up four attempts. */
const ATTEMPTS = 8;

function retryable(e: unknown): boolean {
  const err = e as { code?: string; driverError?: { code?: string } } | null;
  return RETRYABLE.has(err?.code ?? '') || RETRYABLE.has(err?.driverError?.code ?? '');
}

/**
 * MySQL/MariaDB pick a victim when two transactions lock rows in opposite orders (two joins of one
 * user to groups of one set each insert their row, then clear the user's other memberships of the
 * set). The victim was rolled back whole, so running it again is what InnoDB asks for; a short
 * random pause lets the winner commit first. Nothing of a rolled-back attempt escapes: domain
 * events are flushed only after a commit, from the attempt that committed.
 */
async function retryingDeadlocks<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (e) {
      if (attempt >= ATTEMPTS || !retryable(e)) throw e;
      // Random and growing (up to 10, 20, 40 … 640 ms): the losers spread out instead of meeting again.
      await new Promise((r) => setTimeout(r, Math.random() * 10 * 2 ** attempt));
    }
  }
}

/**
 * Transactions at once on one pool: its size less two. Code inside a transaction also reads through
 * the pool (per-request loaders, permission checks), so when every pooled connection held an open
 * transaction, each waited for a connection the others held and nothing moved (seen on MariaDB: ten
 * idle transactions and a hung request, as mysql2's pool waits without limit). The connections kept
 * free serve those reads, which wait on no transaction. A transaction started inside another (found
 * through async context) runs on its parent's slot, so nesting cannot wait on itself.
 */
const RESERVED_FOR_READS = 2;
const insideTransaction = new AsyncLocalStorage<true>();

class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];
  constructor(size: number) {
    this.free = size;
  }
  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

const poolSlots = new WeakMap<DataSource, Slots>();

async function withPoolSlot<T>(ds: DataSource, run: () => Promise<T>): Promise<T> {
  if (insideTransaction.getStore()) return run();
  let slots = poolSlots.get(ds);
  if (!slots) {
    const limit = Number((ds.options as { extra?: { connectionLimit?: number } }).extra?.connectionLimit ?? 10);
    poolSlots.set(ds, (slots = new Slots(Math.max(1, limit - RESERVED_FOR_READS))));
  }
  await slots.acquire();
  try {
    return await insideTransaction.run(true, run);
  } finally {
    slots.release();
  }
}
