import { randomUUID } from 'node:crypto';
import { runCli } from '../src/app/cli';
import { OutboxMessage } from '../src/webhooks/outbox.entity';
import { WebhookSubscription } from '../src/webhooks/webhook-subscription.entity';
import { HttpsReceiver, subscription, toolProxy, WebhookRoom, webhookRoom } from './support/webhooks';

/**
 * Replay (issue 13): an operator re-queues every message of a subscription, or of all subscriptions
 * of a tool, whose event time lies in a window (optionally only the dead ones), through GraphQL
 * replayWebhookMessages or `cli webhooks replay`; receivers get them again under their original
 * message ids. Set-based: a generated outbox of 100,000 rows is re-queued with two statements per
 * chunk of 5,000, not one per row.
 *
 * The server's dispatcher is off: each test delivers with one drain() pass, so what is sent when is
 * decided by the test.
 */
let w: WebhookRoom;
let receiver: HttpsReceiver;

beforeAll(async () => {
  w = await webhookRoom({ env: { WEBHOOK_DISPATCHER: 'off' } });
  receiver = w.receivers[0];
});
afterAll(() => w.close());

const REPLAY = `mutation($input: ReplayWebhookMessagesInput!) { replayWebhookMessages(input: $input) { requeued subscriptions skipped errors { attribute message } } }`;
const repo = () => w.server.app.ds.getRepository(OutboxMessage);
const messages = (sub: { id: string }) => repo().find({ where: { subscriptionId: sub.id }, order: { id: 'ASC' } });

async function listen(path: string, tool?: Awaited<ReturnType<typeof toolProxy>>) {
  return subscription(w.server, { tool: tool ?? (await toolProxy(w.server)), context: { type: 'course', id: w.room.course.id }, eventTypes: ['grade_change'], url: receiver.url(path) });
}

/** Sets the event time (created_at) of messages, so windows can be drawn between them. */
async function eventTime(rows: OutboxMessage[], at: Date) {
  for (const m of rows) await repo().update({ id: m.id }, { createdAt: at });
}

describe('replayWebhookMessages', () => {
  it("re-queues a subscription's messages in the window with their original ids; the others stay as they are", async () => {
    const sub = await listen('/replay');
    for (let i = 0; i < 4; i++) await w.gradeChange();
    await w.server.dispatcher.drain();
    const rows = await messages(sub);
    expect(rows.map((m) => m.status)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
    // Two old events, two recent ones; one of the recent ones dead-lettered.
    await eventTime(rows.slice(0, 2), new Date('2024-01-01T10:00:00Z'));
    await eventTime(rows.slice(2), new Date('2024-01-02T10:00:00Z'));
    await repo().update({ id: rows[3].id }, { status: 'dead' });
    receiver.clear();

    const res = await w.server.admin.graphql(REPLAY, { input: { subscriptionId: sub.id, from: '2024-01-02T00:00:00Z', to: '2024-01-03T00:00:00Z' } });
    expect(res.data.replayWebhookMessages).toEqual({ requeued: 2, subscriptions: 1, skipped: 0, errors: null });
    const after = await messages(sub);
    expect(after.map((m) => m.status)).toEqual(['delivered', 'delivered', 'pending', 'pending']);
    expect(after[2].retryUntil.getTime()).toBeGreaterThan(Date.now());

    await w.server.dispatcher.drain();
    const again = receiver.all('/replay');
    expect(again.map((r) => r.headers['webhook-id']).sort()).toEqual([rows[2].messageId, rows[3].messageId].sort());
    expect(again.every((r) => r.headers['x-message-id'] === r.headers['webhook-id'] && r.json.metadata.message_id === r.headers['webhook-id'])).toBe(true);
    expect((await messages(sub)).map((m) => m.status)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
  });

  it('onlyDead re-queues only the dead-lettered messages of the window; pending ones are never touched', async () => {
    const sub = await listen('/dead-only');
    for (let i = 0; i < 3; i++) await w.gradeChange();
    await w.server.dispatcher.drain();
    const rows = await messages(sub);
    await repo().update({ id: rows[0].id }, { status: 'dead' });
    await repo().update({ id: rows[1].id }, { status: 'pending', nextAttemptAt: new Date(Date.now() + 3_600_000) });
    const res = await w.server.admin.graphql(REPLAY, { input: { subscriptionId: sub.id, from: '2000-01-01T00:00:00Z', to: '2100-01-01T00:00:00Z', onlyDead: true } });
    expect(res.data.replayWebhookMessages.requeued).toBe(1);
    const after = await messages(sub);
    expect(after.map((m) => m.status)).toEqual(['pending', 'pending', 'delivered']);
    expect(after[1].nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + 3_000_000);
    await repo().update({ id: rows[1].id }, { status: 'delivered' });
    await w.server.dispatcher.drain();
  });

  it("replays every subscription of a tool, skipping a deactivated one unless asked to reactivate it", async () => {
    const tool = await toolProxy(w.server, 'Replay tool');
    const [s1, s2] = [await listen('/tool-1', tool), await listen('/tool-2', tool)];
    await w.gradeChange();
    await w.server.dispatcher.drain();
    await w.server.app.ds.getRepository(WebhookSubscription).update({ id: s2.id }, { deactivatedAt: new Date(), deactivationReason: 'failing' });
    const input = { toolProxyId: String(tool.id), from: '2000-01-01T00:00:00Z', to: '2100-01-01T00:00:00Z' };
    let res = await w.server.admin.graphql(REPLAY, { input });
    expect(res.data.replayWebhookMessages).toEqual({ requeued: 1, subscriptions: 1, skipped: 1, errors: null });
    expect((await messages(s2))[0].status).toBe('delivered');
    res = await w.server.admin.graphql(REPLAY, { input: { ...input, reactivate: true } });
    // s1's message is pending already (left alone); s2 is reactivated and its message re-queued.
    expect(res.data.replayWebhookMessages).toEqual({ requeued: 1, subscriptions: 2, skipped: 0, errors: null });
    expect((await w.server.app.ds.getRepository(WebhookSubscription).findOneByOrFail({ id: s2.id })).deactivatedAt).toBeNull();
    receiver.clear();
    await w.server.dispatcher.drain();
    expect(receiver.all('/tool-1').map((r) => r.headers['webhook-id'])).toEqual([(await messages(s1))[0].messageId]);
    expect(receiver.all('/tool-2').map((r) => r.headers['webhook-id'])).toEqual([(await messages(s2))[0].messageId]);
  });

  it('answers NOT_FOUND to callers who do not administer the subscription or tool, and validation errors for a bad window or target', async () => {
    const sub = await listen('/guarded');
    const tool = await toolProxy(w.server, 'Guarded tool');
    const window = { from: '2000-01-01T00:00:00Z', to: '2100-01-01T00:00:00Z' };
    for (const input of [{ subscriptionId: sub.id, ...window }, { toolProxyId: String(tool.id), ...window }, { subscriptionId: randomUUID(), ...window }]) {
      const res = await w.room.teacher.api.graphql(REPLAY, { input });
      expect(res.status).toBe(200);
      expect(res.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    }
    for (const input of [window, { subscriptionId: sub.id, toolProxyId: String(tool.id), ...window }, { subscriptionId: sub.id, from: window.to, to: window.from }]) {
      const res = await w.server.admin.graphql(REPLAY, { input });
      expect(res.data.replayWebhookMessages.requeued).toBeNull();
      expect(res.data.replayWebhookMessages.errors).toHaveLength(1);
    }
  });
});

describe('cli webhooks replay', () => {
  const cli = async (args: string[]) => {
    const out = { text: '', write: (t: string) => (out.text += t) };
    const err = { text: '', write: (t: string) => (err.text += t) };
    const code = await runCli(['webhooks', 'replay', ...args], { out, err, env: { DATABASE_URL: w.server.db.url, LOG_LEVEL: 'silent' } });
    return { code, out: out.text, err: err.text };
  };

  it('refuses bad arguments with a message and a non-zero exit, before touching the database', async () => {
    for (const args of [[], ['--subscription', 'x'], ['--subscription', 'x', '--tool', '1', '--from', '2024-01-01', '--to', '2024-01-02'], ['--tool', 'one', '--from', '2024-01-01', '--to', '2024-01-02'], ['--subscription', 'x', '--from', '2024-01-02', '--to', '2024-01-01'], ['--subscription', 'x', '--from', 'yesterday', '--to', '2024-01-01']]) {
      const r = await cli(args);
      expect(r.code).not.toBe(0);
      expect(r.err).toMatch(/webhooks replay: /);
    }
  });

  // The CLI opens the database itself: only a database another process can open (MariaDB here).
  (engine() === 'mysql' ? it : it.skip)('re-queues the window and prints the counts', async () => {
    const sub = await listen('/cli');
    await w.gradeChange();
    await w.server.dispatcher.drain();
    const r = await cli(['--subscription', sub.id, '--from', '2000-01-01T00:00:00Z', '--to', '2100-01-01T00:00:00Z']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out.trim().split('\n').pop()!)).toEqual({ requeued: 1, subscriptions: 1, skipped: 0 });
    expect((await messages(sub))[0].status).toBe('pending');
    await w.server.dispatcher.drain();
  });
});

/** The engine of this run (the CLI opens the database itself, which an in-memory SQLite one does not allow). */
function engine(): string {
  return (process.env.DATABASE_URL ?? '').startsWith('mysql://') ? 'mysql' : 'sqlite';
}

describe('replay at scale', () => {
  const TOTAL = 100_000;

  it(`re-queues ${TOTAL.toLocaleString('en')} messages with two statements per chunk of 5,000`, async () => {
    const ds = w.server.app.ds;
    const mysql = engine() === 'mysql';
    const sub = await listen('/bulk');
    // A generated outbox: 1,000 rows, then doubled by INSERT … SELECT up to TOTAL (fresh message ids).
    const at = new Date('2024-03-01T12:00:00Z');
    const seed = Array.from({ length: 1000 }, () =>
      repo().create({
        messageId: randomUUID(),
        subscriptionId: sub.id,
        toolProxyId: sub.toolProxyId,
        eventName: 'grade_change',
        format: 'live-event',
        payload: '{}',
        status: 'dead',
        attempts: 3,
        nextAttemptAt: at,
        retryUntil: at,
        leaseToken: null,
        claimedBy: null,
        lastError: 'HTTP 500',
        lastStatusCode: 500,
        firstAttemptAt: at,
        lastAttemptAt: at,
        deliveredAt: null,
        createdAt: at,
        updatedAt: at,
      }),
    );
    for (let i = 0; i < seed.length; i += 200) await repo().insert(seed.slice(i, i + 200));
    const uuid = mysql ? 'UUID()' : 'lower(hex(randomblob(16)))';
    const cols = 'subscription_id, tool_proxy_id, event_name, format, payload, status, attempts, next_attempt_at, retry_until, last_error, last_status_code, first_attempt_at, last_attempt_at, created_at, updated_at';
    for (let n = 1000; n < TOTAL; ) {
      const add = Math.min(n, TOTAL - n);
      await ds.query(`INSERT INTO outbox_messages (message_id, ${cols}) SELECT ${uuid}, ${cols} FROM outbox_messages WHERE subscription_id = ? ORDER BY id LIMIT ${add}`, [sub.id]);
      n += add;
    }
    expect(await repo().countBy({ subscriptionId: sub.id, status: 'dead' })).toBe(TOTAL);

    const before = w.server.queryCount();
    const started = performance.now();
    const res = await w.server.admin.graphql(REPLAY, { input: { subscriptionId: sub.id, from: '2024-03-01T00:00:00Z', to: '2024-03-02T00:00:00Z', onlyDead: true } });
    const seconds = (performance.now() - started) / 1000;
    const statements = w.server.queryCount() - before;
    expect(res.data.replayWebhookMessages).toEqual({ requeued: TOTAL, subscriptions: 1, skipped: 0, errors: null });
    expect(await repo().countBy({ subscriptionId: sub.id, status: 'pending' })).toBe(TOTAL);
    // 20 chunks of a SELECT and an UPDATE (each in its transaction), one empty last SELECT/UPDATE, and
    // the request's own lookups: far from one statement per row.
    expect(statements).toBeLessThan(120);
    console.log(`replay: ${TOTAL} messages re-queued in ${seconds.toFixed(2)} s with ${statements} statements (${engine()})`);
    // Not sent anywhere: the rows go, so later drains stay small.
    await repo().delete({ subscriptionId: sub.id });
  });
});
