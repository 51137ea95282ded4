import type { IncomingMessage } from 'node:http';
import type { GraphQLRequestContextDidResolveOperation } from '@apollo/server';
import type { FormattedExecutionResult } from 'graphql';
import { budgetError, startBudget } from './budget';
import type { RequestContext } from '../request/context';
import { chargeCost, checkOperation, GraphqlLimits } from './limits';

/**
 * The raw HTTP request behind an Apollo request context, so an operation's cost can be charged to the
 * request the HTTP throttle reads (RequestContext holds only credential-free request metadata). A
 * symbol-keyed property rather than a map keyed by the context: Apollo runs each operation on a shallow
 * copy of the context, which copies this property but is a different key.
 */
const RAW_REQUEST = Symbol('rawRequest');
type WithRawRequest = RequestContext & { [RAW_REQUEST]?: IncomingMessage };

export function bindRawRequest(ctx: RequestContext, raw: IncomingMessage): void {
  (ctx as WithRawRequest)[RAW_REQUEST] = raw;
}

/**
 * HTTP GraphQL's caller- and variable-dependent limits (introspection, cost), for Apollo's
 * didResolveOperation: the operation is parsed (token limit) and validated (depth, alias, directive
 * rules) and nothing has executed yet. Throws the refusal (a 400 with the error's extensions.code);
 * otherwise starts the operation's execution budget and charges its cost to the HTTP request.
 */
export function applyGraphqlLimits(limits: GraphqlLimits, rc: GraphQLRequestContextDidResolveOperation<RequestContext>): void {
  const { schema, document, operationName, request, contextValue } = rc;
  const result = checkOperation(limits, {
    schema,
    document,
    operationName,
    variables: request.variables,
    authenticated: Boolean(contextValue.viewer || contextValue.tool),
  });
  if ('error' in result) throw result.error;
  // What it may do while it runs, whatever the estimate said (budget.ts; jit-executor.ts reports it).
  startBudget(contextValue, limits.budget);
  const raw = (contextValue as WithRawRequest)[RAW_REQUEST];
  if (raw) chargeCost(raw, limits, result.cost);
}

/**
 * Apollo's stringifyResult: the response as JSON, unless it is larger than GRAPHQL_MAX_RESPONSE_BYTES,
 * in which case the client gets the limit's error instead of megabytes it may not have (the budget
 * bounds the work that built it; this bounds what leaves the server). Measured where the JSON is made,
 * so a normal response is serialised once, as before.
 */
export function stringifyWithinLimit(limits: GraphqlLimits): (value: FormattedExecutionResult) => string {
  const max = limits.budget.maxResponseBytes;
  return (value) => {
    const json = JSON.stringify(value);
    // A UTF-16 length under max/3 is under max bytes for sure; only longer answers are measured exactly.
    if (json.length * 3 <= max) return json;
    const bytes = Buffer.byteLength(json);
    if (bytes <= max) return json;
    const { message, extensions } = budgetError('responseBytes', max, bytes);
    return JSON.stringify({ errors: [{ message, extensions }] });
  };
}
