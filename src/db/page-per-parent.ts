import { In, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { ConnectionResult, PageWindow, toConnection } from '../common/relay';
import { leanFind } from './lean-read';

/**
 * One Relay page per parent for many parents at once, in two statements whatever the number of
 * parents (a GraphQL list of courses asking each for its sections, enrollments, assignments …).
 *
 * Why a window function rather than loading every row of the parents and slicing: a course's roster
 * can run to thousands of enrollments and a page is usually 10, so memory stays at one page per
 * parent. ROW_NUMBER() numbers each parent's rows in the list's order and COUNT(*) OVER gives each
 * parent's total in the same pass (SQLite >= 3.25, MariaDB >= 10.2, MySQL >= 8). The outer filter
 * keeps the page's rows plus each parent's first row, which carries the total even when the page
 * lies past the end; that row is dropped again unless it is on the page. The page's entities are
 * then read by id in one more statement.
 *
 * `qb` selects the rows of all the parents (its where clause states every rule, per parent where
 * rules differ); `parentColumn` and `order` are database column names of qb's main alias (or SQL
 * expressions, e.g. a joined membership's group_id), and `order` must end in a unique column so
 * pages are stable.
 */
export async function pagePerParent<T extends ObjectLiteral & { id: number }>(
  qb: SelectQueryBuilder<T>,
  parentColumn: string | { expression: string },
  order: [column: string | { expression: string }, direction: 'ASC' | 'DESC'][],
  parentIds: readonly number[],
  w: PageWindow,
): Promise<Map<number, ConnectionResult<T>>> {
  const out = new Map<number, ConnectionResult<T>>();
  if (!parentIds.length) return out;
  const col = (c: string) => `${qb.escape(qb.alias)}.${qb.escape(c)}`;
  const by = order.map(([c, d]) => `${typeof c === 'string' ? col(c) : c.expression} ${d}`).join(', ');
  const parent = typeof parentColumn === 'string' ? col(parentColumn) : parentColumn.expression;
  const inner = qb
    .clone()
    .select(col('id'), 'pid_id')
    .addSelect(parent, 'pid_parent')
    .addSelect(`ROW_NUMBER() OVER (PARTITION BY ${parent} ORDER BY ${by})`, 'pid_rn')
    .addSelect(`COUNT(*) OVER (PARTITION BY ${parent})`, 'pid_total')
    .andWhere(`${parent} IN (:...pagePerParentIds)`, { pagePerParentIds: [...parentIds] });
  const [sql, params] = inner.getQueryAndParameters();
  const raw: { pid_id: unknown; pid_parent: unknown; pid_rn: unknown; pid_total: unknown }[] = await qb.connection.query(
    `SELECT w.pid_id, w.pid_parent, w.pid_rn, w.pid_total FROM (${sql}) w WHERE (w.pid_rn > ? AND w.pid_rn <= ?) OR w.pid_rn = 1 ORDER BY w.pid_parent, w.pid_rn`,
    [...params, w.offset, w.offset + w.limit],
  );
  const totals = new Map<number, number>();
  const pageIds = new Map<number, number[]>();
  for (const r of raw) {
    const p = Number(r.pid_parent);
    totals.set(p, Number(r.pid_total));
    const rn = Number(r.pid_rn);
    if (rn > w.offset && rn <= w.offset + w.limit) pageIds.set(p, [...(pageIds.get(p) ?? []), Number(r.pid_id)]);
  }
  const ids = [...pageIds.values()].flat();
  const target = qb.expressionMap.mainAlias!.target;
  const where = { id: In(ids) };
  const rows: T[] = !ids.length ? [] : ((await leanFind<T>(qb.connection, target, where)) ?? (await qb.connection.getRepository<T>(target).findBy(where as never)));
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  for (const p of parentIds) {
    const page = (pageIds.get(p) ?? []).map((id) => byId.get(id)).filter((r): r is T => r != null);
    out.set(p, toConnection(page, totals.get(p) ?? 0, w));
  }
  return out;
}

/** `fn` for each parent, a thrown error becoming that parent's answer: a bulk list method refuses each parent alone. */
export function settleEach<P, R>(parents: readonly P[], fn: (p: P) => Promise<R>): Promise<(R | Error)[]> {
  return Promise.all(parents.map((p) => fn(p).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))))));
}
