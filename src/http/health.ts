import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../request/runtime';

/** A dependency that has not answered by then counts as down (a probe must answer promptly). */
const CHECK_TIMEOUT_MS = 2_000;

interface Check {
  status: 'ok' | 'unavailable';
  latencyMs: number;
}

/** Runs one probe, timed, bounded by CHECK_TIMEOUT_MS; its error text stays out of the body. */
async function check(probe: () => Promise<unknown>): Promise<Check> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([probe(), timeout]);
    return { status: 'ok', latencyMs: elapsed(started) };
  } catch {
    return { status: 'unavailable', latencyMs: elapsed(started) };
  } finally {
    clearTimeout(timer);
  }
}

const elapsed = (started: number) => Math.round((performance.now() - started) * 10) / 10;

/**
 * /health/live: the process answers. /health/ready: each dependency answers, reported one by one
 * (the database; Redis when REDIS_URL is configured), 503 when any does not, so a load balancer
 * stops sending traffic and an operator sees which one.
 */
export function registerHealth(fastify: FastifyInstance, app: Runtime): void {
  fastify.get('/health/live', async () => ({ status: 'ok' }));
  fastify.get('/health/ready', async (_req, reply) => {
    const probes: [string, Promise<Check>][] = [['database', check(() => app.ds.query('SELECT 1'))]];
    if (app.config.REDIS_URL) probes.push(['redis', check(() => app.pubsub.ping())]);
    const checks = Object.fromEntries(await Promise.all(probes.map(async ([name, p]) => [name, await p] as const)));
    const ok = Object.values(checks).every((c) => c.status === 'ok');
    return reply
      .code(ok ? 200 : 503)
      .header('Cache-Control', 'no-store')
      .send({ status: ok ? 'ok' : 'unavailable', checks });
  });
}
