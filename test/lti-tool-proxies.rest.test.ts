import { decryptSecret } from '../src/lti/lti-keys';
import { ToolProxy } from '../src/lti/tool-proxy.entity';
import { parseLinks } from './support/api';
import { count, FORBIDDEN, ISO, NOT_FOUND, UNAUTHENTICATED } from './support/content';
import { ALL, cap, courseIn, createProxy, subAccount } from './support/lti';
import { startTestServer, TestServer } from './support/server';
import { World } from './support/world';

let server: TestServer;
let world: World;
let room: Awaited<ReturnType<World['classroom']>>;

const KEYS = ['account_id', 'capabilities', 'context_id', 'context_type', 'created_at', 'developer_key', 'guid', 'id', 'name', 'root_account_id', 'updated_at', 'workflow_state'];
const base = (accountId: number | string = 1) => `/api/v1/accounts/${accountId}/tool_proxies`;

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
  room = await world.classroom();
});
afterAll(() => server.close());

const proxies = () => count(server, 'lti_tool_proxies');

describe('POST /api/v1/accounts/:account_id/tool_proxies', () => {
  it('registers a tool for an account admin and shows {id, guid, shared_secret} once, stored encrypted', async () => {
    const res = await server.admin.post(base(), { name: 'Turnitin-ish', capabilities: [ALL, cap('assignment', 'submission_created')] });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([...KEYS, 'shared_secret'].sort());
    expect(res.body).toMatchObject({
      name: 'Turnitin-ish',
      capabilities: [ALL, cap('assignment', 'submission_created')],
      context_type: 'Account',
      context_id: 1,
      account_id: 1,
      root_account_id: 1,
      workflow_state: 'active',
    });
    expect(typeof res.body.id).toBe('number');
    expect(res.body.guid).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.shared_secret).toMatch(/^[0-9a-f]{128}$/);
    expect(res.body.created_at).toMatch(ISO);
    expect(res.body.developer_key).toBe(String(10_000_000_000_000 + res.body.id));

    const row = await server.app.ds.getRepository(ToolProxy).findOneByOrFail({ id: res.body.id });
    expect(row.sharedSecretEncrypted).not.toContain(res.body.shared_secret);
    expect(decryptSecret(server.app.tokenKey, row.sharedSecretEncrypted)).toBe(res.body.shared_secret);

    const shown = await server.admin.get(`${base()}/${res.body.id}`);
    expect(shown.status).toBe(200);
    expect(Object.keys(shown.body).sort()).toEqual(KEYS);
    expect(shown.text).not.toContain(res.body.shared_secret);
    const listed = await server.admin.get(base());
    expect(listed.text).not.toContain(res.body.shared_secret);
  });

  it('installs in a course of the account, or a sub-account of it (JSON body too)', async () => {
    const { account } = await subAccount(server, world, 'Chemistry');
    const course = await courseIn(server, account.id, 'Organic');
    const inCourse = await server.admin.post(base(), { name: 'C', capabilities: [ALL], context_type: 'Course', context_id: course.id }, { json: true });
    expect(inCourse.status).toBe(200);
    expect(inCourse.body).toMatchObject({ context_type: 'Course', context_id: course.id, account_id: account.id, root_account_id: 1 });
    const inSub = await server.admin.post(base(), { name: 'S', capabilities: [ALL], context_type: 'Account', context_id: account.id });
    expect(inSub.body).toMatchObject({ context_type: 'Account', context_id: account.id, account_id: account.id });
  });

  it('lets a sub-account admin register in their account, not above it or in another account’s course', async () => {
    const { account, admin } = await subAccount(server, world, 'Music');
    const own = await admin.api.post(base(account.id), { name: 'Mine', capabilities: [cap('root_account', 'grade_change')] });
    expect(own.status).toBe(200);
    const before = await proxies();
    const above = await admin.api.post(base(1), { name: 'Root', capabilities: [ALL] });
    expect(above.status).toBe(403);
    expect(above.body).toEqual(FORBIDDEN);
    const other = await admin.api.post(base(account.id), { name: 'Else', capabilities: [ALL], context_type: 'Course', context_id: room.course.id });
    expect(other.status).toBe(400);
    expect(other.body.errors.context_id[0]).toMatchObject({ attribute: 'context_id', type: 'invalid' });
    expect(await proxies()).toBe(before);
  });

  it('refuses non-admins (403) and anonymous callers (401), storing nothing', async () => {
    const before = await proxies();
    for (const u of [room.teacher, room.student]) {
      const res = await u.api.post(base(), { name: 'Nope', capabilities: [ALL] });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    }
    const anon = await server.as(null).post(base(), { name: 'Nope', capabilities: [ALL] });
    expect(anon.status).toBe(401);
    expect(anon.body).toEqual(UNAUTHENTICATED);
    expect(await proxies()).toBe(before);
  });

  it.each([
    ['a missing name', { capabilities: [ALL] }, 'name', 'blank'],
    ['a blank name', { name: '  ', capabilities: [ALL] }, 'name', 'blank'],
    ['no capabilities', { name: 'X' }, 'capabilities', 'blank'],
    ['the spec’s placeholder vendor', { name: 'X', capabilities: ['vnd.<vendor>.webhooks.root_account.all'] }, 'capabilities', 'inclusion'],
    ['Canvas’s old vendor spelling', { name: 'X', capabilities: ['vnd.Canvas.webhooks.root_account.all'] }, 'capabilities', 'inclusion'],
    ['an assignment-level grade_change (not in the table)', { name: 'X', capabilities: [cap('assignment', 'grade_change')] }, 'capabilities', 'inclusion'],
    ['an unknown event capability', { name: 'X', capabilities: [ALL, cap('root_account', 'assignment_created')] }, 'capabilities', 'inclusion'],
    ['an unknown context type', { name: 'X', capabilities: [ALL], context_type: 'Group', context_id: 1 }, 'context_type', 'inclusion'],
    ['a course that does not exist', { name: 'X', capabilities: [ALL], context_type: 'Course', context_id: 999999 }, 'context_id', 'invalid'],
    ['a course without an id', { name: 'X', capabilities: [ALL], context_type: 'Course' }, 'context_id', 'invalid'],
    ['an account that does not exist', { name: 'X', capabilities: [ALL], context_type: 'Account', context_id: 999999 }, 'context_id', 'invalid'],
  ])('answers 400 for %s, storing nothing', async (_what, body, attribute, type) => {
    const before = await proxies();
    const res = await server.admin.post(base(), body);
    expect(res.status).toBe(400);
    expect(res.body.errors[attribute][0]).toMatchObject({ attribute, type });
    expect(await proxies()).toBe(before);
  });

  it('is 404 for an account that does not exist', async () => {
    const res = await server.admin.post(base(999999), { name: 'X', capabilities: [ALL] });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
  });
});

describe('list, show, update, delete', () => {
  it('lists the active proxies of the account and beneath it, paginated with a Link header', async () => {
    const { account: faculty, admin } = await subAccount(server, world, 'Faculty');
    const { account: dept } = await subAccount(server, world, 'Department', faculty.id);
    const { account: sibling } = await subAccount(server, world, 'Sibling');
    const a = await createProxy(server, { accountId: faculty.id, name: 'A' });
    const b = await createProxy(server, { accountId: dept.id, name: 'B' });
    const c = await createProxy(server, { accountId: 1, contextType: 'Course', contextId: (await courseIn(server, dept.id)).id, name: 'C' });
    await createProxy(server, { accountId: sibling.id, name: 'Elsewhere' });
    const deleted = await createProxy(server, { accountId: faculty.id, name: 'Deleted' });
    await server.admin.delete(`${base(faculty.id)}/${deleted.id}`);

    const page1 = await admin.api.get(`${base(faculty.id)}?per_page=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.map((p: { name: string }) => p.name)).toEqual(['A', 'B']);
    const links = parseLinks(page1.headers.get('link'));
    const page2 = await admin.api.get(links.next.replace(server.url, ''));
    expect(page2.body.map((p: { id: number }) => p.id)).toEqual([c.id]);
    expect(parseLinks(page2.headers.get('link')).next).toBeUndefined();
    expect(page1.body[0].id).toBe(a.id);
    expect(page1.body[1].id).toBe(b.id);

    const viaDept = await admin.api.get(base(dept.id));
    expect(viaDept.body.map((p: { name: string }) => p.name)).toEqual(['B', 'C']);
    expect((await room.teacher.api.get(base(faculty.id))).status).toBe(403);
  });

  it('shows a proxy only under an account that holds it (404 elsewhere), to admins only', async () => {
    const { account: lit, admin } = await subAccount(server, world, 'Literature');
    const { account: art } = await subAccount(server, world, 'Art');
    const p = await createProxy(server, { accountId: lit.id });
    expect((await admin.api.get(`${base(lit.id)}/${p.id}`)).status).toBe(200);
    expect((await server.admin.get(`${base(1)}/${p.id}`)).status).toBe(200);
    const elsewhere = await server.admin.get(`${base(art.id)}/${p.id}`);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body).toEqual(NOT_FOUND);
    expect((await room.teacher.api.get(`${base(lit.id)}/${p.id}`)).status).toBe(403);
    expect((await server.admin.get(`${base(lit.id)}/999999`)).status).toBe(404);
    expect((await server.admin.get(`${base(lit.id)}/abc`)).status).toBe(404);
  });

  it('updates name and capabilities; bad capabilities are 400 and change nothing', async () => {
    const p = await createProxy(server, { capabilities: [ALL] });
    const res = await server.admin.put(`${base()}/${p.id}`, { capabilities: [cap('root_account', 'grade_change'), cap('assignment', 'quiz_submitted')] });
    expect(res.status).toBe(200);
    expect(res.body.capabilities).toEqual([cap('root_account', 'grade_change'), cap('assignment', 'quiz_submitted')]);
    expect(res.body.name).toBe(p.name);
    expect(res.body).not.toHaveProperty('shared_secret');

    const renamed = await server.admin.put(`${base()}/${p.id}`, { name: 'Renamed' });
    expect(renamed.body).toMatchObject({ name: 'Renamed', capabilities: [cap('root_account', 'grade_change'), cap('assignment', 'quiz_submitted')] });

    for (const body of [{ capabilities: ['vnd.instructure.webhooks.root_account.everything'] }, { name: '' }]) {
      const bad = await server.admin.put(`${base()}/${p.id}`, body);
      expect(bad.status).toBe(400);
    }
    const row = await server.app.ds.getRepository(ToolProxy).findOneByOrFail({ id: p.id });
    expect(row.name).toBe('Renamed');
    expect(row.capabilityList).toEqual([cap('root_account', 'grade_change'), cap('assignment', 'quiz_submitted')]);
    expect((await room.student.api.put(`${base()}/${p.id}`, { name: 'Mine now' })).status).toBe(403);
  });

  it('deletes: the proxy is marked deleted and is 404 afterwards; non-admins are refused', async () => {
    const p = await createProxy(server);
    expect((await room.teacher.api.delete(`${base()}/${p.id}`)).status).toBe(403);
    const res = await server.admin.delete(`${base()}/${p.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: p.id, workflow_state: 'deleted' });
    expect((await server.app.ds.getRepository(ToolProxy).findOneByOrFail({ id: p.id })).workflowState).toBe('deleted');
    expect((await server.admin.get(`${base()}/${p.id}`)).status).toBe(404);
    expect((await server.admin.delete(`${base()}/${p.id}`)).status).toBe(404);
    expect((await server.admin.put(`${base()}/${p.id}`, { name: 'Back' })).status).toBe(404);
  });
});

describe('GraphQL', () => {
  const FIELDS = 'id _id guid name capabilities contextType contextId accountId rootAccountId workflowState developerKey createdAt updatedAt';
  const CREATE = `mutation($input: CreateToolProxyInput!) { createToolProxy(input: $input) { toolProxy { ${FIELDS} } sharedSecret errors { attribute type message } } }`;

  it('creates, reads (toolProxy, connection, node), updates and deletes the same way', async () => {
    const created = await server.admin.graphql(CREATE, { input: { accountId: '1', name: 'GQL tool', capabilities: [ALL] } });
    expect(created.errors).toBeUndefined();
    const { toolProxy, sharedSecret, errors } = created.data.createToolProxy;
    expect(errors).toBeNull();
    expect(sharedSecret).toMatch(/^[0-9a-f]{128}$/);
    expect(toolProxy).toMatchObject({ name: 'GQL tool', capabilities: [ALL], contextType: 'Account', contextId: '1', workflowState: 'active' });
    expect(toolProxy.id).toBe(Buffer.from(`ToolProxy-${toolProxy._id}`).toString('base64'));

    const read = await server.admin.graphql(
      `query($id: ID!) { toolProxy(id: $id) { _id name } node(id: $id) { ... on ToolProxy { _id guid } } legacyNode(type: ToolProxy, _id: "${toolProxy._id}") { id }
        toolProxiesConnection(accountId: "1", first: 100) { nodes { _id } totalCount } }`,
      { id: toolProxy.id },
    );
    expect(read.errors).toBeUndefined();
    expect(read.data.toolProxy).toEqual({ _id: toolProxy._id, name: 'GQL tool' });
    expect(read.data.node).toEqual({ _id: toolProxy._id, guid: toolProxy.guid });
    expect(read.data.legacyNode).toEqual({ id: toolProxy.id });
    expect(read.data.toolProxiesConnection.nodes.map((n: { _id: string }) => n._id)).toContain(toolProxy._id);

    const bad = await server.admin.graphql(CREATE, { input: { accountId: '1', name: 'X', capabilities: ['nope'] } });
    expect(bad.data.createToolProxy.toolProxy).toBeNull();
    expect(bad.data.createToolProxy.sharedSecret).toBeNull();
    expect(bad.data.createToolProxy.errors[0]).toMatchObject({ attribute: 'capabilities', type: 'inclusion' });

    const updated = await server.admin.graphql(`mutation($input: UpdateToolProxyInput!) { updateToolProxy(input: $input) { toolProxy { name capabilities } errors { attribute } } }`, {
      input: { id: toolProxy.id, capabilities: [cap('root_account', 'submission_created')] },
    });
    expect(updated.data.updateToolProxy).toEqual({ toolProxy: { name: 'GQL tool', capabilities: [cap('root_account', 'submission_created')] }, errors: null });

    const notAdmin = await room.teacher.api.graphql(`query($id: ID!) { toolProxy(id: $id) { _id } node(id: $id) { id } }`, { id: toolProxy.id });
    expect(notAdmin.errors![0].extensions.code).toBe('FORBIDDEN');
    const teacherNode = await room.teacher.api.graphql(`query($id: ID!) { node(id: $id) { id } }`, { id: toolProxy.id });
    expect(teacherNode.data.node).toBeNull();

    const deleted = await server.admin.graphql(`mutation($id: ID!) { deleteToolProxy(id: $id) { toolProxy { workflowState } errors { attribute } } }`, { id: toolProxy._id });
    expect(deleted.data.deleteToolProxy).toEqual({ toolProxy: { workflowState: 'deleted' }, errors: null });
    const gone = await server.admin.graphql(`query($id: ID!) { node(id: $id) { id } }`, { id: toolProxy.id });
    expect(gone.data.node).toBeNull();
  });
});
