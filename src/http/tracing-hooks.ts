import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { failSpan, type ServerSpan, startServerSpan, tracingOn } from '../tracing/tracing';

/** Probes and scrapes, every few seconds: a trace each would bury the requests worth reading. */
const UNTRACED = /^\/(health|metrics)(\/|$)/;

/**
 * A server span per HTTP request while tracing is on, named by its route pattern
 * (`GET /api/v1/courses/:course_id/groups`; GraphQL renames it after its operation,
 * src/graphql/tracing.ts) and never by the URL, whose query may carry an access token. A caller's
 * `traceparent` makes it a child of the caller's span. Registered first, so every later hook, the
 * body's parsing and the handler run with the span active and their spans (SQL, outbox…) nest under it.
 */
export function registerRequestTracing(fastify: FastifyInstance): void {
  if (!tracingOn()) return;
  const spans = new WeakMap<FastifyRequest, ServerSpan>();
  fastify.addHook('onRequest', (req, reply, done) => {
    const route = req.routeOptions.url;
    if (route && UNTRACED.test(route)) return done();
    const attributes: Record<string, string> = { 'http.request.method': req.method, 'url.scheme': req.protocol };
    if (route) attributes['http.route'] = route;
    const s = startServerSpan(`${req.method} ${route ?? '(unmatched)'}`, req.headers, attributes);
    if (!s) return done();
    spans.set(req, s);
    // A body arrives through the request's listeners, after this hook has returned: they must run
    // with the span active. Without a body everything runs from here.
    const { headers } = req.raw;
    if (headers['transfer-encoding'] !== undefined || (headers['content-length'] ?? '0') !== '0') s.bind(req.raw);
    s.run(done);
  });
  /** status: the answer's, or null when the client went away first. */
  const end = (req: FastifyRequest, status: number | null) => {
    const s = spans.get(req);
    if (!s) return;
    spans.delete(req);
    const { span } = s;
    if (status === null) failSpan(span, 'aborted');
    else {
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) failSpan(span, String(status));
    }
    s.end();
  };
  fastify.addHook('onResponse', async (req, reply: FastifyReply) => end(req, reply.statusCode));
  fastify.addHook('onRequestAbort', async (req) => end(req, null));
}
