import type { TestServer } from './server';

/**
 * SQL statements one request costs (requests run one at a time): the fewest of four runs, since token
 * bookkeeping (the token cache expiring, last_used_at) now and then adds a statement to a request.
 */
export async function statementCost(server: TestServer, fn: () => Promise<unknown>): Promise<number> {
  const counts: number[] = [];
  for (let i = 0; i < 4; i++) {
    const before = server.queryCount();
    await fn();
    counts.push(server.queryCount() - before);
  }
  return Math.min(...counts);
}

/**
 * The statements of a request over many parents against the same request over fewer: equal, give or
 * take one. On MySQL two loads of one DataLoader can land in different ticks when their round trips
 * answer in a different order, splitting a batch in two now and then (seen: 62 and 61 statements for
 * the same query). A cost that grew per parent would differ by at least the number of extra parents,
 * so callers compare lists that differ by three or more.
 */
export async function expectFlatCost(server: TestServer, label: string, many: () => Promise<unknown>, few: () => Promise<unknown>): Promise<void> {
  const [m, f] = [await statementCost(server, many), await statementCost(server, few)];
  expect({ label, flat: Math.abs(m - f) <= 1, many: m, few: f }).toEqual({ label, flat: true, many: m, few: f });
}
