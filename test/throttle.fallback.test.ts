import { randomBytes } from 'node:crypto';
import net from 'node:net';
import type { ApiResponse } from './support/api';
import { requireRedis, TEST_REDIS_URL } from './support/redis';
import { startTestServer, TestServer } from './support/server';
import { redisRelay, RedisRelay, SMALL_BUCKET } from './support/throttle';

/**
 * When the shared bucket store (Redis here; the cluster primary's relay takes the same path) fails or
 * answers slower than a second, requests are counted in the instance's own buckets: never let through
 * uncounted (issue 19, item 12). Two anonymous error reports fill a bucket (SMALL_BUCKET).
 */

const report = (server: TestServer): Promise<ApiResponse> => server.as(null).post('/api/v1/error_reports', { error: { subject: 'Store outage' } });

/**
 * Reports of one client in a row until one is refused (three at most: two fill a fresh bucket; fewer
 * when a report waited out a stalled store, as that second counts as the request's time).
 */
async function untilRefused(server: TestServer): Promise<ApiResponse[]> {
  const out: ApiResponse[] = [];
  while (out.length < 3 && out.at(-1)?.status !== 429) out.push(await report(server));
  return out;
}

function expectCountedThenRefused(responses: ApiResponse[]): void {
  const refused = responses.pop()!;
  expect(refused.status).toBe(429);
  expect(refused.text).toContain('Rate Limit Exceeded');
  expect(responses.length).toBeGreaterThanOrEqual(1);
  for (const r of responses) {
    expect(r.status).toBe(200);
    // Counted: the answer says how much is left, from the instance's own bucket.
    expect(r.headers.get('x-rate-limit-remaining')).toMatch(/^\d+\.\d+$/);
  }
}

// Fresh per run: bucket names in Redis derive from it, so no run meets an earlier run's buckets.
const env = () => ({ ...SMALL_BUCKET, LMS_SECRET_KEY: randomBytes(32).toString('hex') });

describe('Redis through a relay', () => {
  let relay: RedisRelay;
  let server: TestServer;
  beforeEach(async () => {
    await requireRedis();
    relay = await redisRelay(TEST_REDIS_URL);
    server = await startTestServer({ ...env(), REDIS_URL: relay.url });
    // Redis answers: the report is counted there.
    const first = await report(server);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-rate-limit-remaining')).toMatch(/^\d+\.\d+$/);
  });
  afterEach(async () => {
    // The relay first: the app's pubsub (on the same Redis) then closes at once rather than waiting on a stalled line.
    await relay?.close();
    await server?.close();
  });

  it("counts requests in the instance's own buckets while Redis does not answer", async () => {
    relay.stall();
    expectCountedThenRefused(await untilRefused(server));
  });

  it("counts requests in the instance's own buckets once Redis is gone", async () => {
    await relay.close();
    expectCountedThenRefused(await untilRefused(server));
  });
});

describe('a Redis that accepts connections and never answers', () => {
  let blackHole: net.Server;
  let server: TestServer;
  const held = new Set<net.Socket>();
  beforeAll(async () => {
    blackHole = net.createServer((s) => void held.add(s.on('error', () => undefined)));
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const { port } = blackHole.address() as net.AddressInfo;
    // The server still starts (it does not wait on the store for ever) …
    server = await startTestServer({ ...env(), REDIS_URL: `redis://127.0.0.1:${port}` });
  });
  afterAll(async () => {
    await server?.close();
    for (const s of held) s.destroy();
    await new Promise((resolve) => blackHole.close(resolve));
  });

  it("counts every request in the instance's own buckets", async () => {
    expectCountedThenRefused(await untilRefused(server));
  });
});
