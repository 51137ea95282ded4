import { DataSource, EntityTarget, In, ObjectLiteral } from 'typeorm';
import { afterKey, KeyValue, keysetConnection, KeyWindow, LazyTotal, orderSql, SortKey } from '../common/keyset';
import { ConnectionResult } from '../common/relay';
import { leanFind, leanRows, selectColumns } from './lean-read';

/** One list of one entity's rows, in an order that ends in its id, for keysetPage. */
export interface KeysetSource<T> {
  entity: EntityTarget<T>;
  /** The alias `where` and `order` name the table by. */
  alias: string;
  /** The list's rules (escaped SQL with `?` placeholders) and their parameters. */
  where: string;
  params: unknown[];
  order: readonly SortKey[];
  keyOf: (row: T) => KeyValue[];
  /**
   * The list is the union of several parents' rows (an account and its sub-accounts): each parent's
   * page is read from its own index range and the few rows read are merged, where one `IN` over the
   * parents would read (and sort) every row of every parent. One id: a plain equality.
   */
  parents?: { expr: string; ids: readonly number[] };
}

/** Parents read as one union at most: beyond this, one IN read (SQLite caps a compound SELECT at 500 terms). */
const MAX_ARMS = 200;

/**
 * A key set page of one list: `WHERE <rules> AND <after the cursor's key> ORDER BY <order> LIMIT
 * first + 1` (an index on the rules' equalities then the order serves it by seeking to the key), the
 * rows mapped straight to entities, and the total a COUNT run only when totalCount (or a Link
 * rel="last") is asked for. An `offset:N` cursor of old is honoured with an OFFSET. `present` turns
 * each row into the node the connection shows.
 */
export async function keysetPage<T extends ObjectLiteral & { id: number }>(ds: DataSource, src: KeysetSource<T>, w: KeyWindow): Promise<ConnectionResult<T>>;
export async function keysetPage<T extends ObjectLiteral & { id: number }, U extends object>(ds: DataSource, src: KeysetSource<T>, w: KeyWindow, present: (row: T) => U): Promise<ConnectionResult<U>>;
export async function keysetPage<T extends ObjectLiteral & { id: number }>(ds: DataSource, src: KeysetSource<T>, w: KeyWindow, present?: (row: T) => object): Promise<ConnectionResult<object>> {
  const table = `${ds.driver.escape(ds.getMetadata(src.entity).tableName)} ${src.alias}`;
  const after = w.after ? afterKey(src.order, w.after) : null;
  const ids = src.parents ? [...new Set(src.parents.ids)] : null;
  const parentIn = ids && ids.length > 1 ? `${src.parents!.expr} IN (${ids.map(() => '?').join(', ')})` : null;
  const rules = (parent: string | null) => [src.where, ...(parent ? [parent] : [])].join(' AND ');
  const total: LazyTotal = async () => {
    const parent = ids == null ? null : ids.length === 1 ? `${src.parents!.expr} = ?` : parentIn;
    const rows = await ds.query(`SELECT COUNT(*) AS n FROM ${table} WHERE ${ids?.length === 0 ? '1 = 0' : rules(parent)}`, [...src.params, ...(ids ?? [])]);
    return Number(rows[0].n);
  };
  if (ids?.length === 0) return keysetConnection([] as T[], w, src.keyOf, total);
  // Integers from keyWindow, never client text.
  const limit = Math.trunc(w.limit) + 1;
  const offset = Math.trunc(w.offset);
  const keyed = (parent: string | null) => `WHERE ${rules(parent)}${after ? ` AND ${after.sql}` : ''}`;
  const keyParams = after?.params ?? [];
  let rows: T[];
  if (ids && ids.length > 1 && ids.length <= MAX_ARMS) {
    // Each parent's first offset + limit rows by key, merged: at most parents × (offset + limit) rows sorted.
    const keys = src.order.map((s, i) => `${s.expr} AS k${i}`).join(', ');
    const arm = `SELECT ${src.alias}.id AS id, ${keys} FROM ${table} ${keyed(`${src.parents!.expr} = ?`)} ORDER BY ${orderSql(src.order)} LIMIT ${offset + limit}`;
    const outer = src.order.map((s, i) => `k${i} ${s.dir}`).join(', ');
    const sql = `${ids.map((_, i) => `SELECT * FROM (${arm}) a${i}`).join(' UNION ALL ')} ORDER BY ${outer} LIMIT ${limit}${offset ? ` OFFSET ${offset}` : ''}`;
    const picked: { id: unknown }[] = await ds.query(sql, ids.flatMap((id) => [...src.params, id, ...keyParams]));
    const pageIds = picked.map((r) => Number(r.id));
    const where = { id: In(pageIds) };
    const found = !pageIds.length ? [] : ((await leanFind<T>(ds, src.entity, where)) ?? (await ds.getRepository<T>(src.entity).findBy(where as never)));
    const byId = new Map(found.map((r) => [Number(r.id), r]));
    rows = pageIds.map((id) => byId.get(id)).filter((r): r is T => r != null);
  } else {
    const parent = ids == null ? null : ids.length === 1 ? `${src.parents!.expr} = ?` : parentIn;
    const sql = `SELECT ${selectColumns(ds, src.entity, src.alias)} FROM ${table} ${keyed(parent)} ORDER BY ${orderSql(src.order)} LIMIT ${limit}${offset ? ` OFFSET ${offset}` : ''}`;
    const params = [...src.params, ...(ids ?? []), ...keyParams];
    rows = (await leanRows<T>(ds, src.entity, sql, params)) ?? (await byIds(ds, src.entity, sql, params));
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

/** The page's rows through the repository, for an entity lean reads cannot map: the ids first, in order. */
async function byIds<T extends ObjectLiteral & { id: number }>(ds: DataSource, entity: EntityTarget<T>, sql: string, params: unknown[]): Promise<T[]> {
  const picked: { id: unknown }[] = await ds.query(sql, params);
  const ids = picked.map((r) => Number(r.id));
  const found = ids.length ? await ds.getRepository<T>(entity).findBy({ id: In(ids) } as never) : [];
  const byId = new Map(found.map((r) => [Number(r.id), r]));
  return ids.map((id) => byId.get(id)).filter((r): r is T => r != null);
}
