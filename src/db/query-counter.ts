import { AsyncLocalStorage } from 'node:async_hooks';
import { AbstractLogger, LogLevel, LogMessage, QueryRunner } from 'typeorm';

/**
 * Counts SQL statements per request (or any scope) so tests and benches can prove that a list's
 * statement count does not grow with its length.
 */
const scope = new AsyncLocalStorage<{ count: number }>();

export function countQueries<T>(fn: () => Promise<T>): Promise<{ result: T; queries: number }> {
  const box = { count: 0 };
  return scope.run(box, async () => ({ result: await fn(), queries: box.count }));
}

export function currentQueryCount(): number | undefined {
  return scope.getStore()?.count;
}

export function withQueryScope<T>(box: { count: number }, fn: () => T): T {
  return scope.run(box, fn);
}

export class CountingLogger extends AbstractLogger {
  /** Statements since start, for tests and benches that measure one request at a time. */
  total = 0;
  constructor(private readonly onError?: (message: string) => void) {
    super();
  }
  /** A listener for every statement run (tests capture a list's page statement to EXPLAIN it). */
  onQuery?: (query: string, parameters: readonly unknown[]) => void;
  logQuery(query: string, parameters?: unknown[], _queryRunner?: QueryRunner): void {
    this.total++;
    this.onQuery?.(query, parameters ?? []);
    const box = scope.getStore();
    if (box) box.count++;
  }
  protected writeLog(level: LogLevel, message: LogMessage | LogMessage[]): void {
    if (level !== 'warn' && level !== 'error') return;
    const msgs = Array.isArray(message) ? message : [message];
    // Never the query parameters: they can hold token hashes or personal data.
    for (const m of msgs) this.onError?.(String(typeof m === 'string' ? m : m.message));
  }
}
