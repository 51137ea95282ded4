import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import { afterKey, KeyWindow, LazyTotal, orderSql, SortKey } from '../common/keyset';
import { leanRows, selectColumns } from '../db/lean-read';

/** A piece of SQL and its parameters, in order. */
export interface SqlPart {
  sql: string;
  params: unknown[];
}

/**
 * A calendar list: rows of `table` (`name alias`) matching any branch and the filter, in `order`.
 * Each branch is one index range (one context code, one course and state), so the list's order is
 * the index order within a branch; the branches are disjoint.
 */
export interface CalendarPageSpec<T> {
  entity: EntityTarget<T>;
  alias: string;
  table: string;
  order: readonly SortKey[];
  branches: SqlPart[];
  /** The date window, the same for every branch. */
  filter: SqlPart;
  /**
   * A condition the key implies within the filter, for the page reads only (never the count): an
   * undated list's key (NULL, id) then seeks to the id, where the general "after the key" condition
   * would walk every undated row before it.
   */
  seek?: SqlPart | null;
  /**
   * ORDER BY text when the filter makes the order's leading columns constant: an undated list orders
   * by id alone (the same order), which MariaDB reads in index order where ORDER BY start_at, id after
   * `start_at IS NULL` makes it sort.
   */
  orderBy?: string;
  /** The order in JavaScript, to merge the branches' pages. */
  compare: (a: T, b: T) => number;
}

/**
 * More branches than this (a hundred context codes, each with several sections) read as one sorted
 * statement: correct, just not flat. SQLite refuses compounds of more than 500 members.
 */
const MAX_BRANCHES = 60;

const isMysql = (ds: DataSource) => ds.options.type === 'mysql' || ds.options.type === 'mariadb';

/**
 * One key set page of a calendar list: first + 1 rows after the window's key. One branch is one
 * ordered, LIMITed read from its index. Several (a calendar of a user, a course and a group) are a
 * UNION ALL of such reads, each stopping after first + 1 rows, merged here: the page costs the same
 * whatever the size of the calendars behind it, where one statement over all of them would sort
 * every matching row on every page. An old offset cursor reads offset + first + 1 rows of each
 * branch (those links keep working; new cursors are keys). The total is a COUNT run only when asked.
 */
export async function calendarPage<T extends ObjectLiteral>(ds: DataSource, spec: CalendarPageSpec<T>, w: KeyWindow): Promise<{ rows: T[]; total: LazyTotal }> {
  const { alias, table, filter, branches } = spec;
  const total: LazyTotal = async () => {
    if (!branches.length) return 0;
    const any = branches.map((b) => `(${b.sql})`).join(' OR ');
    const rows: { n: number | string }[] = await ds.query(`SELECT COUNT(*) AS n FROM ${table} WHERE (${any}) AND ${filter.sql}`, [...branches.flatMap((b) => b.params), ...filter.params]);
    return Number(rows[0]?.n ?? 0);
  };
  if (!branches.length) return { rows: [], total };
  const after = w.after ? afterKey(spec.order, w.after) : null;
  const seek = after ? spec.seek : null;
  const tail = `${filter.sql}${after ? ` AND ${after.sql}` : ''}${seek ? ` AND ${seek.sql}` : ''}`;
  const tailParams = [...filter.params, ...(after?.params ?? []), ...(seek?.params ?? [])];
  const columns = selectColumns(ds, spec.entity, alias);
  const order = spec.orderBy ?? orderSql(spec.order);
  // Limit and offset are integers from keyWindow, never client text.
  const limit = Math.trunc(w.limit) + 1;
  const offset = Math.trunc(w.offset);
  let rows: T[];
  if (branches.length === 1 || branches.length > MAX_BRANCHES) {
    const where = branches.length === 1 ? branches[0].sql : `(${branches.map((b) => `(${b.sql})`).join(' OR ')})`;
    const sql = `SELECT ${columns} FROM ${table} WHERE ${where} AND ${tail} ORDER BY ${order} LIMIT ${limit}${offset ? ` OFFSET ${offset}` : ''}`;
    rows = (await leanRows(ds, spec.entity, sql, [...branches.flatMap((b) => b.params), ...tailParams]))!;
  } else {
    // MariaDB takes each LIMITed member in parentheses; SQLite allows ORDER BY and LIMIT in a member
    // only inside a subquery.
    const member = (b: SqlPart, i: number) => {
      const sql = `SELECT ${columns} FROM ${table} WHERE ${b.sql} AND ${tail} ORDER BY ${order} LIMIT ${offset + limit}`;
      return isMysql(ds) ? `(${sql})` : `SELECT * FROM (${sql}) b${i}`;
    };
    const sql = branches.map(member).join(' UNION ALL ');
    const read = (await leanRows(ds, spec.entity, sql, branches.flatMap((b) => [...b.params, ...tailParams])))!;
    rows = read.sort(spec.compare).slice(offset, offset + limit);
  }
  return { rows, total };
}

/** Ascending dates with NULL first (as both engines sort them), then ids. */
export function byDateThenId<T extends { id: number }>(date: (row: T) => Date | null) {
  return (a: T, b: T): number => {
    const x = date(a);
    const y = date(b);
    if (x == null || y == null) return x == null && y == null ? a.id - b.id : x == null ? -1 : 1;
    return x.getTime() - y.getTime() || a.id - b.id;
  };
}
