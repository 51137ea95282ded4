import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../request/runtime';
import { bearerToken } from '../auth/authenticate';
import { NOT_FOUND_BODY } from '../api/rest/errors';
import { collectOnScrape } from './collect';
import { metrics, registry } from '../common/metrics';

const UNAUTHORIZED = { errors: [{ message: 'Invalid access token.' }] };

/** Constant-time comparison of the presented token with METRICS_TOKEN (digests, so lengths never leak). */
function tokenMatches(given: string | null, expected: string): boolean {
  if (!given) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * Times every HTTP request by route pattern (never the raw URL: ids would make a series each) and
 * serves GET /metrics to scrapers holding METRICS_TOKEN. Without METRICS_TOKEN there is no such
 * endpoint (404), so an instance exposes nothing by accident.
 */
export function registerMetrics(fastify: FastifyInstance, app: Runtime): void {
  fastify.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? '(unmatched)';
    metrics.httpRequestDuration.observe({ method: req.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });

  fastify.get('/metrics', async (req, reply) => {
    const expected = app.config.METRICS_TOKEN;
    reply.header('Cache-Control', 'no-store');
    if (!expected) return reply.code(404).type('application/json; charset=utf-8').send(NOT_FOUND_BODY);
    if (!tokenMatches(bearerToken(req.headers.authorization), expected)) {
      return reply.code(401).header('WWW-Authenticate', 'Bearer realm="metrics"').type('application/json; charset=utf-8').send(UNAUTHORIZED);
    }
    try {
      await collectOnScrape(app.ds);
    } catch (e) {
      // The rest of the metrics are still worth a scrape while the database is away (health says why).
      req.log.warn({ err: { name: (e as Error).name, message: (e as Error).message } }, 'metrics: database gauges not collected');
    }
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}
