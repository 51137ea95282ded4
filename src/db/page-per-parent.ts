import { In, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { keysetConnection } from '../common/connection';
import { afterKey, deepPage, FromTheEnd, KeyValue, keyWindow, KeyWindow, orderSql, pageTailSql, SortKey } from '../common/keyset';
import { sqlDate } from '../common/sql-dates';
import { ConnectionResult } from '../common/relay';
import { findRows } from './lean-read';
import { readParts } from './union-pages';

/** One column of a list's order: a column of qb's main alias (or a SQL expression), its direction, and whether it holds NULLs. */
export type OrderColumn = [column: string | { expression: string }, direction: 'ASC' | 'DESC', nullable?: boolean];

export interface PageArgs {
  first?: number | null;
  after?: string | null;
}

export interface PageOptions {
  /**
   * The id of the main entity each row stands for, when not the main alias's own id column: e.g. a
   * joined enrollment's user_id, so the page is read from the enrollments index. Must be the last
   * column of the order.
   */
  id?: string | { expression: string };
  /**
   * Several rows of one parent may stand for one entity (a user enrolled twice in a course): the page
   * reads one row per key (GROUP BY the order's columns, which both engines then read in index order
   * and stop after first + 1 groups, where DISTINCT made MariaDB collect every row of the parent into
   * a temporary table first), and the total counts distinct ids.
   */
  distinct?: boolean;
  /**
   * A cheaper way to each parent's total than counting qb's rows, which the caller vouches gives the
   * same numbers; null falls back to counting qb's rows (e.g. a group's members counted without the
   * join to users while no user is deleted).
   */
  count?: (parents: number[]) => Promise<Map<number, number> | null>;
}

/**
 * One Relay page per parent for many parents at once (a GraphQL list of courses asking each for its
 * sections, enrollments, assignments …), in two statements whatever the number of parents, and each
 * page read from an ordered index in the same time whatever the size of its parent.
 *
 * Key set pages: the cursor carries the sort key of the last row shown, and each parent's page is
 * `WHERE parent = ? AND <after the key> ORDER BY <order> LIMIT first + 1` — an index on (parent,
 * order…) serves it by seeking to the key and reading first + 1 entries, where numbering every row
 * of the parent (a window function) or an OFFSET walks and sorts the whole parent set on every page.
 * Several parents are one statement: those reads as one union (readParts, which reads every
 * per-parent page). The page's entities are then read by id in one more statement. The total is a
 * getter: one grouped COUNT for all the parents, run only when a client selects totalCount.
 *
 * `qb` selects the rows of all the parents (its where clause states every rule, per parent where
 * rules differ); `parentColumn` and `order` are database column names of qb's main alias (or SQL
 * expressions, e.g. a joined membership's group_id), and `order` must end in a unique column so a key
 * names one position. An offset cursor (Canvas's numbered pages) is an OFFSET on the page read; a
 * deep one of one parent is read from the nearer end of the list (deepPage).
 */
export async function pagePerParent<T extends ObjectLiteral & { id: number }>(
  qb: SelectQueryBuilder<T>,
  parentColumn: string | { expression: string },
  order: OrderColumn[],
  parentIds: readonly number[],
  args: PageArgs | KeyWindow,
  opts: PageOptions = {},
): Promise<Map<number, ConnectionResult<T>>> {
  const out = new Map<number, ConnectionResult<T>>();
  if (!parentIds.length) return out;
  const w: KeyWindow = 'limit' in args ? args : keyWindow(args, order.length);
  const col = (c: string) => `${qb.escape(qb.alias)}.${qb.escape(c)}`;
  const sort: SortKey[] = order.map(([c, dir, nullable]) => ({ expr: typeof c === 'string' ? col(c) : c.expression, dir, nullable }));
  const parent = typeof parentColumn === 'string' ? col(parentColumn) : parentColumn.expression;
  const idExpr = opts.id == null ? col('id') : typeof opts.id === 'string' ? col(opts.id) : opts.id.expression;
  const ids = [...new Set(parentIds)];

  let totals: Promise<Map<number, number>> | undefined;
  const countRows = () => countPerParent(qb, parent, opts.distinct ? `COUNT(DISTINCT ${idExpr})` : 'COUNT(*)', ids);
  const countAll = () => (totals ??= opts.count ? opts.count(ids).then((n) => n ?? countRows()) : countRows());
  // A deep numbered page of one parent (page=N, rel="last"): counted first (the count its Link needs
  // anyway), then read from the nearer end of the list. Not a list of one row per key (an account's
  // users): its Link has no rel="last", so the COUNT(DISTINCT) would be a statement of its own.
  const end = ids.length === 1 && !opts.distinct ? await deepPage(w, sort, async () => (await countAll()).get(ids[0]) ?? 0) : null;
  const raw = w.limit > 0 && end !== 'empty' ? await readPages(qb, parent, idExpr, sort, ids, w, Boolean(opts.distinct), end) : [];
  // The raw row per parent and id, for its key (one entity can appear under several parents); a key is
  // made only when a cursor is read.
  const rawRows = new Map<number, Map<number, RawRow>>();
  const pageIds = new Map<number, number[]>();
  for (const r of raw) {
    const id = Number(r.pid_id);
    const p = Number(r.pid_parent);
    const ofParent = rawRows.get(p);
    if (ofParent) ofParent.set(id, r);
    else rawRows.set(p, new Map([[id, r]]));
    const list = pageIds.get(p);
    if (list) list.push(id);
    else pageIds.set(p, [id]);
  }
  const keyOf = (p: number, row: T): KeyValue[] => {
    const r = rawRows.get(p)?.get(Number(row.id));
    return r ? sort.map((_, i) => keyValue(r[`pid_k${i}`])) : [];
  };
  const all = [...new Set([...pageIds.values()].flat())];
  const target = qb.expressionMap.mainAlias!.target;
  const where = { id: In(all) };
  const rows: T[] = !all.length ? [] : await findRows<T>(qb.connection, target, where);
  const byId = new Map(rows.map((r) => [Number(r.id), r]));

  for (const p of parentIds) {
    const page = (pageIds.get(p) ?? []).map((id) => byId.get(id)).filter((r): r is T => r != null);
    out.set(p, keysetConnection(page, w, (row) => keyOf(p, row), async () => (await countAll()).get(p) ?? 0));
  }
  return out;
}

type RawRow = Record<string, unknown> & { pid_id: unknown; pid_parent: unknown };

/**
 * Each parent's first + 1 rows after the key, through readParts: one plain read for one parent, one
 * union statement for several. `end`: one parent's page read backwards from the end of its list
 * (deepPage), its rows put back in order.
 */
async function readPages<T extends ObjectLiteral>(
  qb: SelectQueryBuilder<T>,
  parent: string,
  id: string,
  sort: SortKey[],
  parents: number[],
  w: KeyWindow,
  distinct: boolean,
  end: FromTheEnd | null = null,
): Promise<RawRow[]> {
  // Grouped by the key, the parent (one value per page read) is read through MIN for engines that
  // refuse a column outside the GROUP BY; grouping by it too made SQLite sort the groups again.
  const base = qb.clone().select(id, 'pid_id').addSelect(distinct ? `MIN(${parent})` : parent, 'pid_parent');
  sort.forEach((s, i) => base.addSelect(s.expr, `pid_k${i}`));
  base.orderBy();
  if (distinct) base.groupBy(sort.map((s) => s.expr).join(', '));
  if (w.after) {
    const after = afterKey(sort, w.after);
    let n = 0;
    const named: Record<string, KeyValue> = {};
    const sql = after.sql.replace(/\?/g, () => {
      named[`pidKey${n}`] = after.params[n];
      return `:pidKey${n++}`;
    });
    base.andWhere(sql, named);
  }
  const tail = pageTailSql(orderSql(sort), w, end);
  const reads = parents.map((p) => {
    const [sql, params] = base.clone().andWhere(`${parent} = :pidParent`, { pidParent: p }).getQueryAndParameters();
    return { sql: sql + tail, params };
  });
  const pages = await readParts<RawRow>(qb.connection, reads, sort.map((s, i) => `pid_k${i} ${s.dir}`).join(', '));
  return end ? pages.flat().reverse() : pages.flat();
}

/** Every parent's total in one grouped COUNT. */
async function countPerParent<T extends ObjectLiteral>(qb: SelectQueryBuilder<T>, parent: string, count: string, parents: number[]): Promise<Map<number, number>> {
  const [sql, params] = qb
    .clone()
    .select(parent, 'pid_parent')
    .addSelect(count, 'pid_total')
    .andWhere(`${parent} IN (:...pidParents)`, { pidParents: parents })
    .orderBy()
    .groupBy(parent)
    .getQueryAndParameters();
  const rows: { pid_parent: unknown; pid_total: unknown }[] = await qb.connection.query(sql, params);
  return new Map(rows.map((r) => [Number(r.pid_parent), Number(r.pid_total)]));
}

/** A key read back from a row: dates as the text both engines compare their datetime columns with. */
function keyValue(v: unknown): KeyValue {
  if (v == null) return null;
  if (v instanceof Date) return sqlDate(v);
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (Buffer.isBuffer(v)) return v.toString('utf8');
  return v as string | number;
}

/** `fn` for each parent, a thrown error becoming that parent's answer: a bulk list method refuses each parent alone. */
export function settleEach<P, R>(parents: readonly P[], fn: (p: P) => Promise<R>): Promise<(R | Error)[]> {
  return Promise.all(parents.map((p) => fn(p).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))))));
}
