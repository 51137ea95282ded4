import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Runtime } from '../request/runtime';
import { bearerToken } from '../auth/authenticate';
import { routeCredential } from '../auth/request-credential';
import { requestCost } from '../common/request-cost';
import { metrics } from '../common/metrics';
import { bucketKey } from './throttle-key';
import { formatUnits, Reservation, Throttle } from './throttle';

/**
 * Routes that cost more than their time: anonymous ones anybody can call in a loop (error reports,
 * the LTI token endpoint) and upload preflights, each of which starts an upload. Like Canvas's
 * up_front_cost_by_path_regex, matched on the route pattern.
 */
const EXPENSIVE = [
  /^POST \/api\/v1\/error_reports$/,
  /^POST \/api\/lti\/(accounts|courses)\/:\w+\/authorize$/,
  /^POST \/api\/v1\/(courses|groups|users)\/:\w+\/files$/,
];

/** Whether a route (`METHOD /pattern`) pays RATE_LIMIT_EXPENSIVE_COST; its GraphQL twins pay it too (src/graphql/limits.ts). */
export function isExpensiveRoute(route: string): boolean {
  return EXPENSIVE.some((re) => re.test(route));
}

/** Load balancer probes are never throttled (they share an IP with nobody's client but their own). */
const EXEMPT = /^\/health\//;

const reservations = new WeakMap<FastifyRequest, Reservation>();
/** Requests whose bucket is named once their body is parsed (their route may authenticate from it). */
const awaitingBody = new WeakSet<FastifyRequest>();

const extraCost = (app: Runtime, req: FastifyRequest): number =>
  isExpensiveRoute(`${req.method} ${req.routeOptions.url ?? ''}`) ? app.config.RATE_LIMIT_EXPENSIVE_COST : 0;

/**
 * The throttle as hooks: a request reserves (or is refused with Canvas's 429, or 403 with
 * RATE_LIMIT_STATUS=403) against the bucket of the credential its route authenticates with
 * (src/auth/request-credential.ts) — at onRequest, or at preValidation when that credential may be
 * in the body; onSend settles and sets X-Request-Cost and X-Rate-Limit-Remaining; onResponse and
 * onRequestAbort settle what onSend did not (an aborted request still gives its reservation back).
 */
export function registerThrottle(fastify: FastifyInstance, app: Runtime, throttle: Throttle): void {
  throttle.bucketOf = (token, ip) => bucketKey(app, token, ip);
  const reserve = async (req: FastifyRequest, reply: FastifyReply) => {
    const key = await bucketKey(app, routeCredential(req).token(req), req.ip);
    const result = await throttle.reserve(key, extraCost(app, req));
    if (result.allowed) {
      reservations.set(req, result.reservation);
      return;
    }
    metrics.rateLimited.inc({ door: 'http' });
    reply.code(throttle.status).header('X-Rate-Limit-Remaining', '0.0');
    if (throttle.status === 429) reply.header('Retry-After', String(result.retryAfter));
    return reply.type('text/plain; charset=utf-8').send(throttle.body);
  };

  fastify.addHook('onRequest', async (req, reply) => {
    if (EXEMPT.test(req.url)) return;
    // A Bearer header wins over any access_token param wherever one is accepted: no need to wait for the body.
    if (routeCredential(req).readsBody && !bearerToken(req.headers.authorization)) {
      awaitingBody.add(req);
      return;
    }
    return reserve(req, reply);
  });
  // After the body (and a multipart form's fields) is parsed, before the route reads anything else.
  fastify.addHook('preValidation', async (req, reply) => {
    if (!awaitingBody.delete(req)) return;
    return reserve(req, reply);
  });

  fastify.addHook('onSend', async (req, reply, payload) => {
    await settle(app, throttle, req, reply, true);
    return payload;
  });
  fastify.addHook('onResponse', async (req, reply) => settle(app, throttle, req, reply, false));
  fastify.addHook('onRequestAbort', async (req) => {
    const r = reservations.get(req);
    if (r) await throttle.settle(r, 0, requestCost(req.raw));
  });
}

async function settle(app: Runtime, throttle: Throttle, req: FastifyRequest, reply: FastifyReply, headers: boolean): Promise<void> {
  const r = reservations.get(req);
  let settled: { cost: number; remaining: number } | null;
  if (r) {
    if (r.settled) return;
    settled = await throttle.settle(r, reply.elapsedTime / 1000, requestCost(req.raw));
  } else if (awaitingBody.delete(req)) {
    // Answered before its body could be read (unparsable, too large, a refused multipart form): its
    // credential is unknown, so its IP pays.
    settled = await throttle.charge(await bucketKey(app, null, req.ip), reply.elapsedTime / 1000, extraCost(app, req), requestCost(req.raw));
  } else return;
  if (!settled || !headers || reply.raw.headersSent) return;
  reply.header('X-Request-Cost', formatUnits(settled.cost));
  reply.header('X-Rate-Limit-Remaining', formatUnits(settled.remaining));
}
