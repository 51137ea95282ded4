import { DataSource, EntityTarget, In, ObjectLiteral } from 'typeorm';
import { keysetConnection, LazyTotal } from '../common/connection';
import { afterKey, deepPage, KeyValue, KeyWindow, orderSql, pageLimitSql, pageTailSql, SortKey } from '../common/keyset';
import { ConnectionResult } from '../common/relay';
import { findRows, leanRows, selectColumns } from './lean-read';
import { qmarks, SqlPart, unionOfReads } from './union-pages';

/** One list of one entity's rows, in an order that ends in its id, for keysetPage. */
export interface KeysetSource<T> {
  entity: EntityTarget<T>;
  /** The alias `where` and `order` name the table by. */
  alias: string;
  /** The list's rules (escaped SQL with `?` placeholders) and their parameters; with ranges, the rules every range shares. */
  where: string;
  params: unknown[];
  order: readonly SortKey[];
  keyOf: (row: T) => KeyValue[];
  /**
   * The list is the union of several parents' rows (an account and its sub-accounts): each parent is
   * one range (`expr = ?`) and the total and the many-parents read one `IN`. One id: a plain equality.
   */
  parents?: { expr: string; ids: readonly number[] };
  /**
   * The list is the union of these disjoint conditions, each one index range (a calendar's context
   * codes, a course's assignments by state); none: the list is empty. With `parents`, not both.
   */
  ranges?: SqlPart[];
  /**
   * A condition the cursor's key implies within the rules, for the page reads only (never the count):
   * an undated calendar's key (NULL, id) then seeks to the id, where afterKey's general condition
   * would walk every undated row before it.
   */
  seek?: SqlPart | null;
  /**
   * ORDER BY text of the page reads when the rules make the order's leading columns constant (an
   * undated calendar orders by id alone: the same order, which MariaDB reads in index order where
   * ORDER BY start_at, id after `start_at IS NULL` made it sort). Merging still compares the full key.
   */
  orderBy?: string;
}

/**
 * Ranges read as one union at most: beyond this (a calendar of a hundred context codes, an account of
 * five hundred sub-accounts) one read of all the ranges, correct but sorting them all; SQLite caps a
 * compound SELECT at 500 terms.
 */
const MAX_RANGES = 200;

/**
 * A key set page of one list: `WHERE <rules> AND <after the cursor's key> ORDER BY <order> LIMIT
 * first + 1` (an index on the rules' equalities then the order serves it by seeking to the key), the
 * rows mapped straight to entities, and the total a COUNT run only when totalCount (or a Link
 * rel="last") is asked for. An `offset:N` cursor (Canvas's numbered pages) is an OFFSET, a deep one
 * read from the nearer end of the list once counted (deepPage). `present` turns each row into the
 * node the connection shows.
 *
 * A list of several ranges (`parents`, `ranges`) is read range by range and merged in SQL: each
 * range's first offset + limit + 1 (id, key) pairs from its own index, in one UNION ALL of derived
 * tables, ordered by key and cut to the page, so the only sort is of those few pairs (at most ranges
 * × (offset + first + 1)) where one read of all the ranges would sort every row of every range on
 * every page; the page's rows are then read by id. Merging in SQL compares keys as the cursor's
 * condition does (the engine's collation), which a merge in JavaScript could not promise.
 */
export async function keysetPage<T extends ObjectLiteral & { id: number }>(ds: DataSource, src: KeysetSource<T>, w: KeyWindow): Promise<ConnectionResult<T>>;
export async function keysetPage<T extends ObjectLiteral & { id: number }, U extends object>(ds: DataSource, src: KeysetSource<T>, w: KeyWindow, present: (row: T) => U): Promise<ConnectionResult<U>>;
export async function keysetPage<T extends ObjectLiteral & { id: number }>(ds: DataSource, src: KeysetSource<T>, w: KeyWindow, present?: (row: T) => object): Promise<ConnectionResult<object>> {
  const table = `${ds.driver.escape(ds.getMetadata(src.entity).tableName)} ${src.alias}`;
  const ranges = rangesOf(src);
  const rules = (...parts: (SqlPart | null | undefined)[]) => and({ sql: src.where, params: src.params }, ...parts);
  let counted: Promise<number> | undefined;
  const total: LazyTotal = () =>
    (counted ??= (async () => {
      if (ranges?.each.length === 0) return 0;
      const where = rules(ranges?.any);
      const rows = await ds.query(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where.sql}`, where.params);
      return Number(rows[0].n);
    })());
  if (ranges?.each.length === 0) return keysetConnection([] as T[], w, src.keyOf, total);
  const after = w.after ? afterKey(src.order, w.after) : null;
  const keyed = (range: SqlPart | undefined) => rules(range, after, after ? src.seek : null);
  const orderBy = src.orderBy ?? orderSql(src.order);
  const idsOf = async (sql: string, params: unknown[]) => ((await ds.query(sql, params)) as { id: unknown }[]).map((r) => Number(r.id));
  let rows: T[];
  if (ranges && ranges.each.length > 1 && ranges.each.length <= MAX_RANGES) {
    const keys = src.order.map((s, i) => `${s.expr} AS k${i}`).join(', ');
    // Each range's rows up to the page's end (an old offset included), merged and cut to the page.
    const depth = pageLimitSql({ limit: w.offset + w.limit, offset: 0 });
    const union = unionOfReads(
      ranges.each.map((range) => {
        const where = keyed(range);
        return { sql: `SELECT ${src.alias}.id AS id, ${keys} FROM ${table} WHERE ${where.sql} ORDER BY ${orderBy}${depth}`, params: where.params };
      }),
    );
    const merge = src.order.map((s, i) => `k${i} ${s.dir}`).join(', ');
    rows = await inOrder(ds, src.entity, await idsOf(`${union.sql} ORDER BY ${merge}${pageLimitSql(w)}`, union.params));
  } else {
    const where = keyed(ranges?.any);
    // A deep numbered page (page=N, rel="last"): counted first (the count its Link needs anyway), then
    // read from the nearer end of the list, its rows put back in order.
    const end = src.orderBy ? null : await deepPage(w, src.order, total);
    if (end === 'empty') rows = [];
    else {
      const tail = pageTailSql(orderBy, w, end);
      const sql = `SELECT ${selectColumns(ds, src.entity, src.alias)} FROM ${table} WHERE ${where.sql}${tail}`;
      // An entity lean reads cannot map: the page's ids, then its rows through the repository.
      rows = (await leanRows<T>(ds, src.entity, sql, where.params)) ?? (await inOrder(ds, src.entity, await idsOf(sql, where.params)));
      if (end) rows.reverse();
    }
  }
  if (!present) return keysetConnection(rows, w, src.keyOf, total);
  // Nodes as the caller shows them; cursors still carry the rows' keys.
  const rowOf = new Map<object, T>();
  const nodes = rows.map((r) => {
    const node = present(r);
    rowOf.set(node, r);
    return node;
  });
  return keysetConnection(nodes, w, (node) => src.keyOf(rowOf.get(node)!), total);
}

/** The list's ranges, each alone and all as one condition; null when the list is one range (`where`). */
function rangesOf(src: Pick<KeysetSource<unknown>, 'parents' | 'ranges'>): { each: SqlPart[]; any: SqlPart } | null {
  if (src.parents && src.ranges) throw new Error('keysetPage: parents or ranges, not both');
  if (src.parents) {
    const ids = [...new Set(src.parents.ids)];
    const each = ids.map((id) => ({ sql: `${src.parents!.expr} = ?`, params: [id] }));
    return { each, any: each.length === 1 ? each[0] : { sql: `${src.parents.expr} IN (${qmarks(ids.length)})`, params: ids } };
  }
  if (!src.ranges) return null;
  const each = src.ranges;
  return { each, any: each.length === 1 ? each[0] : { sql: `(${each.map((r) => `(${r.sql})`).join(' OR ')})`, params: each.flatMap((r) => r.params) } };
}

/** Conditions joined by AND, their parameters in the same order. */
function and(...parts: (SqlPart | null | undefined)[]): SqlPart {
  const given = parts.filter((p): p is SqlPart => p != null);
  return { sql: given.map((p) => p.sql).join(' AND '), params: given.flatMap((p) => p.params) };
}

/** The rows of these ids in this order: lean where the entity allows, else through the repository. */
async function inOrder<T extends ObjectLiteral & { id: number }>(ds: DataSource, entity: EntityTarget<T>, ids: number[]): Promise<T[]> {
  if (!ids.length) return [];
  const where = { id: In(ids) };
  const found = await findRows<T>(ds, entity, where);
  const byId = new Map(found.map((r) => [Number(r.id), r]));
  return ids.map((id) => byId.get(id)).filter((r): r is T => r != null);
}
