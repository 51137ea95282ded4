import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppServices } from '../app-services';
import { bearerToken } from '../auth/authenticate';
import { requestCost } from '../common/request-cost';
import { metrics } from '../metrics/metrics';
import { clientKey } from './throttle-key';
import { formatUnits, RATE_LIMIT_BODY, Reservation, Throttle } from './throttle';

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

/** The access_token query param (a Canvas alternative to the header); form bodies are not parsed yet. */
function queryToken(url: string): string | null {
  const q = url.indexOf('?');
  return q < 0 ? null : new URLSearchParams(url.slice(q + 1)).get('access_token');
}

/**
 * The throttle as a hook pair: onRequest reserves (or answers Canvas's 403), onSend settles and sets
 * X-Request-Cost and X-Rate-Limit-Remaining; onResponse/onRequestAbort settle what onSend did not
 * (an aborted request still gives its reservation back).
 */
export function registerThrottle(fastify: FastifyInstance, app: AppServices, throttle: Throttle): void {
  fastify.addHook('onRequest', async (req, reply) => {
    if (EXEMPT.test(req.url)) return;
    const key = await clientKey(app.tokenKey, bearerToken(req.headers.authorization, queryToken(req.url)), req.ip);
    const route = `${req.method} ${req.routeOptions.url ?? ''}`;
    const extra = isExpensiveRoute(route) ? app.config.RATE_LIMIT_EXPENSIVE_COST : 0;
    const result = await throttle.reserve(key, extra);
    if (!result.allowed) {
      metrics.rateLimited.inc({ door: 'http' });
      return reply.code(403).header('X-Rate-Limit-Remaining', '0.0').type('text/plain; charset=utf-8').send(RATE_LIMIT_BODY);
    }
    reservations.set(req, result.reservation);
  });

  fastify.addHook('onSend', async (req, reply, payload) => {
    await settle(throttle, req, reply, true);
    return payload;
  });
  fastify.addHook('onResponse', async (req, reply) => settle(throttle, req, reply, false));
  fastify.addHook('onRequestAbort', async (req) => {
    const r = reservations.get(req);
    if (r) await throttle.settle(r, 0, requestCost(req.raw));
  });
}

async function settle(throttle: Throttle, req: FastifyRequest, reply: FastifyReply, headers: boolean): Promise<void> {
  const r = reservations.get(req);
  if (!r || r.settled) return;
  const settled = await throttle.settle(r, reply.elapsedTime / 1000, requestCost(req.raw));
  if (!settled || !headers || reply.raw.headersSent) return;
  reply.header('X-Request-Cost', formatUnits(settled.cost));
  reply.header('X-Rate-Limit-Remaining', formatUnits(settled.remaining));
}
