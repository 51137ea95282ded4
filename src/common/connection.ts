import { cursorForKey, KeyValue, KeyWindow } from './keyset';
import { ConnectionResult, cursorForOffset, PageWindow } from './relay';

/*
 * Relay connections over a page read with LIMIT limit + 1, for key set pages (keyset.ts) and offset
 * pages alike: cursors, edges and the total are computed only when a client reads them.
 */

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
