import { OutboxMessage } from '../src/webhooks/outbox.entity';
import { WEBHOOK_MESSAGE_TOPIC } from '../src/webhooks/outbox';
import { ToolProxy } from '../src/lti/tool-proxy.entity';
import { Dispatcher } from '../src/webhooks/dispatcher';
import { WebhookSubscription } from '../src/webhooks/webhook-subscription.entity';
import { Api } from './support/api';
import { ContentRoom, NOT_FOUND } from './support/content';
import { cap, createProxy, Proxy, toolApi } from './support/lti';
import type { TestServer } from './support/server';
import { HttpsReceiver, subscription, toolProxy, waitFor, webhookRoom, WebhookRoom } from './support/webhooks';
import { wsClient } from './support/ws';

/**
 * A tool's capabilities decide which events it gets, not only which it may subscribe to: when an
 * admin narrows them, its subscriptions drop the event types no longer allowed (one left with none
 * is deleted), new events are matched against the capabilities, and messages already queued for a
 * type it lost are not sent — over HTTPS or graphql-ws. Subscription URLs must be public addresses.
 */
let w: WebhookRoom;
let server: TestServer;
let room: ContentRoom;
let receiver: HttpsReceiver;
let assignmentId: number;

beforeAll(async () => {
  w = await webhookRoom();
  ({ server, room, assignmentId, receivers: [receiver] } = w);
});
afterAll(() => w.close());

const PATH = '/api/lti/subscriptions';
const rc = (event: string) => cap('root_account', event);

const gradeChange = () => w.gradeChange();
const submit = () => w.submit();

/** A tool registered through the admin API, and its client (JWT access token). */
async function tool(capabilities: string[]): Promise<{ proxy: Proxy; api: Api }> {
  const proxy = await createProxy(server, { capabilities, name: `Tool ${capabilities.length}` });
  return { proxy, api: await toolApi(server, proxy) };
}

async function subscribe(api: Api, eventTypes: string[], path: string, context: { type: string; id: number } = { type: 'course', id: room.course.id }) {
  const res = await api.post(PATH, {
    subscription: { ContextType: context.type, ContextId: String(context.id), EventTypes: eventTypes, Format: 'live-event', TransportType: 'https', TransportMetadata: { Url: receiver.url(path) } },
  });
  expect([res.status, res.body]).toEqual([200, expect.objectContaining({ EventTypes: eventTypes })]);
  return res.body as { Id: string; EventTypes: string[] };
}

async function narrow(proxy: Proxy, capabilities: string[]): Promise<void> {
  const res = await server.admin.put(`/api/v1/accounts/1/tool_proxies/${proxy.id}`, { capabilities }, { json: true });
  expect([res.status, res.body.capabilities]).toEqual([200, capabilities]);
}

const messages = (subscriptionId: string) => server.app.ds.getRepository(OutboxMessage).find({ where: { subscriptionId }, order: { id: 'ASC' } });
const eventsOf = async (subscriptionId: string) => (await messages(subscriptionId)).map((m) => m.eventName);

describe('narrowing a tool proxy’s capabilities', () => {
  it('trims its subscriptions to what the capabilities still allow and deletes those left with nothing; listings show it', async () => {
    const { proxy, api } = await tool([rc('grade_change'), rc('submission_created'), cap('assignment', 'submission_updated')]);
    const both = await subscribe(api, ['GRADE_CHANGE', 'submission_created'], '/trim-both');
    const gradeOnly = await subscribe(api, ['grade_change'], '/trim-grade');
    const onAssignment = await subscribe(api, ['submission_created', 'submission_updated'], '/trim-assignment', { type: 'assignment', id: assignmentId });

    await narrow(proxy, [cap('assignment', 'submission_created'), cap('assignment', 'submission_updated')]);

    // Course-level subscriptions need root_account capabilities: nothing is left of them.
    const list = await api.get(PATH);
    expect(list.status).toBe(200);
    expect(list.body.map((s: any) => [s.Id, s.EventTypes, s.State])).toEqual([[onAssignment.Id, ['submission_created', 'submission_updated'], 'Active']]);
    for (const gone of [both, gradeOnly]) expect([(await api.get(`${PATH}/${gone.Id}`)).status, (await api.get(`${PATH}/${gone.Id}`)).body]).toEqual([404, NOT_FOUND]);

    await narrow(proxy, [cap('assignment', 'submission_created')]);
    const [kept] = (await api.get(PATH)).body;
    expect([kept.Id, kept.EventTypes]).toEqual([onAssignment.Id, ['submission_created']]);
    // Deleted ones are not brought back by widening again: the tool subscribes anew.
    await narrow(proxy, [rc('grade_change'), rc('submission_created')]);
    expect((await api.get(PATH)).body.map((s: any) => s.Id)).toEqual([onAssignment.Id]);
    // And a PUT of a type it no longer has is refused as on create.
    const put = await api.put(`${PATH}/${onAssignment.Id}`, {
      subscription: { ContextType: 'course', ContextId: String(room.course.id), EventTypes: ['submission_updated'], Format: 'live-event', TransportType: 'https', TransportMetadata: { Url: receiver.url('/x') } },
    });
    expect(put.status).toBe(401);
  });

  it('stops new events of the types it lost at once, and keeps sending the others', async () => {
    const { proxy, api } = await tool([rc('grade_change'), rc('submission_created')]);
    const both = await subscribe(api, ['grade_change', 'submission_created'], '/live-both');
    const gradeOnly = await subscribe(api, ['grade_change'], '/live-grade');
    await gradeChange();
    expect(await eventsOf(both.Id)).toEqual(['grade_change']);
    await waitFor('the grade_change delivery', async () => (await messages(both.Id))[0].status === 'delivered');

    await narrow(proxy, [rc('submission_created')]);
    await gradeChange();
    await submit();
    // Outbox rows are written in the transaction of the change: nothing more for grade_change.
    expect(await eventsOf(both.Id)).toEqual(['grade_change', 'submission_created']);
    expect(await eventsOf(gradeOnly.Id)).toEqual(['grade_change']);
    const delivered = await waitFor('the submission_created delivery', () => receiver.at('/live-both').find((r) => r.headers['x-event-name'] === 'submission_created'));
    expect(delivered.json.metadata.event_name).toBe('submission_created');
    await waitFor('everything sent', async () => (await messages(both.Id)).every((m) => m.status === 'delivered'));
    expect(receiver.at('/live-both').map((r) => r.headers['x-event-name']).sort()).toEqual(['grade_change', 'submission_created']);
  });

  it('matches events against the capabilities as they are, even for a subscription written under older ones', async () => {
    // A subscription validated while the capabilities were being narrowed in another transaction.
    const proxy = await toolProxy(server, 'Racing tool');
    const sub = await subscription(server, { tool: proxy, context: { type: 'course', id: room.course.id }, eventTypes: ['grade_change', 'submission_created'], url: receiver.url('/race') });
    await server.app.ds.getRepository(ToolProxy).update({ id: proxy.id }, { capabilities: JSON.stringify([rc('submission_created')]) });
    await gradeChange();
    await submit();
    expect(await eventsOf(sub.id)).toEqual(['submission_created']);
    // An assignment-level capability does not cover a course subscription.
    await server.app.ds.getRepository(ToolProxy).update({ id: proxy.id }, { capabilities: JSON.stringify([cap('assignment', 'submission_created')]) });
    await submit();
    expect(await eventsOf(sub.id)).toEqual(['submission_created']);
  });

  it('does not send messages queued before the narrowing (cancelled, not attempted)', async () => {
    const { proxy, api } = await tool([rc('grade_change'), rc('submission_created')]);
    const sub = await subscribe(api, ['grade_change', 'submission_created'], '/queued');
    await server.dispatcher.stop();
    try {
      await gradeChange();
      await submit();
      expect((await messages(sub.Id)).map((m) => [m.eventName, m.status])).toEqual([
        ['grade_change', 'pending'],
        ['submission_created', 'pending'],
      ]);
      await narrow(proxy, [rc('submission_created')]);
      const worker = new Dispatcher({ ds: server.app.ds, config: server.app.config, tokenKey: server.app.tokenKey });
      await worker.drain();
      await worker.stop();
    } finally {
      server.dispatcher.start();
    }
    const [grade, created] = await messages(sub.Id);
    expect(grade).toMatchObject({ eventName: 'grade_change', status: 'cancelled', attempts: 0, lastError: "the tool's capabilities no longer allow grade_change in a course context" });
    expect(created).toMatchObject({ eventName: 'submission_created', status: 'delivered' });
    expect(receiver.at('/queued').map((r) => r.headers['x-event-name'])).toEqual(['submission_created']);
  });

  it('stops graphql-ws messages of the types it lost, including ones written before the narrowing', async () => {
    const { proxy, api } = await tool([rc('grade_change'), rc('submission_created')]);
    const sub = await subscribe(api, ['grade_change', 'submission_created'], '/ws');
    const token = api.token!;
    const { client } = wsClient(server.url, token);
    const got: any[] = [];
    const errors: unknown[] = [];
    const dispose = client.subscribe(
      { query: 'subscription { webhookMessages { messageId subscriptionId eventName } }' },
      { next: (r) => (r.errors ? errors.push(...r.errors) : got.push((r.data as any).webhookMessages)), error: (e) => errors.push(e), complete: () => undefined },
    );
    try {
      // The subscription is live a moment after it is sent: grade until a message comes.
      for (let i = 0; i < 20 && !got.length; i++) {
        await gradeChange();
        await waitFor('a live message', () => got.length > 0, 500).catch(() => undefined);
      }
      expect([got[0]?.eventName, errors]).toEqual(['grade_change', []]);
      const stale = (await messages(sub.Id)).find((m) => m.eventName === 'grade_change')!;

      await narrow(proxy, [rc('submission_created')]);
      const before = got.length;
      // A grade_change written before the narrowing and published after it (as a commit racing
      // the narrowing would), then new events: only submission_created arrives, in order.
      server.app.pubsub.publish(WEBHOOK_MESSAGE_TOPIC, proxy.guid, {
        messageId: stale.messageId,
        subscriptionId: sub.Id,
        eventName: 'grade_change',
        format: 'live-event',
        document: JSON.parse(stale.payload),
      });
      await gradeChange();
      await submit();
      await waitFor('the submission_created message', () => got.slice(before).some((m) => m.eventName === 'submission_created'));
      expect(got.slice(before).map((m) => [m.subscriptionId, m.eventName])).toEqual([[sub.Id, 'submission_created']]);
      expect(errors).toEqual([]);
    } finally {
      dispose();
      await client.dispose();
    }
  });
});

describe('subscription destinations', () => {
  let api: Api;
  beforeAll(async () => {
    ({ api } = await tool([rc('grade_change')]));
  });

  it.each([
    ['a private IPv4 address', 'https://10.1.2.3/hook'],
    ['the metadata service', 'https://169.254.169.254/latest'],
    ['a decimal spelling of a private address', 'https://3232235777/hook'],
    ['an IPv4-mapped private address', 'https://[::ffff:192.168.1.1]/hook'],
    ['an IPv4-compatible address', 'https://[::10.0.0.1]/hook'],
    ['an IPv4-translated (SIIT) address', 'https://[::ffff:0:a00:1]/hook'],
    ['a NAT64 address of a private one', 'https://[64:ff9b::a00:1]/hook'],
    ['a 6to4 address of a private one', 'https://[2002:a00:1::1]/hook'],
    ['a Teredo address of loopback', 'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook'],
    ['a site-local address', 'https://[fec0::1]/hook'],
    ['a unique-local address', 'https://[fd00::1]/hook'],
    ['a link-local address', 'https://[fe80::1]/hook'],
    ['a multicast address', 'https://[ff02::1]/hook'],
    ['the unspecified address', 'https://0.0.0.0/hook'],
  ])('refuses %s at registration (400, nothing stored)', async (_what, url) => {
    const before = await server.app.ds.getRepository(WebhookSubscription).count();
    const res = await api.post(PATH, {
      subscription: { ContextType: 'course', ContextId: String(room.course.id), EventTypes: ['grade_change'], Format: 'live-event', TransportType: 'https', TransportMetadata: { Url: url } },
    });
    expect([res.status, res.body]).toEqual([
      400,
      { error: 'Invalid subscription', errors: [{ field: 'TransportMetadata', message: 'Url must not point to a private, loopback, link-local or reserved address' }] },
    ]);
    expect(await server.app.ds.getRepository(WebhookSubscription).count()).toBe(before);
  });

  it('accepts public and allow-listed hosts, and names that do not resolve yet', async () => {
    for (const url of ['https://93.184.216.34/hook', 'https://[2606:4700:4700::1111]/hook', receiver.url('/allowed', 'localhost'), 'https://tool.invalid/hook']) {
      const res = await api.post(PATH, {
        subscription: { ContextType: 'course', ContextId: String(room.course.id), EventTypes: ['grade_change'], Format: 'live-event', TransportType: 'https', TransportMetadata: { Url: url } },
      });
      expect([url, res.status]).toEqual([url, 200]);
      // Removed again, so later events are not sent to the internet.
      expect((await api.delete(`${PATH}/${res.body.Id}`)).status).toBe(200);
    }
  });

  it('checks again at delivery: a subscription whose host is refused then is not sent to', async () => {
    const proxy = await toolProxy(server, 'Stored elsewhere');
    // Stored without the registration check (as by an older version): refused when delivered.
    const sub = await subscription(server, { tool: proxy, context: { type: 'course', id: room.course.id }, eventTypes: ['grade_change'], url: `https://[2002:a00:1::1]:${receiver.port}/tunnel` });
    await server.dispatcher.stop();
    try {
      await gradeChange();
      const worker = new Dispatcher({ ds: server.app.ds, config: server.app.config, tokenKey: server.app.tokenKey });
      await worker.drain();
      await worker.stop();
    } finally {
      server.dispatcher.start();
    }
    const [m] = await messages(sub.id);
    expect(m).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null });
    expect(m.lastError).toMatch(/refused: 2002:a00:1::1 is a private, loopback, link-local or reserved address \(6to4 address of 10\.0\.0\.1, private/);
  });
});
