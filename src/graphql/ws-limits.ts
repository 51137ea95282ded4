import { ExecutionArgs, GraphQLError, GraphQLSchema, parse, specifiedRules, validate, type DocumentNode } from 'graphql';
import { checkOperation, GraphqlLimits, limitRules, parseOptions } from './limits';

export interface WsOperation {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
}

/**
 * graphql-ws's onSubscribe for every operation on a socket: the same token limit, validation rules,
 * introspection and cost checks as HTTP GraphQL, before anything runs. Returns the execution
 * arguments (graphql-ws fills in the context), or the errors to send to the client.
 */
export function prepareWsOperation(
  schema: GraphQLSchema,
  limits: GraphqlLimits,
  payload: WsOperation,
  authenticated: boolean,
): { args: ExecutionArgs; cost: number } | { errors: GraphQLError[] } {
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
  return { args: { schema, document, operationName: payload.operationName, variableValues: payload.variables }, cost: checked.cost };
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
