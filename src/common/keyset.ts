import { offsetFromCursor } from './relay';

/**
 * Key set (bookmark) paging. A cursor carries the sort key of the last row shown; the next page is
 * the rows after that key in the list's order, read from an ordered index with LIMIT. A page then
 * costs the same on page 1 and page 400, in a list of 20 rows or of 20,000, where an offset makes the
 * database walk (and sort) every earlier row first.
 *
 * Every list's order must end in a unique column (the id) so the key names one position. Keys hold
 * numbers, strings and null; dates travel as the text both engines compare their datetime columns
 * with (`sqlDate`), so a key read from a row can be bound straight back as a parameter.
 */
export type KeyValue = string | number | null;
export type SortDir = 'ASC' | 'DESC';

/** One column of a list's order: a SQL expression (already escaped) and its direction. */
export interface SortKey {
  expr: string;
  dir: SortDir;
  /** The column can hold NULL (both engines sort NULL first ascending, last descending). */
  nullable?: boolean;
}

const PREFIX = 'key:';

export function cursorForKey(key: readonly KeyValue[]): string {
  return Buffer.from(PREFIX + JSON.stringify(key)).toString('base64url');
}

/** The key a cursor carries, or null when it is not a key set cursor of this arity (then: first page). */
export function keyFromCursor(cursor: string | null | undefined, arity: number): KeyValue[] | null {
  if (!cursor || cursor.length > 1024) return null;
  let text: string;
  try {
    text = Buffer.from(cursor, 'base64url').toString('utf8');
  } catch {
    return null;
  }
  if (!text.startsWith(PREFIX)) return null;
  try {
    const v: unknown = JSON.parse(text.slice(PREFIX.length));
    if (!Array.isArray(v) || v.length !== arity) return null;
    const ok = v.every((x) => x === null || (typeof x === 'string' && x.length <= 512) || (typeof x === 'number' && Number.isFinite(x)));
    return ok ? (v as KeyValue[]) : null;
  } catch {
    return null;
  }
}

export interface KeyWindow {
  /** The key of the last row of the previous page; null on the first page. */
  after: KeyValue[] | null;
  limit: number;
  /**
   * A cursor from before key set paging (`offset:N`, still in clients' saved links): honoured with an
   * OFFSET so the link keeps working; new cursors are always keys.
   */
  offset: number;
}

export function keyWindow(args: { first?: number | null; after?: string | null }, arity: number, dflt = 10, max = 100): KeyWindow {
  const limit = Math.min(Math.max(args.first ?? dflt, 0), max);
  const after = keyFromCursor(args.after, arity);
  const legacy = after ? null : offsetFromCursor(args.after ?? null);
  return { after, limit, offset: legacy == null ? 0 : legacy + 1 };
}

/**
 * The SQL condition "after `key` in the order `sort`", as a disjunction of prefixes:
 * (a > ?) OR (a = ? AND b > ?) OR (a = ? AND b = ? AND id > ?), with NULL placed where the engines
 * sort it. Parameters are returned in order.
 */
export function afterKey(sort: readonly SortKey[], key: readonly KeyValue[]): { sql: string; params: KeyValue[] } {
  if (key.length !== sort.length) throw new Error('afterKey: key and order differ in length');
  const ors: string[] = [];
  const params: KeyValue[] = [];
  for (let i = 0; i < sort.length; i++) {
    const parts: string[] = [];
    const ps: KeyValue[] = [];
    for (let j = 0; j < i; j++) {
      if (key[j] === null) parts.push(`${sort[j].expr} IS NULL`);
      else {
        parts.push(`${sort[j].expr} = ?`);
        ps.push(key[j]);
      }
    }
    const { expr, dir } = sort[i];
    const v = key[i];
    // A key that holds NULL proves the column nullable, whatever the caller declared.
    const nullable = sort[i].nullable || v === null;
    let beyond: string | null;
    if (dir === 'ASC') {
      // NULL sorts first: after a NULL come the non-null values; after a value, only greater ones.
      beyond = v === null ? (nullable ? `${expr} IS NOT NULL` : null) : `${expr} > ?`;
    } else {
      // NULL sorts last: nothing comes after a NULL; after a value, smaller ones and then the NULLs.
      beyond = v === null ? null : nullable ? `(${expr} < ? OR ${expr} IS NULL)` : `${expr} < ?`;
    }
    if (beyond == null) continue;
    if (v !== null) ps.push(v);
    parts.push(beyond);
    ors.push(parts.length > 1 ? `(${parts.join(' AND ')})` : parts[0]);
    params.push(...ps);
  }
  if (!ors.length) return { sql: '1 = 0', params };
  // The disjunction alone gives the engines no range to seek to: SQLite and MariaDB would walk the
  // index from the parent's first row and filter, so page 400 would cost 400 pages. A redundant
  // bound on the first column (implied by every branch) lets both seek straight to the key.
  const first = sort[0];
  const v0 = key[0];
  let seek: string | null = null;
  if (v0 !== null && first.dir === 'ASC') seek = `${first.expr} >= ?`;
  else if (v0 !== null && first.dir === 'DESC' && !first.nullable) seek = `${first.expr} <= ?`;
  const or = `(${ors.join(' OR ')})`;
  return seek ? { sql: `(${seek} AND ${or})`, params: [v0, ...params] } : { sql: or, params };
}

/**
 * ` LIMIT first + 1` (the extra row only says there is a next page) and, for an old `offset:N` cursor,
 * ` OFFSET n`: the tail of every page statement. Integers from keyWindow, never client text.
 */
export const pageLimitSql = (w: { limit: number; offset: number }): string => ` LIMIT ${Math.trunc(w.limit) + 1}${w.offset ? ` OFFSET ${Math.trunc(w.offset)}` : ''}`;

/**
 * A numbered page at least this deep (an `offset:N` cursor: Canvas's page=N, its rel="last" above
 * all) is read from whichever end of the list is nearer, once the list is counted: without it the
 * last page of 4,000 members walks 3,950 index entries before its 50. Shallower pages skip few rows,
 * and a count they do not need would cost more than it saves.
 */
const DEEP_OFFSET = 200;

/**
 * How to read a numbered page from the end of a list of `total` rows: LIMIT and OFFSET in the
 * reversed order (reverseOrder) covering the same rows as the window's `LIMIT limit + 1 OFFSET
 * offset` forwards, the rows to be put back in order by the caller; `empty` when the page lies past
 * the end (nothing to read); null when reading forwards skips fewer rows.
 */
export function fromTheEnd(w: { limit: number; offset: number }, total: number): { limit: number; offset: number } | 'empty' | null {
  const rest = total - w.offset; // rows from the page's first on
  if (rest <= 0) return 'empty';
  if (rest >= w.offset) return null;
  const n = Math.min(Math.trunc(w.limit) + 1, rest);
  return { limit: n, offset: rest - n };
}

/**
 * The order read backwards. Both engines sort NULL first ascending and last descending, so the
 * reversed order is exactly the forward order read from its end.
 */
export const reverseOrder = (sort: readonly SortKey[]): SortKey[] => sort.map((s) => ({ ...s, dir: s.dir === 'ASC' ? 'DESC' : 'ASC' }));

/** A deep numbered page read from the end of its list: the reversed order, and LIMIT and OFFSET in it. */
export interface FromTheEnd {
  order: SortKey[];
  limit: number;
  offset: number;
}

/**
 * How to read the window's page of a list in `order`: for a numbered page DEEP_OFFSET rows deep or
 * more, the list is counted (`count`: the list's own total, which its Link's rel="last" then reads
 * again at no cost) and the page read from the nearer end (FromTheEnd), or not at all past the end
 * (`empty`); null (forwards, as pageLimitSql says) otherwise, without counting.
 */
export async function deepPage(w: KeyWindow, order: readonly SortKey[], count: () => Promise<number>): Promise<FromTheEnd | 'empty' | null> {
  if (w.after || w.limit <= 0 || w.offset < DEEP_OFFSET) return null;
  const end = fromTheEnd(w, await count());
  return end && end !== 'empty' ? { ...end, order: reverseOrder(order) } : end;
}

/** ` ORDER BY … LIMIT … OFFSET …` of a page read from the end (its rows come back last first). */
export const fromTheEndSql = (end: FromTheEnd): string => ` ORDER BY ${orderSql(end.order)} LIMIT ${Math.trunc(end.limit)} OFFSET ${Math.trunc(end.offset)}`;

/**
 * The ` ORDER BY … LIMIT …[ OFFSET …]` that ends a page's read: forwards in `orderBy` (its SQL text) for
 * the window, or from the end of the list when deepPage said so (the rows then come back last first).
 */
export const pageTailSql = (orderBy: string, w: { limit: number; offset: number }, end: FromTheEnd | null): string =>
  end ? fromTheEndSql(end) : ` ORDER BY ${orderBy}${pageLimitSql(w)}`;

/** `ORDER BY` text for the order. */
export const orderSql = (sort: readonly SortKey[]) => sort.map((s) => `${s.expr} ${s.dir}`).join(', ');
