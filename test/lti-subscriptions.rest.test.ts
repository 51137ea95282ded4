import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { Account } from '../src/accounts/account.entity';
import { ConfigError, loadConfig } from '../src/config';
import { accessTokenKey } from '../src/lti/lti-keys';
import { WebhookSubscription } from '../src/webhooks/webhook-subscription.entity';
import { Api } from './support/api';
import { count, ISO, NOT_FOUND, UNAUTHENTICATED } from './support/content';
import { ALL, assignmentIn, cap, courseIn, createProxy, Proxy, subAccount, toolApi, toolToken } from './support/lti';
import { startTestServer, TestServer } from './support/server';
import { World } from './support/world';

let server: TestServer;
let world: World;
let rootUuid: string;
/** Root-account tool with every capability, and its client. */
let allProxy: Proxy;
let tool: Api;
let c1: { id: number };
let a1: { id: number };
let science: Account;
let c2: { id: number };
let a2: { id: number };

const PATH = '/api/lti/subscriptions';
const UNAUTHORIZED_SUB = { error: 'Unauthorized subscription' };
const RECORD_KEYS = [
  'AssociatedIntegrationId', 'ContextId', 'ContextType', 'CreatedAt', 'DeveloperKey', 'EventTypes', 'Format', 'Id', 'OwnerId', 'OwnerType',
  'RootAccountId', 'RootAccountUUID', 'State', 'TransportMetadata', 'TransportType', 'UpdatedAt', 'UpdatedBy', 'UpdatedByType',
];

/** The SQS accounts this server delivers to; 210987654321 stands for one it does not (the operator's own, say). */
const SQS_ALLOWED = '123456789012,000000000000';
const FOREIGN_QUEUE = 'https://sqs.us-east-1.amazonaws.com/210987654321/internal-jobs';

beforeAll(async () => {
  server = await startTestServer({ SQS_ALLOWED_ACCOUNT_IDS: SQS_ALLOWED });
  world = new World(server);
  rootUuid = (await server.app.ds.getRepository(Account).findOneByOrFail({ id: 1 })).uuid;
  allProxy = await createProxy(server, { capabilities: [ALL], name: 'All' });
  tool = await toolApi(server, allProxy);
  c1 = await courseIn(server, 1, 'Root course');
  a1 = await assignmentIn(server, c1.id);
  ({ account: science } = await subAccount(server, world, 'Science'));
  c2 = await courseIn(server, science.id, 'Science course');
  a2 = await assignmentIn(server, c2.id);
});
afterAll(() => server.close());

const subs = () => count(server, 'webhook_subscriptions');

function sub(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ContextType: 'course',
    ContextId: String(c1.id),
    EventTypes: ['submission_created'],
    Format: 'live-event',
    TransportType: 'https',
    TransportMetadata: { Url: 'https://tool.example/webhooks' },
    ...overrides,
  };
}

async function create(api: Api, overrides: Record<string, unknown> = {}, json = false) {
  return api.post(PATH, { subscription: sub(overrides) }, { json });
}

/** Creates one that must succeed and returns the record. */
async function created(api: Api, overrides: Record<string, unknown> = {}) {
  const res = await create(api, overrides);
  if (res.status !== 200) throw new Error(`create subscription: ${res.status} ${res.text}`);
  return res.body;
}

describe('authentication: tool JWT access tokens only', () => {
  it('refuses no token and a user’s token with Canvas’s 401 and WWW-Authenticate, on every route', async () => {
    const id = (await created(tool)).Id;
    for (const api of [server.as(null), server.admin]) {
      for (const [method, path] of [['POST', PATH], ['GET', PATH], ['GET', `${PATH}/${id}`], ['PUT', `${PATH}/${id}`], ['DELETE', `${PATH}/${id}`]]) {
        const res = await api.request(method, path, method === 'POST' || method === 'PUT' ? { subscription: sub() } : undefined);
        expect(res.status).toBe(401);
        expect(res.body).toEqual(UNAUTHENTICATED);
        expect(res.headers.get('www-authenticate')).toBe('Bearer realm="canvas-lms"');
      }
    }
  });

  it('refuses forged, expired, other-host and not-yet-valid tokens', async () => {
    const key = accessTokenKey(server.app.tokenKey);
    const host = new URL(server.url).host;
    const now = Math.floor(Date.now() / 1000);
    const make = (claims: Record<string, unknown>, k: Uint8Array = key) =>
      new SignJWT({ iss: 'Canvas', sub: allProxy.guid, aud: host, iat: now, nbf: now - 30, exp: now + 3600, jti: randomUUID(), ...claims })
        .setProtectedHeader({ alg: 'HS256' })
        .sign(k);
    expect((await server.as(await make({})).get(PATH)).status).toBe(200);
    for (const token of [
      await make({}, new TextEncoder().encode('not the server key, not the server key!')),
      await make({ exp: now - 1 }),
      await make({ aud: 'elsewhere.example' }),
      await make({ iss: allProxy.guid }),
      await make({ nbf: now + 600 }),
      await make({ iat: now + 600 }),
      await make({ jti: undefined }),
      await make({ sub: randomUUID() }),
      // The tool's own assertion is not an access token.
      await new SignJWT({ sub: allProxy.guid, aud: host, iat: now, exp: now + 50, jti: randomUUID() }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(allProxy.shared_secret)),
    ]) {
      const res = await server.as(token).get(PATH);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNAUTHENTICATED);
    }
  });

  it('accepts the token as access_token too, and is not a user token anywhere else', async () => {
    const token = await toolToken(server, allProxy);
    expect((await server.as(null).get(`${PATH}?access_token=${token}`)).status).toBe(200);
    expect((await server.as(token).get('/api/v1/users/self')).status).toBe(401);
  });

  it('a token from a course authorize endpoint works the same', async () => {
    const api = await toolApi(server, allProxy, `/api/lti/courses/${c1.id}/authorize`);
    expect((await api.get(PATH)).status).toBe(200);
  });
});

describe('create, show, update, delete', () => {
  it('stores and answers the record as Canvas’s subscription service returns it', async () => {
    const res = await create(tool, { EventTypes: ['submission_created', 'grade_change'] });
    expect(res.status).toBe(200);
    // Canvas's record, plus the Standard Webhooks secret shown only in this answer (test/webhooks.signatures.test.ts).
    const { Secret, ...r } = res.body;
    expect(Secret).toMatch(/^whsec_/);
    expect(Object.keys(r).sort()).toEqual(RECORD_KEYS);
    expect(r).toMatchObject({
      ContextId: String(c1.id),
      ContextType: 'course',
      EventTypes: ['submission_created', 'grade_change'],
      Format: 'live-event',
      TransportType: 'https',
      TransportMetadata: { Url: 'https://tool.example/webhooks' },
      OwnerId: allProxy.guid,
      OwnerType: 'external_tool',
      DeveloperKey: String(10_000_000_000_000 + allProxy.id),
      RootAccountId: 1,
      RootAccountUUID: rootUuid,
      AssociatedIntegrationId: allProxy.guid,
      State: 'Active',
      UpdatedBy: allProxy.guid,
      UpdatedByType: 'external_tool',
    });
    expect(r.Id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(r.CreatedAt).toMatch(ISO);
    expect(r.UpdatedAt).toMatch(ISO);
    const row = await server.app.ds.getRepository(WebhookSubscription).findOneByOrFail({ id: r.Id });
    expect(row).toMatchObject({ toolProxyId: allProxy.id, matchType: 'Course', matchId: c1.id, rootAccountId: 1, state: 'Active', transportUrl: 'https://tool.example/webhooks' });

    const shown = await tool.get(`${PATH}/${r.Id}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual(r);
  });

  it('takes JSON bodies and the spec’s upper-case event names, stored as sent', async () => {
    const res = await create(tool, { ContextType: 'assignment', ContextId: a1.id, EventTypes: ['SUBMISSION_CREATED', 'PLAGIARISM_RESUBMIT', 'submission_created'], Format: 'caliper', TransportType: 'sqs', TransportMetadata: { Url: 'https://sqs.us-east-1.amazonaws.com/123456789012/plagiarism' } }, true);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ContextType: 'assignment', ContextId: String(a1.id), EventTypes: ['SUBMISSION_CREATED', 'PLAGIARISM_RESUBMIT'], Format: 'caliper', TransportType: 'sqs' });
    const row = await server.app.ds.getRepository(WebhookSubscription).findOneByOrFail({ id: res.body.Id });
    expect(row).toMatchObject({ matchType: 'Assignment', matchId: a1.id, rootAccountId: 1 });
  });

  it('accepts the root account by uuid, a sub-account, and a local SQS-compatible queue', async () => {
    const root = await created(tool, { ContextType: 'root_account', ContextId: rootUuid });
    expect(root).toMatchObject({ ContextType: 'root_account', ContextId: rootUuid, RootAccountUUID: rootUuid });
    const acct = await created(tool, { ContextType: 'account', ContextId: String(science.id), TransportType: 'sqs', TransportMetadata: { Url: 'http://127.0.0.1:9324/000000000000/local-queue' } });
    expect(acct).toMatchObject({ ContextType: 'account', TransportType: 'sqs' });
    const row = await server.app.ds.getRepository(WebhookSubscription).findOneByOrFail({ id: acct.Id });
    expect(row).toMatchObject({ matchType: 'Account', matchId: science.id });
  });

  it('updates with the full parameters again, and validates them again', async () => {
    const r = await created(tool);
    const res = await tool.put(`${PATH}/${r.Id}`, { subscription: sub({ EventTypes: ['grade_change'], Format: 'caliper', TransportMetadata: { Url: 'https://tool.example/v2' } }) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ Id: r.Id, EventTypes: ['grade_change'], Format: 'caliper', TransportMetadata: { Url: 'https://tool.example/v2' }, CreatedAt: r.CreatedAt });

    const bad = await tool.put(`${PATH}/${r.Id}`, { subscription: sub({ Format: 'xml' }) });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('Invalid subscription');
    const missing = await tool.put(`${PATH}/${r.Id}`, {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ errors: [{ message: 'subscription is missing' }] });
    expect((await tool.get(`${PATH}/${r.Id}`)).body).toMatchObject({ EventTypes: ['grade_change'], Format: 'caliper' });
  });

  it('deletes: the record comes back with State Deleted; later GET, PUT and DELETE are 404', async () => {
    const r = await created(tool);
    const res = await tool.delete(`${PATH}/${r.Id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ Id: r.Id, State: 'Deleted' });
    expect((await server.app.ds.getRepository(WebhookSubscription).findOneByOrFail({ id: r.Id })).state).toBe('Deleted');
    for (const res2 of [await tool.get(`${PATH}/${r.Id}`), await tool.put(`${PATH}/${r.Id}`, { subscription: sub() }), await tool.delete(`${PATH}/${r.Id}`)]) {
      expect(res2.status).toBe(404);
      expect(res2.body).toEqual(NOT_FOUND);
    }
    expect((await tool.get(`${PATH}/${randomUUID()}`)).status).toBe(404);
    expect((await tool.get(`${PATH}/not-a-uuid`)).status).toBe(404);
  });

  it('a tool cannot see, change or delete another tool’s subscription', async () => {
    const r = await created(tool);
    const other = await toolApi(server, await createProxy(server, { name: 'Other' }));
    for (const res of [await other.get(`${PATH}/${r.Id}`), await other.put(`${PATH}/${r.Id}`, { subscription: sub() }), await other.delete(`${PATH}/${r.Id}`)]) {
      expect(res.status).toBe(404);
    }
    expect((await other.get(PATH)).body).toEqual([]);
    expect((await tool.get(`${PATH}/${r.Id}`)).body.State).toBe('Active');
  });
});

describe('validation: Canvas’s statuses and bodies, nothing stored', () => {
  it('answers 400 "subscription is missing" without subscription[…]', async () => {
    const before = await subs();
    for (const body of [{}, { subscription: '' }, { other: { ContextId: '1' } }]) {
      const res = await tool.post(PATH, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ errors: [{ message: 'subscription is missing' }] });
    }
    expect((await tool.post(PATH, { subscription: {} }, { json: true })).status).toBe(400);
    expect(await subs()).toBe(before);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an unknown ContextType', { ContextType: 'group' }, 'ContextType'],
    ['a missing ContextType', { ContextType: undefined }, 'ContextType'],
    ['a missing ContextId', { ContextId: undefined }, 'ContextId'],
    ['a non-numeric ContextId', { ContextId: 'sis_course_id:abc' }, 'ContextId'],
    ['missing EventTypes', { EventTypes: undefined }, 'EventTypes'],
    ['an unknown event type', { EventTypes: ['submission_created', 'assignment_created'] }, 'EventTypes'],
    ['an old doc spelling of an event type', { EventTypes: ['GRADE_CHANGED'] }, 'EventTypes'],
    ['an unknown Format', { Format: 'json' }, 'Format'],
    ['a missing Format', { Format: undefined }, 'Format'],
    ['an unknown TransportType', { TransportType: 'sns' }, 'TransportType'],
    ['missing TransportMetadata', { TransportMetadata: undefined }, 'TransportMetadata'],
    ['TransportMetadata without Url', { TransportMetadata: { Endpoint: 'https://x.example' } }, 'TransportMetadata'],
    ['an http Url for https', { TransportMetadata: { Url: 'http://tool.example/hook' } }, 'TransportMetadata'],
    ['a relative Url', { TransportMetadata: { Url: '/hook' } }, 'TransportMetadata'],
    ['a Url with credentials', { TransportMetadata: { Url: 'https://user:pw@tool.example/hook' } }, 'TransportMetadata'],
    ['a non-queue Url for sqs', { TransportType: 'sqs', TransportMetadata: { Url: 'https://tool.example/hook' } }, 'TransportMetadata'],
    ['a FIFO queue', { TransportType: 'sqs', TransportMetadata: { Url: 'https://sqs.us-east-1.amazonaws.com/123456789012/q.fifo' } }, 'TransportMetadata'],
    ['a plain-http queue off loopback', { TransportType: 'sqs', TransportMetadata: { Url: 'http://sqs.us-east-1.amazonaws.com/123456789012/q' } }, 'TransportMetadata'],
  ])('answers 400 "Invalid subscription" for %s', async (_what, overrides, field) => {
    const before = await subs();
    const res = await create(tool, overrides);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid subscription');
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(await subs()).toBe(before);
  });

  it('reports every bad value at once', async () => {
    const res = await create(tool, { Format: 'x', TransportType: 'y', EventTypes: ['z'] });
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['EventTypes', 'Format', 'TransportType']);
  });

  describe('contexts the tool may not reach: 401 "Unauthorized subscription"', () => {
    let sciTool: Api;
    let courseTool: Api;
    beforeAll(async () => {
      sciTool = await toolApi(server, await createProxy(server, { accountId: science.id, name: 'Science tool' }), `/api/lti/accounts/${science.id}/authorize`);
      courseTool = await toolApi(server, await createProxy(server, { contextType: 'Course', contextId: c1.id, name: 'Course tool' }), `/api/lti/courses/${c1.id}/authorize`);
    });

    it.each<[string, () => Api, () => Record<string, unknown>]>([
      ['a sub-account tool → a root-account course', () => sciTool, () => ({ ContextId: String(c1.id) })],
      ['a sub-account tool → an assignment of a root-account course', () => sciTool, () => ({ ContextType: 'assignment', ContextId: String(a1.id) })],
      ['a sub-account tool → the root account', () => sciTool, () => ({ ContextType: 'account', ContextId: '1' })],
      ['a sub-account tool → root_account', () => sciTool, () => ({ ContextType: 'root_account', ContextId: rootUuid })],
      ['a course tool → another course', () => courseTool, () => ({ ContextId: String(c2.id) })],
      ['a course tool → its account', () => courseTool, () => ({ ContextType: 'account', ContextId: '1' })],
      ['any tool → a course that does not exist', () => tool, () => ({ ContextId: '999999' })],
      ['any tool → an assignment that does not exist', () => tool, () => ({ ContextType: 'assignment', ContextId: '999999' })],
      ['any tool → an unknown root account uuid', () => tool, () => ({ ContextType: 'root_account', ContextId: randomUUID() })],
      ['any tool → root_account named by a sub-account uuid', () => tool, () => ({ ContextType: 'root_account', ContextId: science.uuid })],
    ])('%s', async (_what, api, overrides) => {
      const before = await subs();
      const res = await create(api(), overrides());
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNAUTHORIZED_SUB);
      expect(await subs()).toBe(before);
    });

    it('accepts what they are installed in, or beneath', async () => {
      expect((await create(sciTool, { ContextId: String(c2.id) })).status).toBe(200);
      expect((await create(sciTool, { ContextType: 'assignment', ContextId: String(a2.id) })).status).toBe(200);
      expect((await create(sciTool, { ContextType: 'account', ContextId: String(science.id) })).status).toBe(200);
      expect((await create(courseTool, { ContextId: String(c1.id) })).status).toBe(200);
      expect((await create(courseTool, { ContextType: 'assignment', ContextId: String(a1.id) })).status).toBe(200);
    });
  });

  describe('capabilities', () => {
    let limited: Api;
    beforeAll(async () => {
      limited = await toolApi(server, await createProxy(server, { capabilities: [cap('root_account', 'grade_change'), cap('assignment', 'submission_created')], name: 'Limited' }));
    });

    it('root_account.<event> allows that event in any context', async () => {
      expect((await create(limited, { EventTypes: ['grade_change'] })).status).toBe(200);
      expect((await create(limited, { EventTypes: ['GRADE_CHANGE'], ContextType: 'root_account', ContextId: rootUuid })).status).toBe(200);
    });

    it('assignment.<event> allows it for assignment contexts only', async () => {
      expect((await create(limited, { ContextType: 'assignment', ContextId: String(a1.id), EventTypes: ['submission_created', 'grade_change'] })).status).toBe(200);
      const before = await subs();
      const res = await create(limited, { EventTypes: ['submission_created'] });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('Unauthorized subscription');
      expect(res.body.errors[0].field).toBe('EventTypes');
      expect(await subs()).toBe(before);
    });

    it('an event without any of its capabilities is refused, even alongside allowed ones', async () => {
      const before = await subs();
      for (const overrides of [{ EventTypes: ['grade_change', 'quiz_submitted'] }, { ContextType: 'assignment', ContextId: String(a1.id), EventTypes: ['attachment_created'] }]) {
        const res = await create(limited, overrides);
        expect(res.status).toBe(401);
        expect(res.body.error).toBe('Unauthorized subscription');
      }
      expect(await subs()).toBe(before);
    });

    it('root_account.all allows every event type in every context', async () => {
      const all = ['QUIZ_SUBMITTED', 'GRADE_CHANGE', 'ATTACHMENT_CREATED', 'SUBMISSION_CREATED', 'SUBMISSION_UPDATED', 'PLAGIARISM_RESUBMIT'];
      for (const ctx of [{ ContextType: 'course', ContextId: String(c1.id) }, { ContextType: 'account', ContextId: '1' }, { ContextType: 'assignment', ContextId: String(a1.id) }]) {
        const res = await create(tool, { ...ctx, EventTypes: all });
        expect(res.status).toBe(200);
        expect(res.body.EventTypes).toEqual(all);
      }
    });
  });
});

describe('GET /api/lti/subscriptions: StartKey/EndKey paging', () => {
  it('pages 100 at a time by Id, EndKey while more follow, StartKey for the next page, no Link', async () => {
    const proxy = await createProxy(server, { name: 'Busy tool' });
    const api = await toolApi(server, proxy);
    const ids: string[] = [];
    for (let batch = 0; batch < 5; batch++) {
      const made = await Promise.all(Array.from({ length: 50 }, () => created(api)));
      ids.push(...made.map((r) => r.Id as string));
    }
    // A deleted one is not listed.
    await api.delete(`${PATH}/${ids.pop()}`);
    ids.sort();

    const page1 = await api.get(PATH);
    expect(page1.status).toBe(200);
    expect(page1.headers.get('link')).toBeNull();
    expect(page1.body).toHaveLength(100);
    const endKey1 = page1.headers.get('endkey')!;
    expect(JSON.parse(endKey1)).toEqual({ Id: ids[99], DeveloperKey: String(10_000_000_000_000 + proxy.id) });

    const page2 = await api.with({ StartKey: endKey1 }).get(PATH);
    expect(page2.body).toHaveLength(100);
    const endKey2 = page2.headers.get('endkey')!;
    expect(JSON.parse(endKey2).Id).toBe(ids[199]);

    const page3 = await api.with({ StartKey: endKey2 }).get(PATH);
    expect(page3.body).toHaveLength(49);
    expect(page3.headers.get('endkey')).toBeNull();

    const listed = [...page1.body, ...page2.body, ...page3.body].map((r: { Id: string }) => r.Id);
    expect(listed).toEqual(ids);
    expect(page1.body[0]).toMatchObject({ OwnerId: proxy.guid, State: 'Active' });
  });

  it('refuses a StartKey that is not JSON {"Id"} or names another developer key', async () => {
    for (const key of ['nope', '[1]', '{"Id":5}', JSON.stringify({ Id: randomUUID(), DeveloperKey: '1' })]) {
      const res = await tool.with({ StartKey: key }).get(PATH);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'Invalid StartKey' });
    }
  });
});

describe('deleting the tool proxy', () => {
  it('deletes its subscriptions (State Deleted) and stops its tokens', async () => {
    const proxy = await createProxy(server, { name: 'Leaving' });
    const api = await toolApi(server, proxy);
    const a = await created(api);
    const b = await created(api, { EventTypes: ['grade_change'] });
    const untouched = await created(tool);
    expect((await server.admin.delete(`/api/v1/accounts/1/tool_proxies/${proxy.id}`)).status).toBe(200);
    const rows = await server.app.ds.getRepository(WebhookSubscription).findBy({ toolProxyId: proxy.id });
    expect(rows.map((r) => [r.id, r.state]).sort()).toEqual([[a.Id, 'Deleted'], [b.Id, 'Deleted']].sort());
    expect((await server.app.ds.getRepository(WebhookSubscription).findOneByOrFail({ id: untouched.Id })).state).toBe('Active');
    const res = await api.get(PATH);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHENTICATED);
  });
});

describe('GraphQL', () => {
  const RECORD = 'id contextId contextType eventTypes format transportMetadata { url } transportType ownerId developerKey rootAccountUuid state createdAt';
  const CREATE = `mutation($input: WebhookSubscriptionInput) { createWebhookSubscription(input: $input) { webhookSubscription { ${RECORD} } } }`;
  const input = (o: Record<string, unknown> = {}) => ({
    contextType: 'course', contextId: String(c1.id), eventTypes: ['grade_change'], format: 'live-event', transportType: 'https', transportMetadata: { url: 'https://tool.example/gql' }, ...o,
  });

  it('a tool creates, reads, lists, updates and deletes its subscriptions with its JWT', async () => {
    const made = await tool.graphql(CREATE, { input: input() });
    expect(made.errors).toBeUndefined();
    const s = made.data.createWebhookSubscription.webhookSubscription;
    expect(s).toMatchObject({ contextType: 'course', eventTypes: ['grade_change'], transportMetadata: { url: 'https://tool.example/gql' }, ownerId: allProxy.guid, state: 'Active' });

    const read = await tool.graphql(`query($id: ID!) { webhookSubscription(id: $id) { id } webhookSubscriptions { nodes { id } endKey } }`, { id: s.id });
    expect(read.errors).toBeUndefined();
    expect(read.data.webhookSubscription.id).toBe(s.id);
    expect(read.data.webhookSubscriptions.nodes.map((n: { id: string }) => n.id)).toContain(s.id);

    const upd = await tool.graphql(`mutation($id: ID!, $input: WebhookSubscriptionInput) { updateWebhookSubscription(id: $id, input: $input) { webhookSubscription { format } } }`, {
      id: s.id,
      input: input({ format: 'caliper' }),
    });
    expect(upd.data.updateWebhookSubscription.webhookSubscription.format).toBe('caliper');
    const del = await tool.graphql(`mutation($id: ID!) { deleteWebhookSubscription(id: $id) { webhookSubscription { state } } }`, { id: s.id });
    expect(del.data.deleteWebhookSubscription.webhookSubscription.state).toBe('Deleted');
  });

  it('refusals carry Canvas’s status and body; a user cannot use the tool operations', async () => {
    const bad = await tool.graphql(CREATE, { input: input({ format: 'xml' }) });
    expect(bad.errors![0].extensions).toMatchObject({ code: 'REQUEST_ERROR', status: 400, body: { error: 'Invalid subscription' } });
    const missing = await tool.graphql(CREATE, { input: null });
    expect(missing.errors![0].extensions).toMatchObject({ status: 400, body: { errors: [{ message: 'subscription is missing' }] } });
    const before = await subs();
    const asUser = await server.admin.graphql(CREATE, { input: input() });
    expect(asUser.errors![0].extensions.code).toBe('UNAUTHENTICATED');
    expect(await subs()).toBe(before);
    // The tool is nobody as far as user-facing fields go.
    const viewer = await tool.graphql(`query { toolProxiesConnection(accountId: "1") { totalCount } }`);
    expect(viewer.errors![0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('an admin sees a tool proxy’s subscriptions', async () => {
    const r = await created(tool);
    const res = await server.admin.graphql(`query($id: ID!) { toolProxy(id: $id) { webhookSubscriptions { nodes { id ownerId } endKey } } }`, { id: String(allProxy.id) });
    expect(res.errors).toBeUndefined();
    expect(res.data.toolProxy.webhookSubscriptions.nodes.map((n: { id: string }) => n.id)).toContain(r.Id);
  });
});

describe('SQS queues only of the accounts SQS_ALLOWED_ACCOUNT_IDS lists (issue 19, item 11)', () => {
  const refusal = (res: { status: number; body: any }) => {
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Invalid subscription', errors: [{ field: 'TransportMetadata', message: 'Url names a queue of an AWS account this service does not deliver to' }] });
  };

  it('refuses a queue of another account on create and update, over REST and GraphQL, storing nothing', async () => {
    const before = await subs();
    refusal(await create(tool, { TransportType: 'sqs', TransportMetadata: { Url: FOREIGN_QUEUE } }));
    refusal(await create(tool, { TransportType: 'sqs', TransportMetadata: { Url: 'http://127.0.0.1:9324/210987654321/local-queue' } }, true));
    expect(await subs()).toBe(before);

    const r = await created(tool, { TransportType: 'sqs', TransportMetadata: { Url: 'https://sqs.eu-west-1.amazonaws.com/123456789012/tool-queue' } });
    refusal(await tool.put(`${PATH}/${r.Id}`, { subscription: sub({ TransportType: 'sqs', TransportMetadata: { Url: FOREIGN_QUEUE } }) }));
    const row = await server.app.ds.getRepository(WebhookSubscription).findOneByOrFail({ id: r.Id });
    expect(row.transportUrl).toBe('https://sqs.eu-west-1.amazonaws.com/123456789012/tool-queue');

    const CREATE = `mutation($input: WebhookSubscriptionInput) { createWebhookSubscription(input: $input) { webhookSubscription { id } } }`;
    const input = { contextType: 'course', contextId: String(c1.id), eventTypes: ['grade_change'], format: 'live-event', transportType: 'sqs', transportMetadata: { url: FOREIGN_QUEUE } };
    const gql = await tool.graphql(CREATE, { input });
    expect(gql.errors![0].extensions).toMatchObject({ code: 'REQUEST_ERROR', status: 400, body: { error: 'Invalid subscription', errors: [{ field: 'TransportMetadata' }] } });
    const upd = await tool.graphql(`mutation($id: ID!, $input: WebhookSubscriptionInput) { updateWebhookSubscription(id: $id, input: $input) { webhookSubscription { id } } }`, { id: r.Id, input });
    expect(upd.errors![0].extensions).toMatchObject({ status: 400 });
    expect((await server.app.ds.getRepository(WebhookSubscription).findOneByOrFail({ id: r.Id })).transportUrl).toBe(row.transportUrl);
    expect(await subs()).toBe(before + 1);
  });

  it.each([
    ['a path before the account', 'https://sqs.us-east-1.amazonaws.com/x/123456789012/q'],
    ['a dot segment hiding another account', 'https://sqs.us-east-1.amazonaws.com/123456789012/../210987654321/q'],
    ['an escaped account', 'https://sqs.us-east-1.amazonaws.com/%3123456789012/q'],
    ['a backslash', 'https://sqs.us-east-1.amazonaws.com\\123456789012/q'],
  ])('reads the account from the URL as written: 400 for %s', async (_what, url) => {
    const before = await subs();
    const res = await create(tool, { TransportType: 'sqs', TransportMetadata: { Url: url } });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['TransportMetadata']);
    expect(await subs()).toBe(before);
  });

  it('reads SQS_ALLOWED_ACCOUNT_IDS as 12-digit account ids, comma-separated', () => {
    expect(loadConfig({}).SQS_ALLOWED_ACCOUNT_IDS).toBeUndefined();
    expect(loadConfig({ SQS_ALLOWED_ACCOUNT_IDS: '123456789012, 210987654321' }).SQS_ALLOWED_ACCOUNT_IDS).toBe('123456789012, 210987654321');
    for (const bad of ['*', '12345', '123456789012,', 'arn:aws:iam::123456789012:root', '1234567890123']) {
      expect(() => loadConfig({ SQS_ALLOWED_ACCOUNT_IDS: bad })).toThrow(ConfigError);
    }
  });
});

describe('SQS with SQS_ALLOWED_ACCOUNT_IDS unset', () => {
  let bare: TestServer;
  afterAll(() => bare?.close());

  it('accepts no SQS queue at all, not even the operator’s own account, and HTTPS as before', async () => {
    bare = await startTestServer();
    const api = await toolApi(bare, await createProxy(bare, { capabilities: [ALL], name: 'Bare' }));
    const course = await courseIn(bare, 1, 'Bare course');
    const body = (o: Record<string, unknown>) => ({ subscription: { ...sub(o), ContextId: String(course.id) } });
    const res = await api.post(PATH, body({ TransportType: 'sqs', TransportMetadata: { Url: 'https://sqs.us-east-1.amazonaws.com/123456789012/q' } }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Invalid subscription', errors: [{ field: 'TransportMetadata', message: 'Url is an SQS queue, and this service delivers to none' }] });
    expect(await count(bare, 'webhook_subscriptions')).toBe(0);
    expect((await api.post(PATH, body({}))).status).toBe(200);
  });
});
