import DataLoader from 'dataloader';
import type { EntityTarget, ObjectLiteral } from 'typeorm';
import { leanRows } from '../db/lean-read';
import type { FromTheEnd, KeyWindow } from '../common/keyset';
import { pageTailSql } from '../common/keyset';
import type { RequestContext } from '../request/context';

/**
 * A page's SELECT of `columns` from `table` (`name alias`) matching `where` in `order`: LIMIT limit + 1
 * after the window's key (the caller puts it in `where`). A legacy offset page first finds its ids
 * in the index alone (`idColumn`: the alias's id), then reads just those rows: the skipped rows cost
 * no row lookup each. Rows come back unordered then (pageLoader sorts them). The page's ids drive the
 * join on both engines (STRAIGHT_JOIN on MariaDB/MySQL, CROSS JOIN on SQLite), whatever their
 * estimates of a small table say.
 */
export function pageSql(ctx: RequestContext, columns: string, table: string, idColumn: string, where: string, order: string, w: KeyWindow, end: FromTheEnd | null = null): string {
  if (w.offset <= 0) return `SELECT ${columns} FROM ${table} WHERE ${where} ORDER BY ${order} LIMIT ${w.limit + 1}`;
  const alias = idColumn.split('.')[0];
  const [select, join] = isMysql(ctx) ? ['SELECT STRAIGHT_JOIN', 'INNER JOIN'] : ['SELECT', 'CROSS JOIN'];
  // A deep page read from the end (deepPage) comes back last first: pageLoader sorts its rows back.
  const tail = pageTailSql(order, w, end);
  return `${select} ${columns} FROM (SELECT ${idColumn} AS page_id FROM ${table} WHERE ${where}${tail}) pg ${join} ${table} ON ${alias}.id = pg.page_id`;
}

const isMysql = (ctx: RequestContext) => ctx.ds.options.type === 'mysql' || ctx.ds.options.type === 'mariadb';

/** One parent's page statement: a full SELECT of the entity's columns, ordered and LIMITed. */
export interface PagePart {
  parent: number;
  sql: string;
  params: unknown[];
}

/** One parent's count: `FROM … WHERE …` text and its parameters. */
export interface CountPart {
  parent: number;
  from: string;
  params: unknown[];
}

/**
 * Pages of several parents asked in one tick (each module of a page with its items connection, each
 * course of a list with its modules) read in one statement: each parent's own ordered, LIMITed SELECT
 * glued with UNION ALL, so nested connections cost the same statements for 2 parents as for 50. The
 * rows come back grouped by `parentOf` and sorted by `compare` (UNION ALL keeps no order). `key`
 * names everything the parts' SQL depends on besides the parent (the window, the viewer, the search).
 */
export function pageLoader<T extends ObjectLiteral>(
  ctx: RequestContext,
  key: string,
  entity: EntityTarget<T>,
  parentOf: (row: T) => number,
  compare: (a: T, b: T) => number,
  /**
   * Loads what every row needs next (through the request's batched loaders) before any parent's page
   * resolves: the parents then go on together, and what they ask next (a count) batches again.
   */
  prepare?: (rows: T[]) => Promise<unknown>,
): DataLoader<PagePart, T[], number> {
  return ctx.loaders.get(`modules:pages:${key}`, () =>
    new DataLoader<PagePart, T[], number>(
      async (parts) => {
        // MariaDB/MySQL take each LIMITed member in parentheses (a derived table would be materialised
        // per member); SQLite allows ORDER BY and LIMIT in a member only inside a subquery.
        const member = (p: PagePart, i: number) => (isMysql(ctx) ? `(${p.sql})` : `SELECT * FROM (${p.sql}) p${i}`);
        const sql = parts.length === 1 ? parts[0].sql : parts.map(member).join(' UNION ALL ');
        // Plain entities (no relations or embedded columns): leanRows always maps them.
        const rows = (await leanRows(ctx.ds, entity, sql, parts.flatMap((p) => p.params)))!;
        rows.sort(compare);
        if (prepare) await prepare(rows);
        return parts.map((p) => rows.filter((r) => parentOf(r) === p.parent));
      },
      { cacheKeyFn: (p) => p.parent },
    ),
  );
}

/** Counts of several parents in one statement (only when a client selected totalCount). */
export function countLoader(ctx: RequestContext, key: string): DataLoader<CountPart, number, number> {
  return ctx.loaders.get(`modules:counts:${key}`, () =>
    new DataLoader<CountPart, number, number>(
      async (parts) => {
        // Parent ids are our own integers, never input text.
        const sql = parts.map((p) => `SELECT ${Number(p.parent)} AS k, COUNT(*) AS n FROM ${p.from}`).join(' UNION ALL ');
        const rows: { k: number | string; n: number | string }[] = await ctx.ds.query(sql, parts.flatMap((p) => p.params));
        return parts.map((p) => Number(rows.find((r) => Number(r.k) === p.parent)?.n ?? 0));
      },
      { cacheKeyFn: (p) => p.parent },
    ),
  );
}
