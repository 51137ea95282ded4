import type { FastifyReply, FastifyRequest } from 'fastify';
import { getOperationAST, GraphQLError, OperationDefinitionNode, parse } from 'graphql';
import { baseUrl } from '../api/rest/request-meta';
import type { RequestContext } from '../request/context';

export const SUBSCRIPTION_OVER_HTTP = 'SUBSCRIPTION_OVER_HTTP';

/** The graphql-ws endpoint on the origin the client reached (PUBLIC_URL's, behind a proxy). */
export function graphqlWsUrl(origin: string): string {
  return `${origin.replace(/^http/, 'ws')}/graphql`;
}

function refusal(origin: string): GraphQLError {
  const endpoint = graphqlWsUrl(origin);
  return new GraphQLError(
    `Subscriptions are not served over HTTP: open a WebSocket to ${endpoint} with the graphql-transport-ws protocol (a graphql-ws client) and subscribe there.`,
    { extensions: { code: SUBSCRIPTION_OVER_HTTP, endpoint, protocol: 'graphql-transport-ws', http: { status: 400 } } },
  );
}

/**
 * Subscriptions are served over graphql-ws only. Over HTTP Apollo would run one as a query and answer
 * 200 with "Cannot return null for non-nullable field Subscription…", which says nothing of where to
 * go; once a POSTed operation is resolved, this is the 400 to refuse it with (naming the socket and its
 * protocol) before anything runs, or null for any other operation.
 */
export function subscriptionRefusal(operation: OperationDefinitionNode | undefined, ctx: RequestContext): GraphQLError | null {
  return operation?.operation === 'subscription' ? refusal(ctx.baseUrl) : null;
}

/**
 * The same refusal for GET, which Apollo answers before any plugin hook with a 405 asking for POST
 * (where the subscription would be refused anyway). A document that does not parse within the token
 * limit is left to Apollo, which says why.
 */
export function refuseGetSubscriptions(parseOptions: { maxTokens: number }) {
  return async function (req: FastifyRequest, reply: FastifyReply) {
    if (req.method !== 'GET') return;
    const q = req.query as Record<string, unknown> | undefined;
    if (typeof q?.query !== 'string' || !q.query.includes('subscription')) return;
    let operation;
    try {
      operation = getOperationAST(parse(q.query, parseOptions), typeof q.operationName === 'string' && q.operationName ? q.operationName : undefined);
    } catch {
      return;
    }
    if (operation?.operation !== 'subscription') return;
    const { message, extensions } = refusal(baseUrl(req));
    const { http: _status, ...shown } = extensions;
    return reply.code(400).type('application/json; charset=utf-8').send({ errors: [{ message, extensions: shown }] });
  };
}
