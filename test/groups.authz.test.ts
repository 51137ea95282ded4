import type { Api, ApiResponse } from './support/api';
import { addMembers, createCategory, createCommunity, createGroup, FORBIDDEN, groupsWorld, groupTables, UNAUTHENTICATED, uniq } from './support/groups';
import { startTestServer, TestServer } from './support/server';
import { World } from './support/world';

/**
 * The authorization matrix of the groups area, through REST and GraphQL: who may read and write a
 * class group, its category and a private community group. Refused calls store nothing and their
 * bodies say nothing about the group.
 */
let server: TestServer;
let world: World;
let w: Awaited<ReturnType<typeof groupsWorld>>;
let cat: any;
let group: any;
let memberMembershipId: number;
let community: any;
const SECRET = `Secret Squirrels ${uniq()}`;
const SECRET_SET = `Hidden Set ${uniq()}`;
const SECRET_COMMUNITY = `Private Circle ${uniq()}`;

type Who = 'outsideStudent' | 'otherCourseStudent' | 'observer' | 'teacher' | 'admin' | 'anonymous';
const WHO: Who[] = ['outsideStudent', 'otherCourseStudent', 'observer', 'teacher', 'admin', 'anonymous'];
const DENIED: Who[] = ['outsideStudent', 'otherCourseStudent', 'observer'];

function api(who: Who): Api {
  switch (who) {
    case 'outsideStudent':
      return w.student2.api;
    case 'otherCourseStudent':
      return w.otherStudent.api;
    case 'observer':
      return w.observer.api;
    case 'teacher':
      return w.teacher.api;
    case 'admin':
      return w.admin.api;
    case 'anonymous':
      return server.as(null);
  }
}

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
  w = await groupsWorld(world);
  cat = await createCategory(w.teacher.api, w.course.id, { name: SECRET_SET });
  group = await createGroup(w.teacher.api, cat.id, { name: SECRET, description: 'acorn stash' });
  await addMembers(w.teacher.api, group.id, [w.student]);
  memberMembershipId = (await w.student.api.get(`/api/v1/groups/${group.id}/memberships/self`)).body.id;
  community = await createCommunity(w.student.api, { name: SECRET_COMMUNITY, join_level: 'invitation_only' });
});
afterAll(() => server.close());

function expectNothingRevealed(res: { text: string }) {
  for (const secret of [SECRET, SECRET_SET, SECRET_COMMUNITY, 'acorn stash']) expect(res.text).not.toContain(secret);
}

describe('REST reads', () => {
  const cases: { what: string; path: () => string; allowed: Who[]; deniedStatus: number }[] = [
    { what: 'GET /groups/:id', path: () => `/api/v1/groups/${group.id}`, allowed: ['teacher', 'admin'], deniedStatus: 401 },
    { what: 'GET /groups/:id (private community)', path: () => `/api/v1/groups/${community.id}`, allowed: ['admin'], deniedStatus: 401 },
    { what: 'GET /groups/:id/users', path: () => `/api/v1/groups/${group.id}/users`, allowed: ['teacher', 'admin'], deniedStatus: 403 },
    { what: 'GET /groups/:id/memberships', path: () => `/api/v1/groups/${group.id}/memberships`, allowed: ['teacher', 'admin'], deniedStatus: 403 },
    { what: 'GET /groups/:id/memberships/:id', path: () => `/api/v1/groups/${group.id}/memberships/${memberMembershipId}`, allowed: ['teacher', 'admin'], deniedStatus: 403 },
    { what: 'GET /groups/:id/permissions', path: () => `/api/v1/groups/${group.id}/permissions?permissions[]=read`, allowed: ['teacher', 'admin'], deniedStatus: 403 },
    { what: 'GET /group_categories/:id/groups', path: () => `/api/v1/group_categories/${cat.id}/groups`, allowed: ['outsideStudent', 'teacher', 'admin'], deniedStatus: 403 },
    { what: 'GET /courses/:id/groups', path: () => `/api/v1/courses/${w.course.id}/groups`, allowed: ['outsideStudent', 'teacher', 'admin'], deniedStatus: 403 },
  ];

  for (const c of cases) {
    it(c.what, async () => {
      for (const who of WHO) {
        const res = await api(who).get(c.path());
        const expected = who === 'anonymous' ? 401 : c.allowed.includes(who) ? 200 : c.deniedStatus;
        expect({ who, status: res.status }).toEqual({ who, status: expected });
        if (who === 'anonymous') expect(res.body).toEqual(UNAUTHENTICATED);
        else if (expected !== 200) expect(res.body).toEqual(FORBIDDEN);
        if (expected !== 200) expectNothingRevealed(res);
      }
    });
  }

  it('the category itself: roster readers see a collaborative category, others 403', async () => {
    for (const who of WHO) {
      const res = await api(who).get(`/api/v1/group_categories/${cat.id}`);
      const expected = who === 'anonymous' ? 401 : ['outsideStudent', 'teacher', 'admin'].includes(who) ? 200 : 403;
      expect({ who, status: res.status }).toEqual({ who, status: expected });
      if (expected !== 200) expectNothingRevealed(res);
    }
  });
});

describe('REST writes: refused callers get 403 (anonymous 401) and nothing is stored', () => {
  const writes: { what: string; run: (a: Api) => Promise<ApiResponse> }[] = [
    { what: 'PUT /groups/:id', run: (a) => a.put(`/api/v1/groups/${group.id}`, { name: 'Pwned', description: 'x' }) },
    { what: 'PUT /groups/:id (community)', run: (a) => a.put(`/api/v1/groups/${community.id}`, { is_public: true }) },
    { what: 'DELETE /groups/:id', run: (a) => a.delete(`/api/v1/groups/${group.id}`) },
    { what: 'DELETE /groups/:id (community)', run: (a) => a.delete(`/api/v1/groups/${community.id}`) },
    { what: 'POST /groups/:id/invite', run: (a) => a.post(`/api/v1/groups/${group.id}/invite`, { invitees: [`x.${uniq()}@example.com`] }) },
    { what: 'POST /groups/:id/memberships (someone else)', run: (a) => a.post(`/api/v1/groups/${group.id}/memberships`, { user_id: w.student2.id }) },
    { what: 'POST /groups/:id/memberships (self, invitation only)', run: (a) => a.post(`/api/v1/groups/${group.id}/memberships`, { user_id: 'self' }) },
    { what: 'POST /groups/:id/memberships (self, private community)', run: (a) => a.post(`/api/v1/groups/${community.id}/memberships`, { user_id: 'self' }) },
    { what: 'PUT /groups/:id/memberships/:id', run: (a) => a.put(`/api/v1/groups/${group.id}/memberships/${memberMembershipId}`, { moderator: true }) },
    { what: 'DELETE /groups/:id/users/:user_id', run: (a) => a.delete(`/api/v1/groups/${group.id}/users/${w.student.id}`) },
    { what: 'POST /groups/:id/preview_html', run: (a) => a.post(`/api/v1/groups/${group.id}/preview_html`, { html: '<p>x</p>' }) },
    { what: 'POST /group_categories/:id/groups', run: (a) => a.post(`/api/v1/group_categories/${cat.id}/groups`, { name: 'Intruders' }) },
    { what: 'PUT /group_categories/:id', run: (a) => a.put(`/api/v1/group_categories/${cat.id}`, { name: 'Renamed Set' }) },
    { what: 'DELETE /group_categories/:id', run: (a) => a.delete(`/api/v1/group_categories/${cat.id}`) },
    { what: 'POST /courses/:id/group_categories', run: (a) => a.post(`/api/v1/courses/${w.course.id}/group_categories`, { name: `Nope ${uniq()}` }) },
  ];

  for (const c of writes) {
    it(c.what, async () => {
      const before = await groupTables(server);
      for (const who of [...DENIED, 'anonymous'] as Who[]) {
        const res = await c.run(api(who));
        expect({ who, status: res.status }).toEqual({ who, status: who === 'anonymous' ? 401 : 403 });
        expect(res.body).toEqual(who === 'anonymous' ? UNAUTHENTICATED : FORBIDDEN);
        expectNothingRevealed(res);
      }
      expect(await groupTables(server)).toEqual(before);
    });
  }

  it('teachers and account admins may write to the class group and its category', async () => {
    for (const who of ['teacher', 'admin'] as Who[]) {
      const a = api(who);
      const g = await createGroup(a, cat.id, { name: `By ${who}` });
      expect((await a.put(`/api/v1/groups/${g.id}`, { description: who })).status).toBe(200);
      expect((await a.post(`/api/v1/groups/${g.id}/memberships`, { user_id: w.student2.id })).status).toBe(200);
      expect((await a.put(`/api/v1/groups/${g.id}/users/${w.student2.id}`, { moderator: true })).status).toBe(200);
      expect((await a.post(`/api/v1/groups/${g.id}/invite`, { invitees: [w.student.login] })).status).toBe(200);
      expect((await a.delete(`/api/v1/groups/${g.id}/users/${w.student2.id}`)).status).toBe(200);
      expect((await a.delete(`/api/v1/groups/${g.id}`)).status).toBe(200);
      expect((await a.put(`/api/v1/group_categories/${cat.id}`, { name: SECRET_SET })).status).toBe(200);
    }
    // The student moved back and forth above; put them back in the fixture group.
    await addMembers(w.teacher.api, group.id, [w.student]);
  });
});

describe('membership lookups by user id reveal nobody’s membership to callers without rights', () => {
  it('GET, PUT and DELETE /groups/:id/users/:user_id answer 403 whether or not the user is a member', async () => {
    const member = `/api/v1/groups/${group.id}/users/${w.student.id}`;
    const nonMember = `/api/v1/groups/${group.id}/users/${w.outsider.id}`;
    const unknownMembership = `/api/v1/groups/${group.id}/memberships/99999999`;
    const before = await groupTables(server);
    for (const who of DENIED) {
      for (const path of [member, nonMember, unknownMembership]) {
        const get = await api(who).get(path);
        const put = await api(who).put(path, { moderator: true });
        const del = await api(who).delete(path);
        expect({ who, path, statuses: [get.status, put.status, del.status] }).toEqual({ who, path, statuses: [403, 403, 403] });
      }
    }
    expect(await groupTables(server)).toEqual(before);
    // Those who may see the roster get the plain 404.
    expect((await w.teacher.api.get(nonMember)).status).toBe(404);
  });
});

describe('GraphQL', () => {
  const gqlAs = (who: Who, query: string, variables: Record<string, unknown>) => api(who).request('POST', '/graphql', { query, variables }, { json: true });

  it('group(id:) answers teachers and admins; everyone else FORBIDDEN (status 401) or UNAUTHENTICATED', async () => {
    for (const who of WHO) {
      const res = await gqlAs(who, `query($id: ID!) { group(id: $id) { name description } }`, { id: String(group.id) });
      if (['teacher', 'admin'].includes(who)) {
        expect(res.body.data.group.name).toBe(SECRET);
        continue;
      }
      const code = res.body.errors?.[0]?.extensions?.code;
      expect({ who, code }).toEqual({ who, code: who === 'anonymous' ? 'UNAUTHENTICATED' : 'FORBIDDEN' });
      if (who !== 'anonymous') expect(res.body.errors[0].extensions.status).toBe(401);
      expect(res.body.data?.group ?? null).toBeNull();
      expectNothingRevealed(res);
    }
  });

  it('connections refuse callers who cannot see them', async () => {
    const Q = `query($g: ID!, $c: ID!) { groupMembershipsConnection(groupId: $g) { nodes { userId } } contextGroupsConnection(contextType: "Course", contextId: $c) { nodes { name } } }`;
    for (const who of WHO) {
      const res = await gqlAs(who, Q, { g: String(group.id), c: String(w.course.id) });
      if (['teacher', 'admin'].includes(who)) {
        expect(res.body.errors).toBeUndefined();
        continue;
      }
      expect(res.body.errors?.length).toBeGreaterThan(0);
      expectNothingRevealed(res);
    }
  });

  const ERR = 'errors { attribute }';
  const mutations: { what: string; query: string; variables: () => Record<string, unknown> }[] = [
    { what: 'updateGroup', query: `mutation($i: UpdateGroupInput!) { updateGroup(input: $i) { group { name } ${ERR} } }`, variables: () => ({ i: { id: String(group.id), name: 'Pwned' } }) },
    { what: 'deleteGroup', query: `mutation($id: ID!) { deleteGroup(id: $id) { group { name } ${ERR} } }`, variables: () => ({ id: String(group.id) }) },
    { what: 'deleteGroup (community)', query: `mutation($id: ID!) { deleteGroup(id: $id) { group { name } ${ERR} } }`, variables: () => ({ id: String(community.id) }) },
    { what: 'joinGroup (someone else)', query: `mutation($i: JoinGroupInput!) { joinGroup(input: $i) { membership { _id } ${ERR} } }`, variables: () => ({ i: { groupId: String(group.id), userId: String(w.student2.id) } }) },
    { what: 'joinGroup (self, invitation only)', query: `mutation($i: JoinGroupInput!) { joinGroup(input: $i) { membership { _id } ${ERR} } }`, variables: () => ({ i: { groupId: String(group.id) } }) },
    {
      what: 'updateGroupMembership',
      query: `mutation($i: UpdateMembershipInput!) { updateGroupMembership(input: $i) { membership { _id } ${ERR} } }`,
      variables: () => ({ i: { groupId: String(group.id), membershipId: String(memberMembershipId), moderator: true } }),
    },
    { what: 'leaveGroup (someone else)', query: `mutation($i: MembershipRefInput!) { leaveGroup(input: $i) { membership { _id } ${ERR} } }`, variables: () => ({ i: { groupId: String(group.id), userId: String(w.student.id) } }) },
    { what: 'inviteToGroup', query: `mutation($i: InviteToGroupInput!) { inviteToGroup(input: $i) { pendingEmails ${ERR} } }`, variables: () => ({ i: { groupId: String(group.id), invitees: [`y.${uniq()}@example.com`] } }) },
    { what: 'createGroup (in category)', query: `mutation($i: CreateGroupInput!) { createGroup(input: $i) { group { _id } ${ERR} } }`, variables: () => ({ i: { groupCategoryId: String(cat.id), name: 'Intruders' } }) },
    { what: 'createGroupSet', query: `mutation($i: CreateGroupCategoryInput!) { createGroupSet(input: $i) { groupCategory { _id } ${ERR} } }`, variables: () => ({ i: { contextType: 'Course', contextId: String(w.course.id), name: `N ${uniq()}` } }) },
    { what: 'updateGroupSet', query: `mutation($i: UpdateGroupCategoryInput!) { updateGroupSet(input: $i) { groupCategory { name } ${ERR} } }`, variables: () => ({ i: { id: String(cat.id), name: 'Renamed' } }) },
    { what: 'deleteGroupSet', query: `mutation($id: ID!) { deleteGroupSet(id: $id) { groupCategory { _id } ${ERR} } }`, variables: () => ({ id: String(cat.id) }) },
  ];

  for (const m of mutations) {
    it(`${m.what} is refused (FORBIDDEN / UNAUTHENTICATED) and stores nothing`, async () => {
      const before = await groupTables(server);
      for (const who of [...DENIED, 'anonymous'] as Who[]) {
        const res = await gqlAs(who, m.query, m.variables());
        const code = res.body.errors?.[0]?.extensions?.code;
        expect({ who, code }).toEqual({ who, code: who === 'anonymous' ? 'UNAUTHENTICATED' : 'FORBIDDEN' });
        expectNothingRevealed(res);
      }
      expect(await groupTables(server)).toEqual(before);
    });
  }
});
