import type { DataSource, QueryRunner } from 'typeorm';
import { type SpanOptions, tracingOn, withSpan } from '../tracing/tracing';

/**
 * A span per SQL statement while tracing is on, named by the statement's kind and table
 * (`SELECT courses`): never its text, which can hold literals, nor its parameters. Statements run
 * outside any traced operation (background sweeps) get none. Installed on the driver's query
 * runners, through which every statement goes (entity managers, query builders, ds.query); without
 * tracing nothing is wrapped.
 */
export function traceQueries(ds: DataSource): void {
  if (!tracingOn()) return;
  const driver = ds.driver as unknown as { createQueryRunner(mode?: string): QueryRunner };
  const system = dbSystem(ds.options.type);
  const create = driver.createQueryRunner.bind(driver);
  const wrapped = new WeakSet<QueryRunner>();
  driver.createQueryRunner = (mode?: string) => {
    const runner = create(mode);
    // better-sqlite3 hands out one runner for the life of the data source: wrapped once.
    if (wrapped.has(runner)) return runner;
    wrapped.add(runner);
    const query = runner.query.bind(runner) as (...args: unknown[]) => Promise<unknown>;
    (runner as { query: unknown }).query = (sql: string, ...rest: unknown[]) => {
      const { name, options } = spanOf(sql, system);
      return withSpan(name, options, () => query(sql, ...rest));
    };
    return runner;
  };
}

/**
 * Runs `fn` (one statement that bypasses the driver's query runner, as db/sqlite-rows.ts does) in the
 * span the runner's statements get while tracing is on; without tracing it just runs it.
 */
export function traceStatement<T>(ds: DataSource, sql: string, fn: () => T): T {
  if (!tracingOn()) return fn();
  const { name, options } = spanOf(sql, dbSystem(ds.options.type));
  return withSpan(name, options, fn);
}

function dbSystem(type: string): string {
  if (type === 'better-sqlite3') return 'sqlite';
  return type === 'mariadb' ? 'mariadb' : 'mysql';
}

/** Span name and options by statement text: the same few hundred statements repeat, so each is read once. */
const spans = new Map<string, { name: string; options: SpanOptions }>();
const MAX_SPANS = 2_000;

function spanOf(sql: string, system: string): { name: string; options: SpanOptions } {
  let hit = spans.get(sql);
  if (hit) return hit;
  const { kind, table } = statementOf(sql);
  const attributes: Record<string, string> = { 'db.system.name': system, 'db.operation.name': kind };
  if (table) attributes['db.collection.name'] = table;
  hit = { name: table ? `${kind} ${table}` : kind, options: { kind: 'client', requireParent: true, attributes } };
  if (spans.size >= MAX_SPANS) spans.clear();
  spans.set(sql, hit);
  return hit;
}

const IDENT = '[`"]?([A-Za-z_][A-Za-z0-9_$]*)[`"]?';
const TABLE_AFTER: Record<string, RegExp> = {
  SELECT: new RegExp(`\\bFROM\\s+${IDENT}`, 'i'),
  DELETE: new RegExp(`\\bFROM\\s+${IDENT}`, 'i'),
  INSERT: new RegExp(`\\bINTO\\s+${IDENT}`, 'i'),
  REPLACE: new RegExp(`\\bINTO\\s+${IDENT}`, 'i'),
  UPDATE: new RegExp(`^\\s*UPDATE\\s+${IDENT}`, 'i'),
};

/**
 * The statement's kind (its first keyword, e.g. SELECT, INSERT, BEGIN) and the first table it names
 * (null when it names none, as BEGIN or SELECT VERSION()). Only identifiers leave this function.
 */
export function statementOf(sql: string): { kind: string; table: string | null } {
  const kind = (/^\s*\(?\s*([A-Za-z]+)/.exec(sql)?.[1] ?? 'SQL').toUpperCase();
  const after = TABLE_AFTER[kind === 'WITH' ? 'SELECT' : kind];
  const table = after ? (after.exec(sql)?.[1] ?? null) : null;
  return { kind, table };
}
