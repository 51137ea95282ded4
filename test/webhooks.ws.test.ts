import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from 'graphql-ws';
import { issueToolAccessToken } from '../src/lti/lti-tokens';
import type { ToolProxy } from '../src/lti/tool-proxy.entity';
import { contentRoom, ContentRoom } from './support/content';
import { testDatabase } from './support/db';
import { requireRedis, TEST_REDIS_URL } from './support/redis';
import { startTestServer, TestServer } from './support/server';
import { HttpsReceiver, subscription, toolProxy, waitFor, webhookRoom, WebhookRoom } from './support/webhooks';
import { World } from './support/world';
import { wsClient } from './support/ws';

/**
 * A tool opens graphql-ws with its LTI JWT access token and receives its subscriptions' messages
 * live, as the HTTPS deliveries carry them; with REDIS_URL the messages reach it on another instance.
 */
let w: WebhookRoom;
let server: TestServer;
let room: ContentRoom;
let receiver: HttpsReceiver;

beforeAll(async () => {
  w = await webhookRoom();
  ({ server, room, receivers: [receiver] } = w);
});
afterAll(() => w.close());

const MESSAGES = `subscription($id: String) { webhookMessages(subscriptionId: $id) { messageId subscriptionId eventName format document } }`;

const gradeChange = () => w.gradeChange();

interface Listener {
  got: any[];
  errors: unknown[];
  dispose(): void;
}

function listen(client: Client, variables: Record<string, unknown> = {}): Listener {
  const l: Listener = { got: [], errors: [], dispose: () => undefined };
  l.dispose = client.subscribe(
    { query: MESSAGES, variables },
    { next: (r) => (r.errors ? l.errors.push(...r.errors) : l.got.push((r.data as any).webhookMessages)), error: (e) => l.errors.push(e), complete: () => undefined },
  );
  return l;
}

/** Causes events until the listener has one (a subscription is live a moment after it is sent). */
async function untilReceived(l: Listener, cause: () => Promise<void>, tries = 20): Promise<any> {
  for (let i = 0; i < tries; i++) {
    await cause();
    try {
      return await waitFor('a live message', () => l.got[0], 500);
    } catch {
      // not subscribed yet: cause another
    }
  }
  throw new Error(`no live message (errors: ${JSON.stringify(l.errors)})`);
}

const tokenFor = (s: TestServer, tool: ToolProxy) => issueToolAccessToken(s.app.tokenKey, tool.guid, new URL(s.url).host);

describe('webhookMessages over graphql-ws', () => {
  it("delivers a tool's messages live, the same documents as its HTTPS deliveries, and no other tool's", async () => {
    const tool = await toolProxy(server, 'Live tool');
    const otherTool = await toolProxy(server, 'Other tool');
    const live = await subscription(server, { tool, context: { type: 'course', id: room.course.id }, eventTypes: ['grade_change'], url: receiver.url('/ws-live') });
    const caliper = await subscription(server, { tool, context: { type: 'course', id: room.course.id }, eventTypes: ['grade_change'], format: 'caliper', url: receiver.url('/ws-caliper') });
    await subscription(server, { tool: otherTool, context: { type: 'course', id: room.course.id }, eventTypes: ['grade_change'], url: receiver.url('/ws-other') });

    const { client } = wsClient(server.url, await tokenFor(server, tool));
    const l = listen(client);
    try {
      await untilReceived(l, () => gradeChange());
      await waitFor('both formats', () => l.got.length >= 2 && l.got.length % 2 === 0);
      expect(l.errors).toEqual([]);
      expect(new Set(l.got.map((m) => m.subscriptionId))).toEqual(new Set([live.id, caliper.id]));
      // The same message ids and documents as the HTTPS deliveries.
      for (const m of l.got) {
        const delivered = await waitFor('its HTTPS delivery', () => receiver.received.find((r) => r.headers['x-message-id'] === m.messageId));
        expect(delivered.headers['x-subscription-id']).toBe(m.subscriptionId);
        if (m.format === 'live-event') expect(m.document).toEqual(delivered.json);
        else expect({ ...m.document, sendTime: null }).toEqual({ ...delivered.json, sendTime: null });
      }
    } finally {
      l.dispose();
      await client.dispose();
    }
  });

  it('filters by subscription id', async () => {
    const tool = await toolProxy(server, 'Filtering tool');
    const wanted = await subscription(server, { tool, context: { type: 'course', id: room.course.id }, eventTypes: ['grade_change'], url: receiver.url('/ws-a') });
    await subscription(server, { tool, context: { type: 'course', id: room.course.id }, eventTypes: ['grade_change'], url: receiver.url('/ws-b') });
    const { client } = wsClient(server.url, await tokenFor(server, tool));
    const l = listen(client, { id: wanted.id });
    try {
      await untilReceived(l, () => gradeChange());
      await gradeChange();
      await waitFor('two messages', () => l.got.length >= 2);
      expect(l.got.every((m) => m.subscriptionId === wanted.id)).toBe(true);
    } finally {
      l.dispose();
      await client.dispose();
    }
  });

  it("refuses a user's token for the subscription, and a bad or foreign JWT at connection", async () => {
    const { client } = wsClient(server.url, room.teacher.token);
    const l = listen(client);
    try {
      await waitFor('an error', () => l.errors.length > 0);
      expect((l.errors[0] as any).extensions?.code ?? (l.errors[0] as any)[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    } finally {
      l.dispose();
      await client.dispose();
    }
    const tool = await toolProxy(server, 'Token tool');
    const wrongHost = await issueToolAccessToken(server.app.tokenKey, tool.guid, 'elsewhere.example.com');
    for (const token of [wrongHost, 'aaa.bbb.ccc']) {
      const bad = wsClient(server.url, token);
      const lb = listen(bad.client);
      expect(await bad.closed).toBe(4403);
      lb.dispose();
      await bad.client.dispose();
    }
  });
});

describe('across instances with REDIS_URL', () => {
  it('a message committed on one instance reaches a tool connected to another', async () => {
    // Two instances of one deployment: one database, one Redis.
    const shared = testDatabase();
    await shared.ready?.();
    const file = path.join(os.tmpdir(), `webhooks-ws-${process.pid}-${Date.now()}.sqlite`);
    const url = shared.kind === 'mysql' ? shared.url : `sqlite:${file}`;
    await requireRedis();
    const env = { DATABASE_URL: url, REDIS_URL: TEST_REDIS_URL, WEBHOOK_DISPATCHER: 'off' };
    const a = await startTestServer(env);
    const b = await startTestServer(env);
    try {
      expect(a.app.pubsub.kind).toBe('redis');
      const roomA = await contentRoom(new World(a));
      const tool = await toolProxy(a, 'Redis tool');
      const sub = await subscription(a, { tool, context: { type: 'course', id: roomA.course.id }, eventTypes: ['submission_created'], url: 'https://tool.example.com/hook' });
      const asg = await roomA.teacher.api.post(`/api/v1/courses/${roomA.course.id}/assignments`, {
        assignment: { name: 'Redis essay', published: true, submission_types: ['online_text_entry'] },
      });
      const { client } = wsClient(b.url, await tokenFor(b, tool));
      const l = listen(client, { id: sub.id });
      try {
        const m = await untilReceived(l, async () => {
          const res = await roomA.student.api.post(`/api/v1/courses/${roomA.course.id}/assignments/${asg.body.id}/submissions`, { submission: { submission_type: 'online_text_entry', body: 'via redis' } });
          expect(res.status).toBe(201);
        });
        expect(m).toMatchObject({ subscriptionId: sub.id, eventName: 'submission_created', format: 'live-event' });
        expect(m.document.metadata).toMatchObject({ event_name: 'submission_created', subscription_id: sub.id, message_id: m.messageId });
        expect(m.document.body).toMatchObject({ assignment_id: String(asg.body.id), body: 'via redis' });
      } finally {
        l.dispose();
        await client.dispose();
      }
    } finally {
      await b.close();
      await a.close();
      await shared.drop();
      for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
    }
  });
});
