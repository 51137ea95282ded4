import type { Course } from '../courses/course.entity';
import type { Group } from '../groups/group.entity';
import type { PlannerItemView } from './planner-item-view';
import type { PageInfo } from '../common/relay';
import { readDate, sqlDate } from '../common/sql-dates';

export { readDate, sqlDate };

/** Collections in Canvas's merge order: the tie-break after (date, id). */
export const K = { assignment: 0, quiz: 1, note: 2, page: 3, topic: 4, event: 5 } as const;
export type Kind = (typeof K)[keyof typeof K];

export const PLANNER_FILTERS = ['new_activity', 'incomplete_items', 'complete_items', 'ungraded_todo_items', 'all_ungraded_todo_items'] as const;
export const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 100;

/** The key set position of the last item of a page: (plannable date, id, collection). */
export interface Cursor {
  d: Date;
  id: number;
  k: number;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.d.toISOString(), c.id, c.k])).toString('base64url');
}

/** An unreadable cursor is the first page, as Canvas treats a bad bookmark. */
export function decodeCursor(raw: string | null | undefined): Cursor | null {
  if (!raw) return null;
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (!Array.isArray(v) || v.length !== 3) return null;
    const d = new Date(v[0]);
    if (Number.isNaN(d.getTime()) || !Number.isSafeInteger(v[1]) || !Number.isSafeInteger(v[2])) return null;
    return { d, id: v[1], k: v[2] };
  } catch {
    return null;
  }
}

export const ints = (xs: Iterable<number>) => [...xs].filter((x) => Number.isSafeInteger(x)).join(', ');

/** One SELECT of the union: rows (k, id, d) of one collection, with its conditions and parameters. */
export class Branch {
  readonly where: string[] = [];
  readonly params: unknown[] = [];
  constructor(
    readonly k: Kind,
    readonly from: string,
    readonly alias: string,
    readonly dateExpr: string,
  ) {}

  and(cond: string, ...params: unknown[]): this {
    this.where.push(cond);
    this.params.push(...params);
    return this;
  }

  /** Key set condition: only rows after (or, descending, before) the cursor in (d, id, k) order. */
  after(c: Cursor, desc: boolean): this {
    const D = sqlDate(c.d);
    const op = desc ? '<' : '>';
    // Same date and id: this collection comes after the cursor's only when its rank does.
    const idOp = (desc ? this.k < c.k : this.k > c.k) ? `${op}=` : op;
    // The bound on the date alone is what an index range can seek to; the OR only trims its first date.
    return this.and(`${this.dateExpr} ${op}= ? AND (${this.dateExpr} ${op} ? OR (${this.dateExpr} = ? AND ${this.alias}.id ${idOp} ${Math.trunc(c.id)}))`, D, D, D);
  }

  sql(): string {
    return `SELECT ${this.k} AS k, ${this.alias}.id AS id, ${this.dateExpr} AS d FROM ${this.from} ${this.alias} WHERE ${this.where.join(' AND ')}`;
  }

  /**
   * This collection's first `limit` rows in page order (its collection rank is fixed, so date and id
   * order it): the page's read of one branch, which an index on (owner, state, date) serves in order
   * and stops after `limit` rows, however many the window holds.
   */
  page(dir: 'ASC' | 'DESC', limit: number): string {
    return `${this.sql()} ORDER BY ${this.dateExpr} ${dir}, ${this.alias}.id ${dir} LIMIT ${Math.trunc(limit)}`;
  }
}

export interface Plan {
  courses: Map<number, Course>;
  groups: Map<number, Group>;
  subjectId: number | null;
  branches: () => Branch[];
}

/**
 * An edge whose cursor is encoded only when read: REST and most clients ask for pageInfo alone, so
 * encoding every cursor is wasted work.
 */
export class ItemEdge {
  constructor(
    private readonly position: Cursor,
    readonly node: PlannerItemView | null,
  ) {}

  get cursor(): string {
    return encodeCursor(this.position);
  }
}

/**
 * A page of planner items whose total is counted only when a client asks for it: reading the property
 * starts the count. A class, not an object literal with a getter of its own, whose hidden class would
 * keep the page's objects alive through young collections (see LazyConnection in common/connection.ts).
 */
export class PlannerItemsPage {
  constructor(
    readonly nodes: PlannerItemView[],
    readonly edges: (ItemEdge & { node: PlannerItemView })[],
    readonly pageInfo: PageInfo,
    private readonly count: () => Promise<number>,
  ) {}

  get totalCount(): Promise<number> {
    return this.count();
  }
}
