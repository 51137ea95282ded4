import { randomUUID } from 'node:crypto';
import { Account } from '../src/accounts/account.entity';
import { AccountService } from '../src/accounts/account.service';
import { transaction } from '../src/db/transaction';
import { OutboxMessage } from '../src/webhooks/outbox.entity';
import { Dispatcher } from '../src/webhooks/dispatcher';
import { WebhookSubscription } from '../src/webhooks/webhook-subscription.entity';
import { ContentRoom, count } from './support/content';
import type { TestServer } from './support/server';
import { HttpsReceiver, sleep, subscription, toolProxy, waitFor, webhookRoom, WebhookRoom } from './support/webhooks';
import type { World } from './support/world';

/**
 * Delivery guarantees against a real local HTTPS receiver: retries while it is down, nothing lost
 * when a dispatcher dies mid-delivery (the same message id comes again), several dispatchers never
 * double-send, private destinations refused without the allow-list, deactivation of an endpoint that
 * keeps failing, dead-lettering, and the operators' GraphQL query and redelivery mutation.
 */
let w: WebhookRoom;
let server: TestServer;
let world: World;
let room: ContentRoom;
let receiver: HttpsReceiver;

beforeAll(async () => {
  // Short timeout and lease so a dead dispatcher's claim expires within the test.
  w = await webhookRoom({ env: { WEBHOOK_TIMEOUT_MS: '1500', WEBHOOK_LEASE_MS: '1000' } });
  ({ server, world, room, receivers: [receiver] } = w);
});
afterAll(() => w.close());

/** One grade change = one grade_change message per subscription listening for it. */
const gradeChange = () => w.gradeChange();

async function gradeSubscription(path: string): Promise<WebhookSubscription> {
  const tool = await toolProxy(server);
  return subscription(server, { tool, context: { type: 'course', id: room.course.id }, eventTypes: ['grade_change'], url: receiver.url(path) });
}

const messages = (sub: WebhookSubscription) => server.app.ds.getRepository(OutboxMessage).find({ where: { subscriptionId: sub.id }, order: { id: 'ASC' } });
const allDelivered = async (sub: WebhookSubscription, n: number) => {
  const rows = await messages(sub);
  return rows.length === n && rows.every((m) => m.status === 'delivered');
};
const ids = (path: string) => receiver.all(path).map((r) => r.headers['x-message-id']);

/** Runs `fn` with the server's own dispatcher stopped, then starts it again. */
async function withoutServerDispatcher<T>(fn: () => Promise<T>): Promise<T> {
  await server.dispatcher.stop();
  try {
    return await fn();
  } finally {
    server.dispatcher.start();
  }
}

const dispatcher = (overrides: Partial<TestServer['app']['config']> = {}, workerId?: string) =>
  new Dispatcher({ ds: server.app.ds, config: { ...server.app.config, ...overrides }, tokenKey: server.app.tokenKey, workerId });

describe('at-least-once delivery', () => {
  it('loses nothing while the receiver is down: retries with backoff until it is back', async () => {
    const sub = await gradeSubscription('/down-up');
    await receiver.down();
    try {
      for (let i = 0; i < 3; i++) await gradeChange();
      await waitFor('failed attempts', async () => (await messages(sub)).every((m) => m.attempts >= 2 && m.status === 'pending'));
      const failed = await messages(sub);
      expect(failed.map((m) => m.lastError)).toEqual([expect.stringContaining('ECONNREFUSED'), expect.stringContaining('ECONNREFUSED'), expect.stringContaining('ECONNREFUSED')]);
    } finally {
      await receiver.up();
    }
    await waitFor('all delivered', () => allDelivered(sub, 3));
    const rows = await messages(sub);
    expect(new Set(ids('/down-up'))).toEqual(new Set(rows.map((m) => m.messageId)));
    expect((await server.app.ds.getRepository(WebhookSubscription).findOneByOrFail({ id: sub.id })).consecutiveFailures).toBe(0);
  });

  it('loses nothing when the dispatcher dies mid-delivery: another sends it again with the same message id', async () => {
    const sub = await gradeSubscription('/crash');
    // The receiver takes the request but never answers it.
    receiver.respond = (r) => (r.path === '/crash' && receiver.all('/crash').length === 1 ? 'hang' : { status: 200 });
    try {
      await gradeChange();
      await waitFor('the first attempt to arrive', () => receiver.all('/crash').length === 1);
      // The process "dies": its in-flight delivery is abandoned, nothing is recorded.
      await server.dispatcher.stop({ abandon: true });
      const [claimed] = await messages(sub);
      expect(claimed).toMatchObject({ status: 'delivering', attempts: 1, claimedBy: server.dispatcher.workerId });

      // A new dispatcher (the restarted server) takes it over once the dead one's lease runs out.
      const restarted = dispatcher({}, 'restarted').start();
      try {
        await waitFor('redelivery after the lease', () => allDelivered(sub, 1));
      } finally {
        await restarted.stop();
      }
      const [again] = await messages(sub);
      expect(again).toMatchObject({ status: 'delivered', attempts: 2, claimedBy: 'restarted' });
      expect(ids('/crash')).toEqual([claimed.messageId, claimed.messageId]);
      expect(receiver.all('/crash').map((r) => r.headers['x-delivery-attempt'])).toEqual(['1', '2']);
    } finally {
      receiver.respond = () => ({ status: 200 });
      server.dispatcher.start();
    }
  });

  it('several dispatchers on one database never send a message twice', async () => {
    const sub = await gradeSubscription('/many');
    await withoutServerDispatcher(async () => {
      for (let i = 0; i < 24; i++) await gradeChange();
      receiver.respond = () => ({ status: 200, delayMs: 5 });
      const workers = ['w1', 'w2', 'w3'].map((id) => dispatcher({ WEBHOOK_BATCH_SIZE: 4, WEBHOOK_CONCURRENCY: 4 }, id).start());
      try {
        await waitFor('all delivered', () => allDelivered(sub, 24));
      } finally {
        await Promise.all(workers.map((w) => w.stop()));
        receiver.respond = () => ({ status: 200 });
      }
    });
    const rows = await messages(sub);
    expect(new Set(ids('/many'))).toEqual(new Set(rows.map((m) => m.messageId)));
    // Each claim sends once: a message arrives as many times as it was attempted (once, unless an
    // attempt timed out on a loaded machine and was retried).
    for (const m of rows) expect(ids('/many').filter((id) => id === m.messageId)).toHaveLength(m.attempts);
    expect(rows.filter((m) => m.attempts === 1).length).toBeGreaterThan(20);
    // The work was shared.
    expect(new Set(rows.map((m) => m.claimedBy)).size).toBeGreaterThan(1);
  });
});

describe('destinations', () => {
  it('refuses loopback and private addresses unless the operator allow-lists them', async () => {
    const sub = await gradeSubscription('/private');
    const localhost = await subscription(server, {
      tool: await toolProxy(server),
      context: { type: 'course', id: room.course.id },
      eventTypes: ['grade_change'],
      url: receiver.url('/private', 'localhost'),
    });
    await withoutServerDispatcher(async () => {
      await gradeChange();
      const strict = dispatcher({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: undefined });
      await strict.drain();
      await strict.stop();
      const [refused] = await messages(sub);
      expect(refused).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null });
      expect(refused.lastError).toMatch(/destination 127\.0\.0\.1 refused: 127\.0\.0\.1 is a private, loopback, link-local or reserved address/);
      const [byName] = await messages(localhost);
      expect(byName.lastError).toMatch(/destination localhost refused/);
      expect(receiver.at('/private')).toEqual([]);
    });
    // With 127.0.0.0/8 allow-listed (the test server's setting) the same messages go through.
    await waitFor('delivered once allowed', () => allDelivered(sub, 1));
  });

  it('does not follow redirects and treats other answers as failures', async () => {
    const sub = await gradeSubscription('/redirect');
    receiver.respond = (r) => (r.path === '/redirect' ? { status: 302 } : { status: 200 });
    try {
      await gradeChange();
      await waitFor('a failed attempt', async () => (await messages(sub))[0]?.attempts >= 1 && (await messages(sub))[0].status === 'pending');
      const [m] = await messages(sub);
      expect(m).toMatchObject({ lastStatusCode: 302, lastError: 'HTTP 302: redirects are not followed' });
    } finally {
      receiver.respond = () => ({ status: 200 });
    }
    await waitFor('delivered', () => allDelivered(sub, 1));
  });
});

describe('failing endpoints', () => {
  it('dead-letters a message once its retry window has passed', async () => {
    const sub = await gradeSubscription('/dead');
    receiver.respond = (r) => (r.path === '/dead' ? { status: 503 } : { status: 200 });
    try {
      await gradeChange();
      await waitFor('a failed attempt', async () => (await messages(sub))[0]?.lastStatusCode === 503);
      // Past its 24-hour window (moved back rather than waited for).
      await server.app.ds.getRepository(OutboxMessage).update({ subscriptionId: sub.id }, { retryUntil: new Date(Date.now() - 1000) });
      await waitFor('dead-lettered', async () => (await messages(sub))[0].status === 'dead');
      const attempts = (await messages(sub))[0].attempts;
      await sleep(300);
      expect((await messages(sub))[0].attempts).toBe(attempts);
    } finally {
      receiver.respond = () => ({ status: 200 });
    }
  });

  it('deactivates a subscription whose endpoint keeps failing, dead-letters its messages and stops matching it', async () => {
    const sub = await gradeSubscription('/failing');
    receiver.respond = (r) => (r.path === '/failing' ? { status: 500 } : { status: 200 });
    try {
      await withoutServerDispatcher(async () => {
        // A short streak is tolerated while the endpoint has not been failing for the whole window …
        const patient = dispatcher({ WEBHOOK_DEACTIVATE_FAILURES: 3, WEBHOOK_DEACTIVATE_WINDOW_MS: 3_600_000 }).start();
        await gradeChange();
        await gradeChange();
        await waitFor('three failures', async () => (await server.app.ds.getRepository(WebhookSubscription).findOneByOrFail({ id: sub.id })).consecutiveFailures >= 4);
        await patient.stop();
        expect((await server.app.ds.getRepository(WebhookSubscription).findOneByOrFail({ id: sub.id })).deactivatedAt).toBeNull();
        // … and deactivates once it has (a zero window here).
        const strict = dispatcher({ WEBHOOK_DEACTIVATE_FAILURES: 3, WEBHOOK_DEACTIVATE_WINDOW_MS: 0 }).start();
        await waitFor('deactivated', async () => (await server.app.ds.getRepository(WebhookSubscription).findOneByOrFail({ id: sub.id })).deactivatedAt != null);
        await strict.stop();
      });
      const after = await server.app.ds.getRepository(WebhookSubscription).findOneByOrFail({ id: sub.id });
      expect(after.deactivationReason).toMatch(/failed deliveries in a row since .*; last error: HTTP 500/);
      expect(after.state).toBe('Active');
      await waitFor('all dead', async () => (await messages(sub)).every((m) => m.status === 'dead'));
      // New events no longer produce messages for it.
      await gradeChange();
      expect(await messages(sub)).toHaveLength(2);
    } finally {
      receiver.respond = () => ({ status: 200 });
    }
  });
});

describe('operators: deliveries query and redelivery', () => {
  const DELIVERIES = `query($id: String!, $status: [String!]) { webhookDeliveries(subscriptionId: $id, status: $status, first: 10) {
    totalCount nodes { messageId subscriptionId eventName format status attemptCount lastError lastStatusCode nextAttemptAt retryUntil firstAttemptAt lastAttemptAt deliveredAt createdAt payload } } }`;
  const REDELIVER = `mutation($i: RedeliverWebhookMessageInput!) { redeliverWebhookMessage(input: $i) { delivery { messageId status attemptCount } errors { message } } }`;

  let sub: WebhookSubscription;
  beforeAll(async () => {
    sub = await gradeSubscription('/ops');
    receiver.respond = (r) => (r.path === '/ops' ? { status: 500 } : { status: 200 });
    await gradeChange();
    await waitFor('a failed attempt', async () => (await messages(sub))[0]?.lastStatusCode === 500);
    await server.app.ds.getRepository(OutboxMessage).update({ subscriptionId: sub.id }, { retryUntil: new Date(Date.now() - 1000) });
    await waitFor('dead-lettered', async () => (await messages(sub))[0].status === 'dead');
    receiver.respond = () => ({ status: 200 });
  });

  it("shows a subscription's recent deliveries to site admins", async () => {
    const res = await server.admin.graphql(DELIVERIES, { id: sub.id });
    expect(res.errors).toBeUndefined();
    const [m] = res.data.webhookDeliveries.nodes;
    expect(res.data.webhookDeliveries.totalCount).toBe(1);
    expect(m).toMatchObject({
      subscriptionId: sub.id,
      eventName: 'grade_change',
      format: 'live-event',
      status: 'dead',
      attemptCount: expect.any(Number),
      lastError: 'HTTP 500',
      lastStatusCode: 500,
      nextAttemptAt: null,
      firstAttemptAt: expect.any(String),
      deliveredAt: null,
      payload: { metadata: { event_name: 'grade_change', subscription_id: sub.id }, body: expect.any(Object) },
    });
    const filtered = await server.admin.graphql(DELIVERIES, { id: sub.id, status: ['delivered'] });
    expect(filtered.data.webhookDeliveries.totalCount).toBe(0);
    const bad = await server.admin.graphql(DELIVERIES, { id: sub.id, status: ['lost'] });
    expect(bad.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('hides them from teachers and students (as if the subscription did not exist)', async () => {
    for (const who of [room.teacher, room.student]) {
      const res = await who.api.graphql(DELIVERIES, { id: sub.id });
      expect(res.errors?.[0].extensions.code).toBe('NOT_FOUND');
    }
    expect((await server.as(null).graphql(DELIVERIES, { id: sub.id })).errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('lets an admin of the account redeliver a dead-lettered message: same message id, delivered', async () => {
    const admin = await world.user('Account Admin');
    const other = await world.user('Other Account Admin');
    const sibling = await server.app.ds.getRepository(Account).save(
      server.app.ds.getRepository(Account).create({ name: 'Other faculty', parentAccountId: 1, rootAccountId: 1, uuid: randomUUID().replace(/-/g, '') }),
    );
    await transaction(server.app.ds, async (em) => {
      await AccountService.addAdmin(em, 1, admin.id);
      await AccountService.addAdmin(em, sibling.id, other.id);
    });
    // An admin of another account sees nothing of it.
    expect((await other.api.graphql(DELIVERIES, { id: sub.id })).errors?.[0].extensions.code).toBe('NOT_FOUND');
    const [dead] = await messages(sub);
    const res = await admin.api.graphql(REDELIVER, { i: { messageId: dead.messageId } });
    expect(res.data.redeliverWebhookMessage).toEqual({ delivery: { messageId: dead.messageId, status: 'pending', attemptCount: dead.attempts }, errors: null });
    await waitFor('redelivered', () => allDelivered(sub, 1));
    expect(ids('/ops').filter((id) => id === dead.messageId).length).toBeGreaterThanOrEqual(2);
    const again = await admin.api.graphql(REDELIVER, { i: { messageId: dead.messageId } });
    expect(again.errors?.[0].extensions.code).toBe('CONFLICT');
    const teacher = await room.teacher.api.graphql(REDELIVER, { i: { messageId: dead.messageId } });
    expect(teacher.errors?.[0].extensions.code).toBe('NOT_FOUND');
  });
});
