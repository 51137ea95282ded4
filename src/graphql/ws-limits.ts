import { ExecutionArgs, getOperationAST, GraphQLError, GraphQLSchema, parse, specifiedRules, validate, type DocumentNode } from 'graphql';
import { checkOperation, GraphqlLimits, limitRules, parseOptions } from './limits';

export interface WsOperation {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
}

/** Parsed and validated documents kept per schema and limits (the same subscription on 10,000 sockets is parsed once). */
const DOCUMENTS = 256;
const documents = new WeakMap<GraphqlLimits, { schema: GraphQLSchema; byQuery: Map<string, { query: string; document: DocumentNode }> }>();

/**
 * Documents that passed parsing and validation against this schema and limits, by query text. A
 * document is never mutated once parsed, so every operation of that text may share it (and its AST
 * is held once, not once per socket); only the variables-dependent checks run per operation.
 */
function documentsOf(schema: GraphQLSchema, limits: GraphqlLimits): Map<string, { query: string; document: DocumentNode }> {
  let c = documents.get(limits);
  if (!c || c.schema !== schema) documents.set(limits, (c = { schema, byQuery: new Map() }));
  return c.byQuery;
}

/**
 * graphql-ws's onSubscribe for every operation on a socket: the same token limit, validation rules,
 * introspection and cost checks as HTTP GraphQL, before anything runs. Returns the execution
 * arguments (graphql-ws fills in the context) and whether it is a subscription, or the errors to send.
 */
export function prepareWsOperation(
  schema: GraphQLSchema,
  limits: GraphqlLimits,
  payload: WsOperation,
  authenticated: boolean,
): { args: ExecutionArgs; cost: number; subscription: boolean; query: string } | { errors: GraphQLError[] } {
  const cache = documentsOf(schema, limits);
  let cached = cache.get(payload.query);
  let document: DocumentNode;
  if (cached) {
    // Most recently used last: the first key is the one evicted.
    cache.delete(payload.query);
    cache.set(payload.query, cached);
    document = cached.document;
  } else {
    try {
      document = parse(payload.query, parseOptions(limits));
    } catch (e) {
      if (e instanceof GraphQLError) return { errors: [withCode(e, 'GRAPHQL_PARSE_FAILED')] };
      throw e;
    }
    const invalid = validate(schema, document, [...specifiedRules, ...limitRules(limits)]);
    if (invalid.length) return { errors: invalid.map((e) => withCode(e, 'GRAPHQL_VALIDATION_FAILED')) };
    cache.set(payload.query, (cached = { query: payload.query, document }));
    if (cache.size > DOCUMENTS) cache.delete(cache.keys().next().value!);
  }
  const checked = checkOperation(limits, { schema, document, operationName: payload.operationName, variables: payload.variables, authenticated });
  if ('error' in checked) return { errors: [withCode(checked.error, 'GRAPHQL_VALIDATION_FAILED')] };
  const subscription = getOperationAST(document, payload.operationName)?.operation === 'subscription';
  return { args: { schema, document, operationName: payload.operationName, variableValues: payload.variables }, cost: checked.cost, subscription, query: cached.query };
}

/**
 * The error with the code HTTP clients see for the same failure (Apollo adds it there; a limit's own
 * code such as QUERY_TOO_COMPLEX is kept), without the HTTP-only status.
 */
function withCode(error: GraphQLError, fallback: string): GraphQLError {
  const { http: _http, ...extensions } = error.extensions as Record<string, unknown>;
  const code = typeof extensions.code === 'string' ? extensions.code : fallback;
  return new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, extensions: { ...extensions, code } });
}

/** Refused when a socket already holds GRAPHQL_WS_MAX_SUBSCRIPTIONS live subscriptions. */
export function tooManySubscriptions(max: number): GraphQLError {
  return new GraphQLError(`A socket may hold at most ${max} subscriptions; complete one first.`, { extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' } });
}

/**
 * What makes two subscriptions of one socket identical (so one source serves both): the same
 * document text, operation name and variables. Variables are compared with their keys sorted.
 */
export function coalescingKey(payload: WsOperation): string {
  return JSON.stringify([payload.query, payload.operationName ?? null, sorted(payload.variables ?? null)]);
}

function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Record<string, unknown>)[k])]));
  return v;
}
