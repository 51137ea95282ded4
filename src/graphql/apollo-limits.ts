import type { IncomingMessage } from 'node:http';
import type { ApolloServerPlugin } from '@apollo/server';
import type { RequestContext } from './context';
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
 * HTTP GraphQL's caller- and variable-dependent limits (introspection, cost). Runs once the operation
 * is parsed (token limit) and validated (depth, alias, directive rules) and before anything executes;
 * a refusal is a 400 with the error's extensions.code.
 */
export function graphqlLimitsPlugin(limits: GraphqlLimits): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operationName, request, contextValue }) {
          const result = checkOperation(limits, {
            schema,
            document,
            operationName,
            variables: request.variables,
            authenticated: Boolean(contextValue.viewer || contextValue.tool),
          });
          if ('error' in result) throw result.error;
          const raw = (contextValue as WithRawRequest)[RAW_REQUEST];
          if (raw) chargeCost(raw, limits, result.cost);
        },
      };
    },
  };
}
