import type { TestServer } from './server';

/**
 * SQL statements one request costs (requests run one at a time): the fewer of two runs, since token
 * bookkeeping (the token cache expiring, last_used_at) now and then adds a statement to a request.
 */
export async function statementCost(server: TestServer, fn: () => Promise<unknown>): Promise<number> {
  const counts: number[] = [];
  for (let i = 0; i < 2; i++) {
    const before = server.queryCount();
    await fn();
    counts.push(server.queryCount() - before);
  }
  return Math.min(...counts);
}
