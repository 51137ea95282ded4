import net from 'node:net';
import { Dispatcher } from '../src/webhooks/dispatcher';
import { startTestServer, TestServer } from './support/server';
import { SMALL_BUCKET } from './support/throttle';
import { World } from './support/world';
import { wsClient } from './support/ws';
import { subscription, toolProxy, waitFor } from './support/webhooks';

const METRICS_TOKEN = 'scrape-token-0123456789abcdef';
const mysql = (process.env.DATABASE_URL ?? '').startsWith('mysql:');

/** A TCP port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text format, one sample per line (comments skipped). */
function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the one sample named so whose labels include these (undefined when there is none). */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

async function scrape(server: TestServer): Promise<Sample[]> {
  const res = await server.as(METRICS_TOKEN).get('/metrics');
  expect(res.status).toBe(200);
  return parseMetrics(res.text);
}

describe('without METRICS_TOKEN, with an unreachable Redis', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ REDIS_URL: `redis://127.0.0.1:${await closedPort()}` });
  });
  afterAll(() => server.close());

  it('has no /metrics endpoint: 404, whatever token is sent', async () => {
    for (const api of [server.as(null), server.as(METRICS_TOKEN), server.admin]) {
      const res = await api.get('/metrics');
      expect(res.status).toBe(404);
      // The body of any path no route serves: nothing says a metrics endpoint exists.
      expect(res.body).toEqual({ errors: [{ message: 'The specified resource does not exist.' }] });
    }
  });

  it('reports Redis as unavailable in /health/ready (503), the database as ok', async () => {
    const res = await server.as(null).get('/health/ready');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      status: 'unavailable',
      checks: {
        database: { status: 'ok', latencyMs: expect.any(Number) },
        redis: { status: 'unavailable', latencyMs: expect.any(Number) },
      },
    });
    // Liveness is the process alone.
    expect((await server.as(null).get('/health/live')).body).toEqual({ status: 'ok' });
  });

  it('GET / answers a small HTML page with the service, its version and links, under a CSP that allows nothing external', async () => {
    const res = await server.as(null).get('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const { name, version } = require('../package.json') as { name: string; version: string };
    expect(res.text).toContain(name);
    expect(res.text).toContain(`Version ${version}`);
    for (const href of ['/graphql', '/api/openapi.json', '/health/ready']) expect(res.text).toContain(`href="${href}"`);
    expect(res.text).not.toMatch(/<script|https?:\/\//);
  });
});

describe('with METRICS_TOKEN', () => {
  let server: TestServer;
  let world: World;
  beforeAll(async () => {
    // The dispatcher is off so an outbox message stays pending until the test delivers it.
    server = await startTestServer({ METRICS_TOKEN, WEBHOOK_DISPATCHER: 'off', REDIS_URL: 'redis://127.0.0.1:6379' });
    world = new World(server);
  });
  afterAll(() => server.close());

  it('refuses a missing, wrong or non-bearer token with 401 and says nothing of the token', async () => {
    const sent = [
      server.as(null),
      server.as('not-the-scrape-token-at-all'),
      server.as(`${METRICS_TOKEN}x`),
      server.admin,
      server.as(null).with({ Authorization: `Basic ${METRICS_TOKEN}` }),
    ];
    for (const api of sent) {
      const res = await api.get('/metrics');
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(res.body).toEqual({ errors: [{ message: 'Invalid access token.' }] });
      expect(res.text).not.toContain(METRICS_TOKEN);
    }
  });

  it('reports each dependency in /health/ready: the database and the configured Redis', async () => {
    const res = await server.as(null).get('/health/ready');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'ok',
      checks: { database: { status: 'ok', latencyMs: expect.any(Number) }, redis: { status: 'ok', latencyMs: expect.any(Number) } },
    });
  });

  it('serves Prometheus text with request, GraphQL, database and outbox metrics after some traffic', async () => {
    const room = await world.classroom();
    expect((await room.teacher.api.get(`/api/v1/courses/${room.course.id}`)).status).toBe(200);
    expect((await room.teacher.api.get('/api/v1/courses/987654321')).status).toBe(404);
    const probe = await room.teacher.api.graphql('query OperatorsProbe { viewer { name } }');
    expect(probe.data.viewer.name).toBe(room.teacher.name);
    expect((await room.teacher.api.graphql('{ noSuchField }')).errors).toBeDefined();

    const res = await server.as(METRICS_TOKEN).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const m = parseMetrics(res.text);

    // Requests by route pattern and status, never by raw URL.
    const course = { method: 'GET', route: '/api/v1/courses/:id' };
    expect(value(m, 'lms_http_request_duration_seconds_count', { ...course, status: '200' })).toBeGreaterThanOrEqual(1);
    expect(value(m, 'lms_http_request_duration_seconds_count', { ...course, status: '404' })).toBeGreaterThanOrEqual(1);
    expect(m.some((s) => s.name === 'lms_http_request_duration_seconds_bucket' && s.labels.le === '0.1')).toBe(true);
    expect(res.text).not.toContain('987654321');
    expect(res.text).not.toContain(`/api/v1/courses/${room.course.id}`);

    // GraphQL operations by name, type and result.
    expect(value(m, 'lms_graphql_operations_total', { operation: 'OperatorsProbe', type: 'query', result: 'ok' })).toBe(1);
    expect(value(m, 'lms_graphql_operation_duration_seconds_count', { operation: 'OperatorsProbe', type: 'query' })).toBe(1);
    expect(value(m, 'lms_graphql_operations_total', { operation: '(invalid)', result: 'error' })).toBeGreaterThanOrEqual(1);

    // Pool use on MySQL/MariaDB only; process metrics always.
    if (mysql) {
      expect(value(m, 'lms_db_pool_connections', { state: 'idle' })).toEqual(expect.any(Number));
      expect((value(m, 'lms_db_pool_connections', { state: 'active' }) ?? 0) + (value(m, 'lms_db_pool_connections', { state: 'idle' }) ?? 0)).toBeGreaterThanOrEqual(1);
      expect(value(m, 'lms_db_pool_waiting_requests')).toBe(0);
    } else {
      // As documented: no pool on SQLite, so neither pool series nor their HELP lines.
      expect(m.filter((s) => s.name.startsWith('lms_db_pool_'))).toEqual([]);
      expect(res.text).not.toContain('lms_db_pool_');
    }
    expect(value(m, 'lms_process_cpu_user_seconds_total')).toEqual(expect.any(Number));
    expect(value(m, 'lms_outbox_pending_messages')).toBe(0);
    expect(value(m, 'lms_outbox_oldest_pending_age_seconds')).toBe(0);
    // Counters show every known label value at 0 before their first event.
    expect(value(m, 'lms_rate_limited_total', { door: 'http' })).toBe(0);
    expect(value(m, 'lms_rate_limited_total', { door: 'graphql-ws' })).toBe(0);
    for (const result of ['delivered', 'failed', 'dead', 'cancelled']) {
      expect([result, value(m, 'lms_webhook_deliveries_total', { result })]).toEqual([result, 0]);
    }
  });

  it('counts graphql-ws connections and live subscriptions, and lets go of them when the socket closes', async () => {
    const user = await world.user('Socket user');
    const before = await scrape(server);
    expect(value(before, 'lms_graphql_ws_connections')).toBe(0);
    expect(value(before, 'lms_graphql_ws_subscriptions')).toBe(0);

    const { client } = wsClient(server.url, user.token);
    const stop = client.subscribe({ query: 'subscription { plannerChanged { change } }' }, { next: () => undefined, error: () => undefined, complete: () => undefined });
    const live = await waitFor('a live subscription', async () => {
      const m = await scrape(server);
      return value(m, 'lms_graphql_ws_subscriptions') === 1 ? m : null;
    });
    expect(value(live, 'lms_graphql_ws_connections')).toBe(1);

    // Completing the subscription lowers one gauge; closing the socket the other.
    stop();
    await waitFor('the subscription to end', async () => value(await scrape(server), 'lms_graphql_ws_subscriptions') === 0);
    await client.dispose();
    await waitFor('the socket to close', async () => value(await scrape(server), 'lms_graphql_ws_connections') === 0);
  });

  it('reports outbox depth and the oldest pending message, and counts delivery results', async () => {
    const room = await world.classroom();
    const tool = await toolProxy(server);
    await subscription(server, {
      tool,
      context: { type: 'course', id: room.course.id },
      eventTypes: ['grade_change'],
      url: `https://127.0.0.1:${await closedPort()}/hook`,
    });
    const a = await room.teacher.api.post(`/api/v1/courses/${room.course.id}/assignments`, {
      assignment: { name: 'Graded', published: true, points_possible: 10, submission_types: ['online_text_entry'] },
    });
    await room.student.api.post(`/api/v1/courses/${room.course.id}/assignments/${a.body.id}/submissions`, { submission: { submission_type: 'online_text_entry', body: 'essay' } });
    const graded = await room.teacher.api.put(`/api/v1/courses/${room.course.id}/assignments/${a.body.id}/submissions/${room.student.id}`, {
      submission: { posted_grade: '7' },
    });
    expect(graded.status).toBe(200);

    const queued = await scrape(server);
    expect(value(queued, 'lms_outbox_pending_messages')).toBe(1);
    const age = value(queued, 'lms_outbox_oldest_pending_age_seconds')!;
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThan(3600);

    // One attempt against a port nothing listens on: a failed delivery, to be retried.
    const dispatcher = new Dispatcher({
      ds: server.app.ds,
      config: { ...server.app.config, WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8', WEBHOOK_TIMEOUT_MS: 2000 },
      tokenKey: server.app.tokenKey,
    });
    await dispatcher.drain();
    const after = await scrape(server);
    expect(value(after, 'lms_webhook_deliveries_total', { result: 'failed' })).toBe(1);
    expect(value(after, 'lms_webhook_deliveries_total', { result: 'delivered' })).toBe(0);
    expect(value(after, 'lms_outbox_pending_messages')).toBe(1);
  });
});

describe('rate limit refusals', () => {
  let server: TestServer;
  beforeAll(async () => {
    // A bucket two anonymous error reports fill.
    server = await startTestServer({ METRICS_TOKEN, ...SMALL_BUCKET });
  });
  afterAll(() => server.close());

  it('are counted by door', async () => {
    const report = () => server.as(null).post('/api/v1/error_reports', { error: { subject: 'Broken' } });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await report()).status);
    expect(statuses).toEqual([200, 200, 429]);
    const m = await scrape(server);
    expect(value(m, 'lms_rate_limited_total', { door: 'http' })).toBe(1);
    expect(value(m, 'lms_rate_limited_total', { door: 'graphql-ws' })).toBe(0);
  });
});
