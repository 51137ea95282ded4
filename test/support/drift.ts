/**
 * Problems found by the suite's contract checks outside a request/response (deliveries that reach a
 * test receiver, graphql-ws results), kept until the current test ends: test/support/after-each.ts
 * fails the test then. Kept on globalThis so every copy of this module in a test file's sandbox shares it.
 */
const KEY = Symbol.for('lms.test.driftProblems');
const store = globalThis as unknown as Record<symbol, string[] | undefined>;

export function reportDrift(problem: string): void {
  (store[KEY] ??= []).push(problem);
  process.stderr.write(`event catalog: ${problem}\n`);
}

export function takeDrift(): string[] {
  const problems = store[KEY] ?? [];
  store[KEY] = [];
  return problems;
}
