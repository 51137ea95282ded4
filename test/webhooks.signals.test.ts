import { OutboxMessage } from '../src/webhooks/outbox.entity';
import { Dispatcher } from '../src/webhooks/dispatcher';
import { WebhookSubscription } from '../src/webhooks/webhook-subscription.entity';
import { Api } from './support/api';
import type { ContentRoom } from './support/content';
import { createProxy, toolApi } from './support/lti';
import type { TestServer } from './support/server';
import { HttpsReceiver, Received, subscription, toolProxy, waitFor, webhookRoom, WebhookRoom } from './support/webhooks';

// Timing-sensitive (real processes, sockets and timers on a shared 2-core machine): a failure is retried
// twice before it counts, and every failed try is logged. A consistent failure still fails.
jest.retryTimes(2, { logErrorsBeforeRetry: true });

/**
 * What receivers say back (Standard Webhooks' receiver signals): 410 Gone deactivates the
 * subscription at once, visibly; 429 and 503 with Retry-After (seconds or an HTTP date) are retried no
 * sooner than asked and pause that destination, while the per-destination concurrency limit halves on
 * them and recovers on successes — and other destinations are not held up meanwhile. Two receivers
 * on different ports are two destinations (origins).
 */
let w: WebhookRoom;
let server: TestServer;
let room: ContentRoom;
let a: HttpsReceiver;
let b: HttpsReceiver;
let tool: Api;

beforeAll(async () => {
  w = await webhookRoom({ receivers: 2 });
  ({ server, room, receivers: [a, b] } = w);
  tool = await toolApi(server, await createProxy(server, { name: 'Signals tool' }));
});
afterAll(() => w.close());
afterEach(() => {
  a.respond = () => ({ status: 200 });
  b.respond = () => ({ status: 200 });
});

const gradeChange = () => w.gradeChange();
const submit = () => w.submit();

async function listen(receiver: HttpsReceiver, path: string, eventTypes = ['grade_change']): Promise<WebhookSubscription> {
  return subscription(server, { tool: await toolProxy(server), context: { type: 'course', id: room.course.id }, eventTypes, url: receiver.url(path) });
}

const messages = (sub: { id: string }) => server.app.ds.getRepository(OutboxMessage).find({ where: { subscriptionId: sub.id }, order: { id: 'ASC' } });
const allDelivered = async (sub: { id: string }, n: number) => {
  const rows = await messages(sub);
  return rows.length === n && rows.every((m) => m.status === 'delivered');
};

describe('410 Gone', () => {
  it('deactivates the subscription at once, dead-letters what is queued for it, and shows why (REST and GraphQL)', async () => {
    const created = await tool.post('/api/lti/subscriptions', {
      subscription: { ContextType: 'course', ContextId: String(room.course.id), EventTypes: ['grade_change'], Format: 'live-event', TransportType: 'https', TransportMetadata: { Url: a.url('/gone') } },
    });
    expect(created.status).toBe(200);
    expect(created.body).not.toHaveProperty('DeactivatedAt');
    const sub = { id: created.body.Id as string };
    a.respond = (r) => (r.path === '/gone' ? { status: 410 } : { status: 200 });
    await server.dispatcher.stop();
    // One delivery at a time, so the second message is still queued when the first is answered 410.
    const single = new Dispatcher({ ds: server.app.ds, config: { ...server.app.config, WEBHOOK_CONCURRENCY: 1, WEBHOOK_BATCH_SIZE: 1 }, tokenKey: server.app.tokenKey });
    try {
      await gradeChange();
      await gradeChange();
      single.start();
      await waitFor('both dead', async () => (await messages(sub)).every((m) => m.status === 'dead'));
    } finally {
      await single.stop();
      server.dispatcher.start();
    }
    // One attempt was enough: no retries, and the other message was never sent.
    expect(a.all('/gone')).toHaveLength(1);
    const [first, second] = await messages(sub);
    expect(first).toMatchObject({ status: 'dead', attempts: 1, lastStatusCode: 410, lastError: 'HTTP 410' });
    expect(second.status).toBe('dead');
    expect(second.lastError).toMatch(/^subscription deactivated: the endpoint answered 410 Gone at /);

    const shown = await tool.get(`/api/lti/subscriptions/${sub.id}`);
    expect(shown.body).toMatchObject({ State: 'Active', DeactivatedAt: expect.any(String), DeactivationReason: expect.stringMatching(/^the endpoint answered 410 Gone at \S+Z$/) });
    const gql = await tool.graphql(`query($id: ID!) { webhookSubscription(id: $id) { deactivatedAt deactivationReason } }`, { id: sub.id });
    expect(gql.data.webhookSubscription).toEqual({ deactivatedAt: shown.body.DeactivatedAt, deactivationReason: shown.body.DeactivationReason });

    // New events no longer match it; a PUT of the subscription (the tool fixed its endpoint) clears it.
    await gradeChange();
    expect(await messages(sub)).toHaveLength(2);
    const put = await tool.put(`/api/lti/subscriptions/${sub.id}`, {
      subscription: { ContextType: 'course', ContextId: String(room.course.id), EventTypes: ['grade_change'], Format: 'live-event', TransportType: 'https', TransportMetadata: { Url: a.url('/gone') } },
    });
    expect(put.status).toBe(200);
    expect(put.body).not.toHaveProperty('DeactivatedAt');
  });
});

describe('429 and 503 with Retry-After', () => {
  it('retries no sooner than a 429 asks (seconds), pauses that destination, and does not hold up another', async () => {
    const busy = await listen(a, '/busy');
    const other = await listen(b, '/other');
    const sameOrigin = await listen(a, '/same-origin', ['submission_created']);
    a.respond = (r) => (r.path === '/busy' && a.all('/busy').length === 1 ? { status: 429, headers: { 'Retry-After': '2' }, body: '{"error":"slow down"}' } : { status: 200 });
    await gradeChange();
    const [throttled] = await waitFor('the 429', async () => ((await messages(busy))[0]?.lastStatusCode === 429 ? messages(busy) : null));
    expect(throttled.status).toBe('pending');
    const asked = a.all('/busy')[0].at + 2000;
    expect(throttled.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(asked);

    // Another destination gets its message of the same event; the paused one gets a new message only
    // after the pause.
    await waitFor('the other destination', () => allDelivered(other, 1));
    await submit();
    await waitFor('the retry', () => allDelivered(busy, 1));
    await waitFor('the paused destination', () => allDelivered(sameOrigin, 1));
    const [first, retry] = a.all('/busy');
    expect(retry.at).toBeGreaterThanOrEqual(asked);
    expect(retry.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(b.all('/other')[0].at).toBeLessThan(retry.at);
    expect(a.all('/same-origin')[0].at).toBeGreaterThanOrEqual(asked);
  });

  it('retries no sooner than a 503 asks with an HTTP date', async () => {
    const down = await listen(a, '/maintenance');
    let until = '';
    a.respond = (r) => {
      if (r.path !== '/maintenance' || a.all('/maintenance').length > 1) return { status: 200 };
      until = new Date(Date.now() + 2500).toUTCString();
      return { status: 503, headers: { 'Retry-After': until } };
    };
    await gradeChange();
    await waitFor('delivered after the date', () => allDelivered(down, 1));
    const [, retry] = a.all('/maintenance');
    expect(retry.at).toBeGreaterThanOrEqual(Date.parse(until));
  });

  it('halves the destination’s concurrency on 503s and regains it on successes, other destinations unaffected', async () => {
    const congested = await listen(a, '/congested');
    const free = await listen(b, '/free');
    const N = 8;
    // The receiver's view: how many of its requests are open when each arrives.
    let open = 0;
    const seen: { at: number; open: number; status: number }[] = [];
    a.respond = (r) => {
      if (r.path !== '/congested') return { status: 200 };
      const n = seen.length;
      const status = n < 4 ? 503 : 200;
      const delayMs = n < 4 ? 0 : 300;
      open++;
      seen.push({ at: r.at, open, status });
      setTimeout(() => open--, delayMs);
      return { status, delayMs };
    };
    b.respond = () => ({ status: 200, delayMs: 50 });
    await server.dispatcher.stop();
    const dispatcher = new Dispatcher({ ds: server.app.ds, config: { ...server.app.config, WEBHOOK_DESTINATION_CONCURRENCY: 4 }, tokenKey: server.app.tokenKey });
    try {
      for (let i = 0; i < N; i++) await gradeChange();
      dispatcher.start();
      await waitFor('the free destination', () => allDelivered(free, N));
      const freeDone = Math.max(...b.all('/free').map((r) => r.at));
      await waitFor('the congested destination', () => allDelivered(congested, N), 30_000);
      const failures = seen.filter((s) => s.status === 503);
      const successes = seen.filter((s) => s.status === 200);
      // Never more than the ceiling at once.
      expect(Math.max(...failures.map((s) => s.open))).toBeLessThanOrEqual(4);
      // Four 503s bring the limit down to 1: the first request after them is alone until answered …
      expect(successes[1].at - successes[0].at).toBeGreaterThanOrEqual(300);
      // … and successes bring it back up.
      expect(Math.max(...successes.map((s) => s.open))).toBeGreaterThanOrEqual(2);
      // Meanwhile the other destination got everything, long before the congested one was through.
      expect(freeDone).toBeLessThan(successes[successes.length - 1].at);
    } finally {
      await dispatcher.stop();
      server.dispatcher.start();
    }
  });
});

describe('the per-attempt log', () => {
  const DELIVERIES = `query($id: String!, $first: Int) { webhookDeliveries(subscriptionId: $id, first: $first) { nodes { messageId status attemptCount
    attempts { attempt startedAt durationMs succeeded statusCode errorClass error responseBody } } } }`;

  it('keeps every attempt: time, duration, status, error class and the first 1 KB of the answer', async () => {
    const sub = await listen(a, '/logged');
    const long = 'é'.repeat(1500);
    a.respond = (r) => {
      if (r.path !== '/logged') return { status: 200 };
      const n = a.all('/logged').length;
      if (n === 1) return { status: 500, body: long };
      if (n === 2) return { status: 302, headers: { Location: 'https://elsewhere.example/' } };
      return { status: 202, body: '{"ok":true}' };
    };
    await gradeChange();
    await waitFor('delivered', () => allDelivered(sub, 1));
    const res = await server.admin.graphql(DELIVERIES, { id: sub.id });
    expect(res.errors).toBeUndefined();
    const [node] = res.data.webhookDeliveries.nodes;
    expect(node).toMatchObject({ status: 'delivered', attemptCount: 3 });
    const [failed, redirected, ok] = node.attempts;
    expect(failed).toMatchObject({ attempt: 1, succeeded: false, statusCode: 500, errorClass: 'http_status', error: 'HTTP 500' });
    // 1 KB of bytes: 512 two-byte characters.
    expect(Buffer.byteLength(failed.responseBody)).toBe(1024);
    expect(failed.responseBody).toBe('é'.repeat(512));
    expect(redirected).toMatchObject({ attempt: 2, succeeded: false, statusCode: 302, errorClass: 'redirect', responseBody: '{}' });
    expect(ok).toMatchObject({ attempt: 3, succeeded: true, statusCode: 202, errorClass: null, error: null, responseBody: '{"ok":true}' });
    for (const t of node.attempts) {
      expect(t.durationMs).toEqual(expect.any(Number));
      expect(t.durationMs).toBeGreaterThanOrEqual(0);
    }
    const times = node.attempts.map((t: { startedAt: string }) => Date.parse(t.startedAt));
    expect([...times].sort()).toEqual(times);
    expect(a.all('/logged').map((r: Received) => r.at)[0]).toBeGreaterThanOrEqual(times[0]);
  });

  it('records network failures by class, and loads attempts for a page of deliveries in a fixed number of statements', async () => {
    const sub = await listen(a, '/down');
    await server.dispatcher.stop();
    try {
      for (let i = 0; i < 3; i++) await gradeChange();
      await a.down();
      const once = new Dispatcher({ ds: server.app.ds, config: server.app.config, tokenKey: server.app.tokenKey });
      await once.drain();
      await once.stop();
    } finally {
      await a.up();
    }
    try {
      const count = async (first: number) => {
        const before = server.queryCount();
        const res = await server.admin.graphql(DELIVERIES, { id: sub.id, first });
        expect(res.errors).toBeUndefined();
        return { statements: server.queryCount() - before, nodes: res.data.webhookDeliveries.nodes };
      };
      const one = await count(1);
      const three = await count(3);
      expect(three.nodes).toHaveLength(3);
      expect(three.statements).toBe(one.statements);
      for (const node of three.nodes) {
        expect(node.attempts).toEqual([
          expect.objectContaining({ attempt: 1, succeeded: false, statusCode: null, errorClass: 'connection', error: expect.stringContaining('ECONNREFUSED'), responseBody: null }),
        ]);
      }
    } finally {
      server.dispatcher.start();
    }
    await waitFor('delivered once back', () => allDelivered(sub, 3));
  });

  it('is for operators only, as the deliveries are', async () => {
    const sub = await listen(a, '/private-log');
    const res = await room.teacher.api.graphql(DELIVERIES, { id: sub.id });
    expect(res.errors?.[0].extensions.code).toBe('NOT_FOUND');
  });
});

describe('retention', () => {
  it('purges delivered messages and their attempts after WEBHOOK_RETENTION_DAYS (30 by default); dead ones stay', async () => {
    expect(server.app.config.WEBHOOK_RETENTION_DAYS).toBe(30);
    const sub = await listen(a, '/retained');
    for (let i = 0; i < 3; i++) await gradeChange();
    await waitFor('delivered', () => allDelivered(sub, 3));
    const [old, recent, dead] = await messages(sub);
    const day = 86_400_000;
    const repo = server.app.ds.getRepository(OutboxMessage);
    await repo.update({ id: old.id }, { updatedAt: new Date(Date.now() - 31 * day) });
    await repo.update({ id: recent.id }, { updatedAt: new Date(Date.now() - 29 * day) });
    await repo.update({ id: dead.id }, { status: 'dead', updatedAt: new Date(Date.now() - 90 * day) });
    const attemptsOf = async (id: number) => Number((await server.app.ds.query(`SELECT COUNT(*) AS n FROM webhook_attempts WHERE outbox_message_id = ${id}`))[0].n);
    expect(await attemptsOf(old.id)).toBe(1);

    const purger = new Dispatcher({ ds: server.app.ds, config: server.app.config, tokenKey: server.app.tokenKey });
    await purger.purge();
    expect((await messages(sub)).map((m) => m.id)).toEqual([recent.id, dead.id]);
    expect(await attemptsOf(old.id)).toBe(0);
    expect(await attemptsOf(recent.id)).toBe(1);
    expect(await attemptsOf(dead.id)).toBe(1);

    // A shorter retention purges the 29-day-old one too.
    await new Dispatcher({ ds: server.app.ds, config: { ...server.app.config, WEBHOOK_RETENTION_DAYS: 7 }, tokenKey: server.app.tokenKey }).purge();
    expect((await messages(sub)).map((m) => m.id)).toEqual([dead.id]);
    expect(await attemptsOf(recent.id)).toBe(0);
  });
});
