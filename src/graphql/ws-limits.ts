import { ExecutionArgs, getOperationAST, GraphQLError, GraphQLSchema, parse, specifiedRules, validate, type DocumentNode } from 'graphql';
import { checkOperation, GraphqlLimits, limitRules, parseOptions } from './limits';

export interface WsOperation {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
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
): { args: ExecutionArgs; cost: number; subscription: boolean } | { errors: GraphQLError[] } {
  let document: DocumentNode;
  try {
    document = parse(payload.query, parseOptions(limits));
  } catch (e) {
    if (e instanceof GraphQLError) return { errors: [withCode(e, 'GRAPHQL_PARSE_FAILED')] };
    throw e;
  }
  const invalid = validate(schema, document, [...specifiedRules, ...limitRules(limits)]);
  if (invalid.length) return { errors: invalid.map((e) => withCode(e, 'GRAPHQL_VALIDATION_FAILED')) };
  const checked = checkOperation(limits, { schema, document, operationName: payload.operationName, variables: payload.variables, authenticated });
  if ('error' in checked) return { errors: [withCode(checked.error, 'GRAPHQL_VALIDATION_FAILED')] };
  const subscription = getOperationAST(document, payload.operationName)?.operation === 'subscription';
  return { args: { schema, document, operationName: payload.operationName, variableValues: payload.variables }, cost: checked.cost, subscription };
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
