import type { ApiResponse } from './support/api';
import { addMembers, createCategory, createCommunity, createGroup, groupsWorld, groupTables, NOT_FOUND, uniq } from './support/groups';
import { startTestServer, TestServer } from './support/server';
import { World } from './support/world';

/**
 * Bad input for every write of the groups area: wrong types, unknown ids, over-long names and invalid
 * enumerations answer a 4xx JSON body naming the problem, and no row of any groups table changes.
 */
let server: TestServer;
let world: World;
let w: Awaited<ReturnType<typeof groupsWorld>>;
let cat: any;
let group: any;
let community: any;
let tag: any;
let membershipId: number;
const LONG = 'n'.repeat(256);

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
  w = await groupsWorld(world);
  cat = await createCategory(w.teacher.api, w.course.id, { name: 'Bad Input Set' });
  group = await createGroup(w.admin.api, cat.id, { name: 'Bad Input Group', description: 'keep me' });
  await addMembers(w.teacher.api, group.id, [w.student]);
  membershipId = (await w.student.api.get(`/api/v1/groups/${group.id}/memberships/self`)).body.id;
  community = await createCommunity(w.admin.api, { name: 'Bad Input Community', join_level: 'parent_context_request' });
  const tags = await createCategory(w.teacher.api, w.course.id, { non_collaborative: true });
  tag = await createGroup(w.teacher.api, tags.id);
});
afterAll(() => server.close());

/** The response must be a 4xx JSON body; when `field` is given, the body's errors must name it. */
function expectClear(res: ApiResponse, status: number, field?: string) {
  expect({ status: res.status, json: res.headers.get('content-type') }).toEqual({ status, json: expect.stringContaining('application/json') });
  expect(res.body).toBeDefined();
  if (field) expect(Object.keys(res.body.errors ?? {})).toContain(field);
}

async function refused(status: number, field: string | undefined, call: () => Promise<ApiResponse>) {
  const before = await groupTables(server);
  const res = await call();
  expectClear(res, status, field);
  expect(await groupTables(server)).toEqual(before);
  return res;
}

describe('group categories', () => {
  const base = () => `/api/v1/courses/${w.course.id}/group_categories`;
  it.each([
    [{ name: LONG }, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'G', group_limit: 'abc' }, 'group_limit'],
    [{ name: 'G', group_limit: '2.5' }, 'group_limit'],
    [{ name: 'G', group_limit: 1 }, 'group_limit'],
    [{ name: 'G', group_limit: -4 }, 'group_limit'],
    [{ name: 'G', self_signup: 'maybe' }, 'self_signup'],
    [{ name: 'G', auto_leader: 'oldest' }, 'auto_leader'],
    [{ name: 'G', create_group_count: 'abc' }, 'create_group_count'],
    [{ name: 'G', create_group_count: -1 }, 'create_group_count'],
    [{ name: 'G', create_group_count: 100000 }, 'create_group_count'],
  ])('POST %j → 400 naming %s', async (body, field) => {
    await refused(400, field, () => w.teacher.api.post(base(), body));
  });

  it('POST to an unknown course or account → 404', async () => {
    const res = await refused(404, undefined, () => server.admin.post('/api/v1/courses/99999999/group_categories', { name: 'X' }));
    expect(res.body).toEqual(NOT_FOUND);
    await refused(404, undefined, () => server.admin.post('/api/v1/accounts/99999999/group_categories', { name: 'X' }));
    await refused(404, undefined, () => server.admin.post('/api/v1/courses/abc/group_categories', { name: 'X' }));
  });

  it.each([
    [{ name: LONG }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ group_limit: 'abc' }, 'group_limit'],
    [{ group_limit: 0 }, 'group_limit'],
    [{ self_signup: 'sometimes' }, 'self_signup'],
    [{ non_collaborative: true }, 'non_collaborative'],
  ])('PUT %j → 400 naming %s', async (body, field) => {
    await refused(400, field, () => w.teacher.api.put(`/api/v1/group_categories/${cat.id}`, body));
  });

  it('PUT and DELETE of unknown ids → 404', async () => {
    await refused(404, undefined, () => w.teacher.api.put('/api/v1/group_categories/99999999', { name: 'X' }));
    await refused(404, undefined, () => w.teacher.api.delete('/api/v1/group_categories/99999999'));
    await refused(404, undefined, () => w.teacher.api.delete('/api/v1/group_categories/not-an-id'));
  });
});

describe('groups', () => {
  const bad: [Record<string, unknown>, string][] = [
    [{ name: LONG }, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'G', join_level: 'everyone' }, 'join_level'],
    [{ name: 'G', storage_quota_mb: 'abc' }, 'storage_quota_mb'],
    [{ name: 'G', storage_quota_mb: -5 }, 'storage_quota_mb'],
    [{ name: 'G', max_membership: 1 }, 'max_membership'],
    [{ name: 'G', max_membership: 'abc' }, 'max_membership'],
    [{ name: 'G', description: 'd'.repeat(70000) }, 'description'],
  ];

  it.each(bad)('POST /groups %j → 400 naming %s', async (body, field) => {
    await refused(400, field, () => w.admin.api.post('/api/v1/groups', body));
  });

  it.each(bad)('POST /group_categories/:id/groups %j → 400 naming %s', async (body, field) => {
    await refused(400, field, () => w.teacher.api.post(`/api/v1/group_categories/${cat.id}/groups`, body));
  });

  it('POST into an unknown or deleted category → 404', async () => {
    await refused(404, undefined, () => w.teacher.api.post('/api/v1/group_categories/99999999/groups', { name: 'X' }));
    const gone = await createCategory(w.teacher.api, w.course.id);
    await w.teacher.api.delete(`/api/v1/group_categories/${gone.id}`);
    await refused(404, undefined, () => w.teacher.api.post(`/api/v1/group_categories/${gone.id}/groups`, { name: 'X' }));
  });

  it.each([
    ...bad.map(([b, f]) => [{ ...b, name: b.name === 'G' ? undefined : b.name }, f] as [Record<string, unknown>, string]),
    [{ avatar_id: 'abc' }, 'avatar_id'],
    [{ avatar_id: 99999999 }, 'avatar_id'],
    [{ leader: { id: 99999999 } }, 'leader'],
    [{ is_public: true }, 'is_public'],
  ])('PUT /groups/:id %j → 400 naming %s', async (body, field) => {
    const res = await refused(400, field, () => w.admin.api.put(`/api/v1/groups/${group.id}`, body));
    expect(res.text).toContain(field);
    expect((await w.teacher.api.get(`/api/v1/groups/${group.id}`)).body).toMatchObject({ name: 'Bad Input Group', description: 'keep me', max_membership: null, storage_quota_mb: 50 });
  });

  it('PUT is_public=false on a public community → 400', async () => {
    const pub = await createCommunity(w.student.api, { is_public: true });
    await refused(400, 'is_public', () => w.student.api.put(`/api/v1/groups/${pub.id}`, { is_public: false }));
  });

  it('PUT, DELETE, invite and preview on unknown groups → 404', async () => {
    for (const path of ['/api/v1/groups/99999999', '/api/v1/groups/sis_group_id:nope', '/api/v1/groups/abc']) {
      await refused(404, undefined, () => server.admin.put(path, { name: 'X' }));
      await refused(404, undefined, () => server.admin.delete(path));
      await refused(404, undefined, () => server.admin.post(`${path}/invite`, { invitees: ['a@example.com'] }));
      await refused(404, undefined, () => server.admin.post(`${path}/memberships`, { user_id: 'self' }));
      await refused(404, undefined, () => server.admin.post(`${path}/preview_html`, { html: '<p>' }));
    }
  });
});

describe('invitations', () => {
  it.each([
    [{ invitees: ['not an address'] }],
    [{ invitees: [`${'a'.repeat(250)}@example.com`] }],
    [{ invitees: ['good@example.com', '@bad'] }],
    [{}],
    [{ invitees: [''] }],
  ])('POST /groups/:id/invite %j → 400', async (body) => {
    await refused(400, undefined, () => w.teacher.api.post(`/api/v1/groups/${group.id}/invite`, body));
  });
});

describe('memberships', () => {
  it('POST with an unknown user_id → 404; a malformed one → 400 naming user_id', async () => {
    await refused(404, undefined, () => w.teacher.api.post(`/api/v1/groups/${group.id}/memberships`, { user_id: 99999999 }));
    await refused(400, 'user_id', () => w.teacher.api.post(`/api/v1/groups/${group.id}/memberships`, { user_id: 'abc' }));
  });

  it('POST a user outside the course → 400 naming user_id', async () => {
    await refused(400, 'user_id', () => w.teacher.api.post(`/api/v1/groups/${group.id}/memberships`, { user_id: w.outsider.id }));
  });

  it('bulk forms: on a collaborative group, or with no users → 400', async () => {
    await refused(400, undefined, () => w.teacher.api.post(`/api/v1/groups/${group.id}/memberships`, { members: [w.student2.id] }));
    await refused(400, undefined, () => w.teacher.api.post(`/api/v1/groups/${community.id}/memberships`, { all_in_group_course: true }));
    await refused(400, undefined, () => w.teacher.api.post(`/api/v1/groups/${tag.id}/memberships`, { members: [''] }));
    const res = await refused(200, undefined, () => w.teacher.api.post(`/api/v1/groups/${tag.id}/memberships`, { members: ['abc', 'x1'] }));
    expect(res.body).toEqual({ message: 'Partial failure encountered', invalid_user_ids: ['abc', 'x1'], membership_errors: [] });
  });

  it('PUT and DELETE of unknown memberships or users → 404; a malformed id too', async () => {
    for (const ref of ['memberships/99999999', 'users/99999999', 'memberships/abc', 'users/sis_user_id:none']) {
      await refused(404, undefined, () => w.teacher.api.put(`/api/v1/groups/${group.id}/${ref}`, { moderator: true }));
      await refused(404, undefined, () => w.teacher.api.delete(`/api/v1/groups/${group.id}/${ref}`));
    }
    // A membership of another group is not found through this one.
    const other = await createGroup(w.teacher.api, cat.id);
    await refused(404, undefined, () => w.teacher.api.put(`/api/v1/groups/${other.id}/memberships/${membershipId}`, { moderator: true }));
    await refused(404, undefined, () => w.teacher.api.put(`/api/v1/groups/99999999/memberships/${membershipId}`, { moderator: true }));
  });

  it('PUT moderator=true on a member who is not accepted → 400', async () => {
    const req = (await w.student2.api.post(`/api/v1/groups/${community.id}/memberships`, { user_id: 'self' })).body;
    await refused(400, 'moderator', () => w.admin.api.put(`/api/v1/groups/${community.id}/memberships/${req.id}`, { moderator: true }));
  });

  it('reads with bad filters → 400', async () => {
    const states = await w.teacher.api.get(`/api/v1/groups/${group.id}/memberships?filter_states[]=bogus`);
    expectClear(states, 400, 'filter_states[]');
    const term = await w.teacher.api.get(`/api/v1/groups/${group.id}/users?search_term=ab`);
    expectClear(term, 400);
    expect(term.body.errors[0]).toMatchObject({ field: 'search_term', code: 'invalid' });
    expectClear(await w.teacher.api.get(`/api/v1/courses/${w.course.id}/groups?collaboration_state=bogus`), 400, 'collaboration_state');
    expectClear(await w.teacher.api.get(`/api/v1/users/self/groups?context_type=Galaxy`), 400, 'context_type');
  });
});

it('unique names: a taken category name and a taken SIS id are refused', async () => {
  const sis = `SIS-${uniq()}`;
  await createGroup(w.admin.api, cat.id, { sis_group_id: sis });
  await refused(400, 'sis_group_id', () => w.admin.api.post(`/api/v1/group_categories/${cat.id}/groups`, { name: 'Dup SIS', sis_group_id: sis }));
  await refused(400, 'name', () => w.teacher.api.post(`/api/v1/courses/${w.course.id}/group_categories`, { name: 'Bad Input Set' }));
});
