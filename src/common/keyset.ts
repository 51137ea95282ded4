import { ConnectionResult, cursorForOffset, offsetFromCursor, PageWindow } from './relay';

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

/** A total computed only when a client selects it (totalCount, a Link rel="last"). */
export type LazyTotal = () => Promise<number>;

/**
 * A connection from rows read with LIMIT `limit + 1` after the window's key: the extra row only says
 * there is a next page. Cursors are encoded when read. `total` runs only if totalCount is selected.
 */
export function keysetConnection<T>(rows: T[], w: KeyWindow, keyOf: (row: T) => KeyValue[], total: LazyTotal): ConnectionResult<T> {
  // After a key the page's place in the list is not known.
  return lazyConnection(rows, w.limit, w.after != null ? null : w.offset, (node) => cursorForKey(keyOf(node)), total);
}

/**
 * The total as will_paginate (Canvas's pagination) finds it: a page with no row after it (the LIMIT
 * limit + 1 read found none) ends the list, so where the page's place in the list is known (`offset`:
 * the first page, or a numbered page's; null after a key) the total is that offset plus its rows, with
 * no count. A page with rows after it, a page after a key, an empty page past the first (the list may
 * end before it) and `first: 0` (a count alone) are counted.
 */
function totalOf(rows: number, limit: number, offset: number | null, total: LazyTotal): LazyTotal {
  if (offset == null || limit <= 0 || rows > limit || (rows === 0 && offset > 0)) return total;
  const known = offset + rows;
  return () => Promise.resolve(known);
}

/**
 * A page read with LIMIT `limit + 1` (the extra row only says there is a next page) at `offset` in its
 * list (null: after a key, place unknown), its cursors encoded when read and its total known from the
 * page (totalOf) or counted once, only if totalCount is selected.
 */
function lazyConnection<T>(rows: T[], limit: number, offset: number | null, cursorOf: (node: T, i: number) => string, count: LazyTotal): ConnectionResult<T> {
  const hasNextPage = rows.length > limit;
  const nodes = hasNextPage ? rows.slice(0, limit) : rows;
  return new LazyConnection(nodes, new LazyPageInfo(nodes, hasNextPage, offset == null || offset > 0, cursorOf), cursorOf, totalOf(rows.length, limit, offset, count));
}

/*
 * The lazy parts are getters of classes, not of object literals: V8 keeps a literal's own getters in its
 * hidden class, so each call made a new hidden class, in the old generation, and its getters' closures
 * (the page's rows, the request's loaders) stayed reachable from it through every young collection
 * until a full one. Measured on the REST module items page: ten times the bytes surviving each scavenge
 * (docs/PERFORMANCE.md, tenth round). test/source-rules.test.ts keeps such getters out of src/.
 */

class LazyConnection<T> implements ConnectionResult<T> {
  private edgeList?: ConnectionResult<T>['edges'];
  private counted?: Promise<number>;

  constructor(
    readonly nodes: T[],
    readonly pageInfo: LazyPageInfo<T>,
    private readonly cursorOf: (node: T, i: number) => string,
    private readonly total: LazyTotal,
  ) {}

  // Edges are made when read: REST rows and most clients read only `nodes`, and an edge with its
  // cursor per row was a good share of a page's allocations.
  get edges(): ConnectionResult<T>['edges'] {
    return (this.edgeList ??= this.nodes.map((node, i) => new LazyEdge(node, i, this.cursorOf)));
  }

  // A getter: GraphQL reads it only when the field is selected, and then counts once.
  get totalCount(): number {
    return (this.counted ??= this.total()) as unknown as number;
  }
}

class LazyEdge<T> {
  constructor(
    readonly node: T,
    private readonly index: number,
    private readonly cursorOf: (node: T, i: number) => string,
  ) {}

  get cursor(): string {
    return this.cursorOf(this.node, this.index);
  }
}

class LazyPageInfo<T> {
  constructor(
    private readonly nodes: T[],
    readonly hasNextPage: boolean,
    readonly hasPreviousPage: boolean,
    private readonly cursorOf: (node: T, i: number) => string,
  ) {}

  get startCursor(): string | null {
    return this.cursorAt(0);
  }

  get endCursor(): string | null {
    return this.cursorAt(this.nodes.length - 1);
  }

  private cursorAt(i: number): string | null {
    return i >= 0 && i < this.nodes.length ? this.cursorOf(this.nodes[i], i) : null;
  }
}

/**
 * An offset page read with LIMIT `limit + 1` (lists not yet paged by key): the extra row says there is
 * a next page, and the total is known from a page with no row after it, else counted only when
 * totalCount is selected.
 */
export function offsetConnection<T>(rows: T[], w: PageWindow, total: LazyTotal): ConnectionResult<T> {
  return lazyConnection(rows, w.limit, w.offset, (_node, i) => cursorForOffset(w.offset + i), total);
}

/** A date as both engines compare it with their datetime columns (SQLite stores this exact text). */
export const sqlDate = (d: Date) => d.toISOString().replace('T', ' ').replace('Z', '');

/** A datetime read back from a raw query: a Date (MySQL) or 'YYYY-MM-DD HH:MM:SS.mmm' text (SQLite). */
export const readDate = (v: unknown): Date => {
  if (v instanceof Date) return v;
  if (typeof v === 'string') {
    const t = sqliteUtc(v);
    if (t !== null) return new Date(t);
  }
  return new Date(`${String(v).replace(' ', 'T')}${/[zZ]|[+-]\d\d:?\d\d$/.test(String(v)) ? '' : 'Z'}`);
};

const digit = (s: string, i: number) => s.charCodeAt(i) - 48;
const digits = (s: string, from: number, n: number): number => {
  let v = 0;
  for (let i = from; i < from + n; i++) {
    const d = digit(s, i);
    if (d < 0 || d > 9) return NaN;
    v = v * 10 + d;
  }
  return v;
};

/**
 * SQLite's own text 'YYYY-MM-DD HH:MM:SS' or 'YYYY-MM-DD HH:MM:SS.mmm' (UTC) as epoch milliseconds, read
 * digit by digit (a page of planner items reads one per row); null for any other text, which Date's
 * parser reads as before. Fields in range only, where Date.UTC and the parser agree.
 */
function sqliteUtc(v: string): number | null {
  if ((v.length !== 19 && v.length !== 23) || v.charCodeAt(4) !== 45 || v.charCodeAt(7) !== 45 || v.charCodeAt(10) !== 32 || v.charCodeAt(13) !== 58 || v.charCodeAt(16) !== 58) return null;
  if (v.length === 23 && v.charCodeAt(19) !== 46) return null;
  const y = digits(v, 0, 4);
  const mo = digits(v, 5, 2);
  const d = digits(v, 8, 2);
  const h = digits(v, 11, 2);
  const mi = digits(v, 14, 2);
  const s = digits(v, 17, 2);
  const ms = v.length === 23 ? digits(v, 20, 3) : 0;
  // Date.UTC reads years 0-99 as 1900-1999: those (and anything out of range) go to the parser.
  if (!(y >= 100 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h <= 23 && mi <= 59 && s <= 59 && ms >= 0)) return null;
  return Date.UTC(y, mo - 1, d, h, mi, s, ms);
}

/** A date column's value as a key: its comparable text, or null. */
export const dateKey = (d: Date | null | undefined): string | null => (d ? sqlDate(d) : null);
