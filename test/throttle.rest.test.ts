import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { ApiResponse } from './support/api';
import { requireRedis, TEST_REDIS_URL as REDIS_URL } from './support/redis';
import { startTestServer, TestServer } from './support/server';
import { SMALL_BUCKET } from './support/throttle';
import { World } from './support/world';
import { wsClient, wsRequest } from './support/ws';

/**
 * Canvas's request throttle (src/http/throttle.ts). The test server turns it off by default; each
 * server here turns it on with small limits, so a bucket fills in a few requests. An outflow of 0.01
 * units a second keeps a bucket practically still for the length of a test, where that matters.
 */

// Canvas's answer since October 2025; RATE_LIMIT_STATUS=403 keeps its older one.
const THROTTLED_BODY = '429 Too Many Requests (Rate Limit Exceeded)\n';
const OLD_THROTTLED_BODY = '403 Forbidden (Rate Limit Exceeded)\n';
const REPORTS = '/api/v1/error_reports';
const UNITS = /^\d+\.\d+$/;

const report = (server: TestServer, token: string | null = null) => server.as(token).post(REPORTS, { error: { subject: 'Throttle test' } });
const remaining = (res: ApiResponse) => Number(res.headers.get('x-rate-limit-remaining'));
const cost = (res: ApiResponse) => Number(res.headers.get('x-request-cost'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts a request whose body has not finished arriving: it holds its up-front reservation until
 * `finish` sends the rest — unless the server refused it at once (`answered`), because another request
 * of the same client was in flight when it arrived.
 */
function inFlight(server: TestServer, token: string) {
  const body = 'error[subject]=slow+upload&error[comments]=still+coming';
  const req = http.request(`${server.url}${REPORTS}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': String(body.length) },
  });
  const held = {
    answered: false,
    response: new Promise<http.IncomingMessage>((resolve, reject) => {
      req.on('error', reject).on('response', (res) => {
        held.answered = true;
        res.resume();
        resolve(res);
      });
    }),
    async finish(): Promise<http.IncomingMessage> {
      req.end(body.slice(10));
      return held.response;
    },
  };
  req.write(body.slice(0, 10));
  return held;
}

/**
 * Holds a request of the client in flight and tries `attempt` (as the same client) until it is refused.
 * Attempts run one at a time; when one arrived before the held request and got that one refused, the
 * held request is started again. Returns the refusal and the held request, still in flight.
 */
async function refusedWhileHeld<T>(server: TestServer, token: string, attempt: () => Promise<T>, refused: (t: T) => boolean) {
  let held = inFlight(server, token);
  for (let i = 0; i < 100; i++) {
    await sleep(20);
    if (held.answered) {
      held = inFlight(server, token);
      continue;
    }
    const result = await attempt();
    if (refused(result)) return { result, held };
  }
  throw new Error('never refused while a request was held in flight');
}

function expectThrottled(res: ApiResponse): void {
  expect(res.status).toBe(429);
  expect(res.text).toBe(THROTTLED_BODY);
  expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  expect(res.headers.get('x-rate-limit-remaining')).toBe('0.0');
  expect(res.headers.get('x-request-cost')).toBeNull();
  // Whole seconds until the bucket has leaked enough to take the request.
  expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
}

describe('with Canvas defaults', () => {
  let server: TestServer;
  beforeAll(async () => {
    // Canvas's limits, except a large up-front cost so that two requests in flight at once fill the bucket.
    server = await startTestServer({ RATE_LIMIT: 'on', RATE_LIMIT_UP_FRONT: '300' });
  });
  afterAll(() => server.close());

  it('puts X-Request-Cost and X-Rate-Limit-Remaining on every answer: token, anonymous, 401, 404 and GraphQL', async () => {
    const responses = [
      await server.admin.get('/api/v1/users/self'),
      await server.as(null).get('/api/v1/users/self'),
      await server.as('not-a-valid-token').get('/api/v1/courses'),
      await server.admin.get('/api/v1/no/such/route'),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 401, 401, 404]);
    const gql = await server.admin.request('POST', '/graphql', { query: '{ __typename }' }, { json: true });
    expect(gql.status).toBe(200);
    for (const res of [...responses, gql]) {
      expect(res.headers.get('x-request-cost')).toMatch(UNITS);
      expect(res.headers.get('x-rate-limit-remaining')).toMatch(UNITS);
      // A fast request costs a fraction of a unit (seconds) of the 600 a client may hold.
      expect(cost(res)).toBeLessThan(5);
      expect(remaining(res)).toBeGreaterThan(590);
      expect(remaining(res)).toBeLessThanOrEqual(600);
    }
  });

  it('leaves load balancer probes alone', async () => {
    const res = await server.as(null).get('/health/live');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-rate-limit-remaining')).toBeNull();
  });

  it('reserves the up-front cost while a request runs and gives it back at the end', async () => {
    const u = await new World(server).user('Concurrent Client');
    // A request in flight holds its reservation (300 of the 600), so a second one at the same time
    // finds the bucket full.
    const { result, held: slow } = await refusedWhileHeld(server, u.token, () => u.api.get('/api/v1/users/self'), (r) => r.status === 429);
    expectThrottled(result);
    // Another client is not affected.
    expect((await server.admin.get('/api/v1/users/self')).status).toBe(200);
    const first = await slow.finish();
    expect(first.statusCode).toBe(200);
    // Settled: the reservation is back, and the client is served again.
    expect(Number(first.headers['x-rate-limit-remaining'])).toBeGreaterThan(590);
    const after = await u.api.get('/api/v1/users/self');
    expect(after.status).toBe(200);
    expect(remaining(after)).toBeGreaterThan(590);
  });

  it("charges graphql-ws connections and operations to the token's bucket, refusing them while it is full", async () => {
    const u = await new World(server).user('Socket Client');
    const { client } = wsClient(server.url, u.token);
    try {
      expect((await wsRequest(client, '{ __typename }')).data).toEqual({ __typename: 'Query' });
      // The same token's HTTP request in flight fills the bucket: the socket's next operation is refused …
      const attempt = () => wsRequest(client, '{ __typename }').then(() => null, (errors: unknown) => errors);
      const { result: refused, held: slow } = await refusedWhileHeld(server, u.token, attempt, (r) => r !== null);
      expect(refused).toEqual([{ message: 'Rate Limit Exceeded', extensions: { code: 'RATE_LIMIT_EXCEEDED', retryAfter: expect.any(Number) } }]);
      // … and so is a new socket's connection_init.
      const other = wsClient(server.url, u.token);
      expect(await other.closed).toBe(4403);
      await other.client.dispose();
      expect((await slow.finish()).statusCode).toBe(200);
      // The socket stayed open and is served again once the bucket has room.
      expect((await wsRequest(client, '{ __typename }')).data).toEqual({ __typename: 'Query' });
    } finally {
      await client.dispose();
    }
  });
});

describe('a small bucket', () => {
  let server: TestServer;
  let world: World;
  beforeAll(async () => {
    server = await startTestServer({
      // Two reports (2.4 units) leave no room for a third; the leak is too slow to matter in a test.
      ...SMALL_BUCKET,
      // One unit per point of GraphQL cost, so an operation's cost shows plainly in the bucket.
      GRAPHQL_COST_PER_RATE_LIMIT_UNIT: '1',
    });
    world = new World(server);
  });
  afterAll(() => server.close());

  it("fills with anonymous error reports (an expensive route) and then answers Canvas's 429 without running the request", async () => {
    const first = await report(server);
    expect(first.status).toBe(200);
    expect(cost(first)).toBeGreaterThanOrEqual(1);
    const second = await report(server);
    expect(second.status).toBe(200);
    expect(remaining(second)).toBeLessThan(1);
    const before = Number((await server.app.ds.query('SELECT COUNT(*) AS n FROM error_reports'))[0].n);
    // A third would take the bucket past its high-water mark (the route's cost is reserved up front).
    expectThrottled(await report(server));
    // The refused report was not stored.
    expect(Number((await server.app.ds.query('SELECT COUNT(*) AS n FROM error_reports'))[0].n)).toBe(before);
    // Buckets are per client: a token has its own.
    expect((await server.admin.get('/api/v1/users/self')).status).toBe(200);
  });

  it('counts GraphQL cost toward the bucket', async () => {
    const u = await world.user('GraphQL Client');
    const cheap = await u.api.request('POST', '/graphql', { query: '{ __typename }' }, { json: true });
    expect(cheap.status).toBe(200);
    // One field, one point.
    expect(cost(cheap)).toBeLessThan(5);
    const list = await u.api.request('POST', '/graphql', { query: '{ coursesConnection(first: 100) { nodes { _id name } } }' }, { json: true });
    expect(list.status).toBe(200);
    // A hundred-node list costs at least a hundred points, each a unit here.
    expect(cost(list)).toBeGreaterThanOrEqual(100);
    expect(remaining(list)).toBe(0);
    expectThrottled(await u.api.get('/api/v1/users/self'));
  });
});

describe('RATE_LIMIT_STATUS=403', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ ...SMALL_BUCKET, RATE_LIMIT_STATUS: '403' });
  });
  afterAll(() => server.close());

  it("answers Canvas's older 403 for clients that still expect it", async () => {
    expect((await report(server)).status).toBe(200);
    expect((await report(server)).status).toBe(200);
    const res = await report(server);
    expect(res.status).toBe(403);
    expect(res.text).toBe(OLD_THROTTLED_BODY);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('x-rate-limit-remaining')).toBe('0.0');
    expect(res.headers.get('retry-after')).toBeNull();
  });
});

describe('a leaking bucket', () => {
  let server: TestServer;
  beforeAll(async () => {
    // Ten units an error report, twenty leaked a second: a burst fills it, half a second drains it.
    server = await startTestServer({
      RATE_LIMIT: 'on',
      RATE_LIMIT_HWM: '30',
      RATE_LIMIT_MAX: '40',
      RATE_LIMIT_OUTFLOW: '20',
      RATE_LIMIT_UP_FRONT: '0',
      RATE_LIMIT_EXPENSIVE_COST: '10',
    });
  });
  afterAll(() => server.close());

  it('serves a throttled client again once its bucket has leaked below the high-water mark', async () => {
    let res: ApiResponse | undefined;
    for (let i = 0; i < 50; i++) {
      res = await report(server);
      if (res.status === 429) break;
    }
    expectThrottled(res!);
    let served: ApiResponse | undefined;
    for (let i = 0; i < 100; i++) {
      await sleep(50);
      served = await report(server);
      if (served.status === 200) break;
      expectThrottled(served);
    }
    expect(served!.status).toBe(200);
    expect(served!.headers.get('x-rate-limit-remaining')).toMatch(UNITS);
  });
});

describe('shared by two instances through Redis', () => {
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    await requireRedis();
    // Instances of one deployment share the server secret, which names the buckets; a fresh one per run
    // keeps this run's buckets apart from any earlier run's.
    const env = {
      REDIS_URL,
      LMS_SECRET_KEY: randomBytes(32).toString('hex'),
      ...SMALL_BUCKET,
    };
    a = await startTestServer(env);
    b = await startTestServer(env);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("counts a client's requests to either instance in one bucket", async () => {
    expect((await report(a)).status).toBe(200);
    const second = await report(b);
    expect(second.status).toBe(200);
    expect(remaining(second)).toBeLessThan(1);
    // B alone has seen one request (1.2 units), but the bucket is the shared one (2.4): a third is refused.
    expectThrottled(await report(b));
    expectThrottled(await report(a));
  });
});

