import type { IncomingHttpHeaders } from 'node:http';
import type { RequestContext } from '../../request/context';
import type { PageRequest } from './pagination';
import type { ParamTree } from './params';
import type { RouteParams } from './input';
import type { JsonSchema } from './response';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** What a route's variable builder and presenter see of the request. */
export interface RestInput<P = Record<string, any>> {
  /** The declared params' typed values (src/api/rest/input.ts), parsed once by the router; absent keys are absent. */
  values: P;
  params: ParamTree;
  ctx: RequestContext;
  page: PageRequest | null;
  /** Raw request headers, for the few routes that take input from one (e.g. StartKey). */
  headers: IncomingHttpHeaders;
}

/**
 * One row of the compatibility table: a Canvas path, the GraphQL operation of our own schema it
 * runs, how params become variables, and how the result becomes Canvas JSON.
 */
export interface RestRoute<P = Record<string, any>> {
  method: HttpMethod;
  path: string;
  /** GraphQL document; fragments it spreads are appended from the fragment registry. */
  operation: string;
  /**
   * The params the route reads (query, body and path keys), declared with src/api/rest/input.ts. The router
   * answers 400 naming the field before variables are built when the request does not fit.
   */
  accepts: RouteParams<P>;
  variables?: (input: RestInput<P>) => Record<string, unknown>;
  /** Dotted path from the operation's data to the result, e.g. `account.usersConnection`. */
  root: string;
  /** For mutation payloads: the key inside the payload holding the object. */
  payloadKey?: string;
  /** The root field is a connection: Canvas pagination with a Link header. */
  list?:
    | boolean
    | {
        defaultPerPage?: number;
        maxPerPage?: number;
        /** Link headers carry bookmarks (the key of the page's last row): every page costs the same. */
        bookmark?: boolean;
        /** With bookmark: a page number (page=N, which clients of Canvas's numbered pages build) still reads that page. */
        numbered?: boolean;
        envelope?: string;
      };
  /** Canvas body for payload validation errors, when the endpoint nests them differently. */
  validationBody?: (fields: import('../../common/errors').FieldError[]) => unknown;
  /** Shapes one object (or each list node) as Canvas JSON. */
  present?: (value: any, input: RestInput<P>) => unknown;
  /**
   * The Canvas JSON the route answers (for a list: each item), built with src/api/rest/response.ts and
   * usually a named schema shared with the other rows answering the same kind. Required unless the
   * route answers 204 or only redirects.
   */
  response?: JsonSchema;
  status?: number;
  /** Response headers computed from the result (e.g. Location of a created object). */
  headers?: (value: any, input: RestInput<P>) => Record<string, string>;
  /** Answer with a 302 to the URL this returns (e.g. the module item redirect). */
  redirect?: (value: any, input: RestInput<P>) => string | null;
  /** Allowed without a token (the viewer is then null). */
  anonymous?: boolean;
  /**
   * Who the request authenticates as: `user` (default) an access token of a user; `lti` an LTI tool's
   * JWT access token only (ctx.tool; user tokens get 401); `none` nobody — credentials are not read
   * at all, so a stray or invalid user token cannot change the answer (the LTI authorize endpoints).
   */
  auth?: 'user' | 'lti' | 'none';
  /**
   * Other operations the same path runs for some inputs (Canvas's GET /calendar_events?type=assignment
   * lists assignments, not events): the first whose `when` holds replaces the row's operation, root,
   * variables and presenter. Each is compiled and validated at start-up like the row's own.
   */
  variants?: RestVariant<P>[];
}

export interface RestVariant<P = Record<string, any>> {
  when: (values: P) => boolean;
  operation: string;
  root: string;
  variables?: (input: RestInput<P>) => Record<string, unknown>;
  present?: (value: any, input: RestInput<P>) => unknown;
  /** The variant's own pagination, where Canvas pages it differently from the row (default: the row's). */
  list?: RestRoute<P>['list'];
}

/** The selection every mutation row reads: validation problems become Canvas's 400 body. */
export const PAYLOAD_ERRORS = 'errors { attribute type message }';

const fragments = new Map<string, string>();

/** Registers a reusable fragment (usually the Canvas JSON shape of a type, written with aliases). */
export function defineFragment(text: string): string {
  const m = /fragment\s+(\w+)\s+on/.exec(text);
  if (!m) throw new Error(`not a fragment: ${text.slice(0, 40)}`);
  fragments.set(m[1], text);
  return m[1];
}

/** The operation with every fragment it (transitively) spreads appended. */
export function withFragments(operation: string): string {
  const needed = new Set<string>();
  const visit = (text: string) => {
    for (const m of text.matchAll(/\.\.\.\s*(\w+)/g)) {
      const name = m[1];
      if (name === 'on' || needed.has(name) || !fragments.has(name)) continue;
      needed.add(name);
      visit(fragments.get(name)!);
    }
  };
  visit(operation);
  return [operation, ...[...needed].map((n) => fragments.get(n)!)].join('\n');
}
