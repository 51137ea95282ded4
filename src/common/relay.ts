import { ClassType, Field, InputType, Int, ArgsType, ObjectType } from 'type-graphql';
import { Max, Min } from 'class-validator';
import { PageList } from './list-bounds';

/** Canvas's global ids: base64 of "<Type>-<id>". */
export function toGlobalId(type: string, id: number | string): string {
  return Buffer.from(`${type}-${id}`).toString('base64');
}

export function fromGlobalId(globalId: string): { type: string; id: string } | null {
  const decoded = Buffer.from(globalId, 'base64').toString('utf8');
  const m = /^([A-Za-z]+)-(\d{1,19})$/.exec(decoded);
  return m ? { type: m[1], id: m[2] } : null;
}

/**
 * Accepts either a numeric (legacy) id or a global id of the expected type, as Canvas's GraphQL
 * lookups such as `course(id:)` do. Returns null when it is neither.
 */
export function parseAnyId(value: string | number, expectedType: string): number | null {
  const s = String(value).trim();
  if (/^\d{1,15}$/.test(s)) return Number(s);
  const g = fromGlobalId(s);
  return g && g.type === expectedType ? Number(g.id) : null;
}

/** An id argument as services take it: a global id of the type becomes its numeric id, anything else passes as given. */
export function idArg(raw: string | number, expectedType: string): string {
  return String(parseAnyId(raw, expectedType) ?? raw);
}

const CURSOR_PREFIX = 'offset:';
export const cursorForOffset = (offset: number) => Buffer.from(`${CURSOR_PREFIX}${offset}`).toString('base64');
export function offsetFromCursor(cursor: string | null | undefined): number | null {
  if (!cursor) return null;
  const s = Buffer.from(cursor, 'base64').toString('utf8');
  if (!s.startsWith(CURSOR_PREFIX)) return null;
  const n = Number(s.slice(CURSOR_PREFIX.length));
  return Number.isInteger(n) && n >= 0 ? n : null;
}

@ObjectType()
export class PageInfo {
  @Field()
  hasNextPage: boolean;
  @Field()
  hasPreviousPage: boolean;
  @Field(() => String, { nullable: true })
  startCursor: string | null;
  @Field(() => String, { nullable: true })
  endCursor: string | null;
}

@ArgsType()
export class ConnectionArgs {
  @Field(() => Int, { nullable: true, description: 'Page size (1..100, default 10).' })
  @Min(0)
  @Max(100)
  first?: number;

  @Field(() => String, { nullable: true, description: 'Cursor after which the page starts.' })
  after?: string;
}

export interface ConnectionResult<T> {
  nodes: T[];
  edges: { cursor: string; node: T }[];
  pageInfo: PageInfo;
  totalCount: number;
}

/** Builds a Relay connection type named `<Name>Connection` with its edge type. */
export function Connection<T extends object>(name: string, node: ClassType<T> | (() => unknown)) {
  @ObjectType(`${name}Edge`)
  class Edge {
    @Field()
    cursor: string;
    @Field(() => node as ClassType)
    node: T;
  }

  @ObjectType(`${name}Connection`)
  class ConnectionType {
    @Field(() => [node as ClassType])
    @PageList()
    nodes: T[];
    @Field(() => [Edge])
    @PageList()
    edges: Edge[];
    @Field(() => PageInfo)
    pageInfo: PageInfo;
    // Not a plain property read: key set connections count only when this field is selected, so the
    // value may be a promise, which the executor awaits only for fields with a resolver.
    @Field(() => Int, { description: 'Total number of items across all pages.', simple: false })
    totalCount: number;
  }
  return ConnectionType;
}

export interface PageWindow {
  offset: number;
  limit: number;
}

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

export function pageWindow(args: { first?: number | null; after?: string | null }, dflt = DEFAULT_PAGE_SIZE, max = MAX_PAGE_SIZE): PageWindow {
  const after = offsetFromCursor(args.after ?? null);
  const limit = Math.min(Math.max(args.first ?? dflt, 0), max);
  return { offset: after == null ? 0 : after + 1, limit };
}

export function toConnection<T>(rows: T[], total: number, window: PageWindow): ConnectionResult<T> {
  const edges = rows.map((node, i) => ({ cursor: cursorForOffset(window.offset + i), node }));
  return {
    nodes: rows,
    edges,
    totalCount: total,
    pageInfo: {
      hasNextPage: window.offset + rows.length < total,
      hasPreviousPage: window.offset > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
  };
}

@InputType()
export class IdInput {
  @Field(() => String)
  id: string;
}
