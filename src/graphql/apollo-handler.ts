import { ApolloServer, BaseContext, HeaderMap, HTTPGraphQLRequest, HTTPGraphQLResponse } from '@apollo/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';

/**
 * The request's headers as Apollo's HeaderMap, read from Node's header object on demand instead of
 * copied into a new Map on every request (the fastify integration's copy, with a URL parse for the
 * query string, was a tenth of a trivial operation's CPU). Apollo only ever `get`s request headers
 * (content type, accept, the CSRF preflight headers); `get` and `has` answer as the copy would: a
 * repeated header joined with ", ", an empty value absent. Iterating it sees nothing, so a future
 * plugin that lists request headers must read them from the Fastify request.
 */
class NodeHeaders extends HeaderMap {
  constructor(private readonly raw: IncomingHttpHeaders) {
    super();
  }

  override get(name: string): string | undefined {
    const v = this.raw[name.toLowerCase()];
    if (!v) return undefined;
    return Array.isArray(v) ? v.join(', ') : v;
  }

  override has(name: string): boolean {
    return this.get(name) !== undefined;
  }
}

/**
 * The Fastify route handler for Apollo Server: what `fastifyApolloHandler` of @as-integrations/fastify
 * does (the integration's drain plugin is still used), with the request adapted without copies. The
 * query string is only parsed for GET, the one method whose operation it carries.
 *
 * `given`: the context when the caller already made it (the fast path handing a request over);
 * `observe` sees each response Apollo made (the fast path learns content types from them).
 */
export function apolloFastifyHandler<C extends BaseContext>(
  apollo: ApolloServer<C>,
  context: (req: FastifyRequest, reply: FastifyReply) => Promise<C>,
  observe?: (req: FastifyRequest, res: HTTPGraphQLResponse) => void,
) {
  apollo.assertStarted('apolloFastifyHandler()');
  return async (req: FastifyRequest, reply: FastifyReply, given?: () => Promise<C>) => {
    const httpGraphQLRequest: HTTPGraphQLRequest = {
      body: req.body,
      method: req.method.toUpperCase(),
      headers: new NodeHeaders(req.headers),
      search: req.method === 'GET' ? new URL(req.url, `${req.protocol}://${req.hostname}/`).search : '',
    };
    const res = await apollo.executeHTTPGraphQLRequest({ httpGraphQLRequest, context: given ?? (() => context(req, reply)) });
    observe?.(req, res);
    for (const [name, value] of res.headers) void reply.header(name, value);
    void reply.code(res.status ?? 200);
    if (res.body.kind === 'complete') return res.body.string;
    // Incremental delivery (@defer/@stream) as the integration streams it.
    return reply.send(Readable.from(res.body.asyncIterator));
  };
}
