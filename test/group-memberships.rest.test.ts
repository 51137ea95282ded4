import {
  addMembers,
  createCategory,
  createCommunity,
  createGroup,
  expectOk,
  FORBIDDEN,
  groupsWorld,
  groupTables,
  ISO,
  membershipRow,
  NOT_FOUND,
  uniq,
} from './support/groups';
import { startTestServer, TestServer } from './support/server';
import { World, WorldUser } from './support/world';

let server: TestServer;
let world: World;
let w: Awaited<ReturnType<typeof groupsWorld>>;
let courseId: number;

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
  w = await groupsWorld(world);
  courseId = w.course.id;
});
afterAll(() => server.close());

const mPath = (groupId: number) => `/api/v1/groups/${groupId}/memberships`;
const join = (u: WorldUser, groupId: number) => u.api.post(mPath(groupId), { user_id: 'self' });
const states = (list: { user_id: number; workflow_state: string }[]) => list.map((m) => [m.user_id, m.workflow_state]);

describe('POST /api/v1/groups/:group_id/memberships: the workflow table', () => {
  it('auto_join: accepted at once with just_created true; a second call returns it unchanged with just_created false', async () => {
    const g = await createCommunity(w.teacher.api, { join_level: 'parent_context_auto_join' });
    const res = await join(w.student, g.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.any(Number),
      group_id: g.id,
      user_id: w.student.id,
      workflow_state: 'accepted',
      moderator: false,
      created_at: expect.stringMatching(ISO),
      just_created: true,
    });
    const again = await w.student.api.post(mPath(g.id), { user_id: w.student.id });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...res.body, just_created: false });
    expect((await w.student.api.get(`/api/v1/groups/${g.id}`)).body.members_count).toBe(2);
  });

  it('auto_join in an account category group', async () => {
    const cat = expectOk(await server.admin.post('/api/v1/accounts/self/group_categories', { name: `Clubs ${uniq()}` })).body;
    const g = await createGroup(server.admin, cat.id, { join_level: 'parent_context_auto_join' });
    const res = await join(w.outsider, g.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ workflow_state: 'accepted', just_created: true });
    // What could be joined freely can be left.
    expect((await w.outsider.api.delete(`${mPath(g.id)}/self`)).status).toBe(200);
  });

  it('request: requested until a moderator accepts with PUT workflow_state=accepted', async () => {
    const g = await createCommunity(w.teacher.api, { join_level: 'parent_context_request' });
    const res = await join(w.student, g.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ workflow_state: 'requested', just_created: true, moderator: false });
    // Asking again changes nothing.
    const again = await join(w.student, g.id);
    expect(again.body).toMatchObject({ id: res.body.id, workflow_state: 'requested', just_created: false });
    expect((await w.teacher.api.get(`/api/v1/groups/${g.id}`)).body.members_count).toBe(1);
    // The requester cannot accept themself, nor can a plain member.
    expect((await w.student.api.put(`${mPath(g.id)}/${res.body.id}`, { workflow_state: 'accepted' })).status).toBe(403);
    expect(await membershipRow(server, g.id, w.student.id)).toMatchObject({ workflow_state: 'requested' });
    const accepted = await w.teacher.api.put(`${mPath(g.id)}/${res.body.id}`, { workflow_state: 'accepted' });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ id: res.body.id, workflow_state: 'accepted', moderator: false });
    expect(accepted.body).not.toHaveProperty('just_created');
    expect((await w.teacher.api.get(`/api/v1/groups/${g.id}`)).body.members_count).toBe(2);
  });

  it('PUT with another workflow_state is refused (400 naming it; Canvas ignored it) and changes nothing', async () => {
    const g = await createCommunity(w.teacher.api, { join_level: 'parent_context_request' });
    const req = (await join(w.student2, g.id)).body;
    const res = await w.teacher.api.put(`${mPath(g.id)}/${req.id}`, { workflow_state: 'rejected', moderator: true });
    expect(res.status).toBe(400);
    expect(res.body.errors.workflow_state[0]).toMatchObject({ attribute: 'workflow_state', type: 'inclusion' });
    expect(await membershipRow(server, g.id, w.student2.id)).toEqual({ workflow_state: 'requested', moderator: false });
  });

  it('invitation_only: an uninvited caller is refused (403) and nothing is stored', async () => {
    const community = await createCommunity(w.teacher.api, { join_level: 'invitation_only' });
    const cat = await createCategory(w.teacher.api, courseId);
    const classGroup = await createGroup(w.teacher.api, cat.id);
    const before = await groupTables(server);
    for (const g of [community, classGroup]) {
      const res = await join(w.student, g.id);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    }
    expect(await groupTables(server)).toEqual(before);
  });

  it('an invited user accepts by POST self or by PUT workflow_state=accepted', async () => {
    const g = await createCommunity(w.teacher.api, { join_level: 'invitation_only' });
    const invited = expectOk(await w.teacher.api.post(`/api/v1/groups/${g.id}/invite`, { invitees: [w.student.login, w.student2.login] })).body;
    expect(states(invited)).toEqual([
      [w.student.id, 'invited'],
      [w.student2.id, 'invited'],
    ]);
    const viaPost = await join(w.student, g.id);
    expect(viaPost.status).toBe(200);
    expect(viaPost.body).toMatchObject({ id: invited[0].id, workflow_state: 'accepted', just_created: false });
    // An invitee may not make themself moderator while accepting.
    expect((await w.student2.api.put(`/api/v1/groups/${g.id}/users/self`, { workflow_state: 'accepted', moderator: true })).status).toBe(403);
    const viaPut = await w.student2.api.put(`/api/v1/groups/${g.id}/users/self`, { workflow_state: 'accepted' });
    expect(viaPut.status).toBe(200);
    expect(viaPut.body).toMatchObject({ id: invited[1].id, workflow_state: 'accepted', moderator: false });
    expect((await w.student2.api.get(`/api/v1/groups/${g.id}`)).body.members_count).toBe(3);
  });

  it('a teacher adds a student of the course to a class group; users outside the course are refused', async () => {
    const cat = await createCategory(w.teacher.api, courseId);
    const g = await createGroup(w.teacher.api, cat.id);
    const res = await w.teacher.api.post(mPath(g.id), { user_id: w.student.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ user_id: w.student.id, workflow_state: 'accepted', just_created: true });
    const before = await groupTables(server);
    const outsider = await w.teacher.api.post(mPath(g.id), { user_id: w.outsider.id });
    expect(outsider.status).toBe(400);
    expect(outsider.body.errors.user_id[0].attribute).toBe('user_id');
    expect((await w.teacher.api.post(mPath(g.id), { user_id: 99999999 })).status).toBe(404);
    // A student cannot add somebody else.
    expect((await w.student.api.post(mPath(g.id), { user_id: w.student2.id })).status).toBe(403);
    expect(await groupTables(server)).toEqual(before);
  });

  it('community groups are joined by their members only: a moderator cannot add someone (403)', async () => {
    const g = await createCommunity(w.teacher.api, { join_level: 'parent_context_auto_join' });
    const before = await groupTables(server);
    expect((await w.teacher.api.post(mPath(g.id), { user_id: w.student.id })).status).toBe(403);
    expect(await groupTables(server)).toEqual(before);
  });

  it('answers 404 for unknown and deleted groups, 401 without a token', async () => {
    expect((await join(w.student, 99999999)).body).toEqual(NOT_FOUND);
    const g = await createCommunity(w.teacher.api, { join_level: 'parent_context_auto_join' });
    expect((await server.as(null).post(mPath(g.id), { user_id: 'self' })).status).toBe(401);
    await w.teacher.api.delete(`/api/v1/groups/${g.id}`);
    expect((await join(w.student, g.id)).status).toBe(404);
  });
});

describe('moderator rights', () => {
  it('moderators and admins set and clear moderator; plain members cannot', async () => {
    const g = await createCommunity(w.teacher.api, { join_level: 'parent_context_auto_join' });
    const s1 = (await join(w.student, g.id)).body;
    const s2 = (await join(w.student2, g.id)).body;
    // A plain member cannot promote anyone, themself included.
    for (const target of [s1.id, s2.id]) expect((await w.student.api.put(`${mPath(g.id)}/${target}`, { moderator: true })).status).toBe(403);
    expect(await membershipRow(server, g.id, w.student.id)).toEqual({ workflow_state: 'accepted', moderator: false });
    const promoted = await w.teacher.api.put(`${mPath(g.id)}/${s1.id}`, { moderator: 'true' });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({ id: s1.id, moderator: true, workflow_state: 'accepted' });
    // The new moderator may now manage: demote by the /users/:user_id alias.
    const demoted = await w.student.api.put(`/api/v1/groups/${g.id}/users/${w.student.id}`, { moderator: false });
    expect(demoted.body.moderator).toBe(false);
    // A site admin manages any group.
    expect((await server.admin.put(`${mPath(g.id)}/${s2.id}`, { moderator: true })).body.moderator).toBe(true);
  });

  it('only accepted members can moderate', async () => {
    const g = await createCommunity(w.teacher.api, { join_level: 'parent_context_request' });
    const req = (await join(w.student, g.id)).body;
    const res = await w.teacher.api.put(`${mPath(g.id)}/${req.id}`, { moderator: true });
    expect(res.status).toBe(400);
    expect(res.body.errors.moderator).toBeDefined();
    expect(await membershipRow(server, g.id, w.student.id)).toEqual({ workflow_state: 'requested', moderator: false });
    // Accepting and promoting in one call is fine.
    const both = await w.teacher.api.put(`${mPath(g.id)}/${req.id}`, { moderator: true, workflow_state: 'accepted' });
    expect(both.body).toMatchObject({ workflow_state: 'accepted', moderator: true });
  });

  it('teachers moderate class groups of their course', async () => {
    const cat = await createCategory(w.teacher.api, courseId);
    const g = await createGroup(w.teacher.api, cat.id);
    await addMembers(w.teacher.api, g.id, [w.student]);
    const res = await w.teacher.api.put(`/api/v1/groups/${g.id}/users/${w.student.id}`, { moderator: true });
    expect(res.body.moderator).toBe(true);
    // A student moderator can now invite into the class group.
    expect((await w.student.api.post(`/api/v1/groups/${g.id}/invite`, { invitees: [w.student2.login] })).status).toBe(200);
  });
});

describe('leaving and removing', () => {
  it('a community member leaves with DELETE …/memberships/self', async () => {
    const g = await createCommunity(w.teacher.api, { join_level: 'parent_context_auto_join' });
    const m = (await join(w.student, g.id)).body;
    const res = await w.student.api.delete(`${mPath(g.id)}/self`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, id: m.id });
    expect(await membershipRow(server, g.id, w.student.id)).toMatchObject({ workflow_state: 'deleted' });
    expect((await w.student.api.get(`${mPath(g.id)}/self`)).status).toBe(404);
    // Joining again revives the same row.
    const back = await join(w.student, g.id);
    expect(back.body).toMatchObject({ id: m.id, workflow_state: 'accepted', just_created: true });
  });

  it('a student leaves a self-signup group with DELETE …/users/self', async () => {
    const cat = await createCategory(w.teacher.api, courseId, { self_signup: 'enabled' });
    const g = await createGroup(w.teacher.api, cat.id);
    expect((await join(w.student, g.id)).body.workflow_state).toBe('accepted');
    const res = await w.student.api.delete(`/api/v1/groups/${g.id}/users/self`);
    expect(res.status).toBe(200);
    expect(await membershipRow(server, g.id, w.student.id)).toMatchObject({ workflow_state: 'deleted' });
  });

  it('a requester or invitee may withdraw even where members cannot leave', async () => {
    const cat = await createCategory(w.teacher.api, courseId);
    const g = await createGroup(w.teacher.api, cat.id);
    expectOk(await w.teacher.api.put(`/api/v1/groups/${g.id}`, { members: [w.student2.id] }));
    expect(await membershipRow(server, g.id, w.student2.id)).toMatchObject({ workflow_state: 'invited' });
    expect((await w.student2.api.delete(`${mPath(g.id)}/self`)).status).toBe(200);
    expect(await membershipRow(server, g.id, w.student2.id)).toMatchObject({ workflow_state: 'deleted' });
    const community = await createCommunity(w.teacher.api, { join_level: 'parent_context_request' });
    await join(w.student2, community.id);
    expect((await w.student2.api.delete(`/api/v1/groups/${community.id}/users/self`)).status).toBe(200);
    expect(await membershipRow(server, community.id, w.student2.id)).toMatchObject({ workflow_state: 'deleted' });
  });

  it('an invitee accepts a class-group invitation (members[]) by POST self and then cannot leave', async () => {
    const cat = await createCategory(w.teacher.api, courseId);
    const g = await createGroup(w.teacher.api, cat.id);
    expectOk(await w.teacher.api.put(`/api/v1/groups/${g.id}`, { members: [w.student.id] }));
    const res = await join(w.student, g.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ workflow_state: 'accepted', just_created: false });
    expect((await w.student.api.delete(`${mPath(g.id)}/self`)).status).toBe(403);
  });

  it('a student cannot leave a teacher-assigned class group (403); the teacher removes them', async () => {
    const cat = await createCategory(w.teacher.api, courseId);
    const g = await createGroup(w.teacher.api, cat.id);
    await addMembers(w.teacher.api, g.id, [w.student, w.student2]);
    const before = await groupTables(server);
    const res = await w.student.api.delete(`${mPath(g.id)}/self`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    // Nor may a member remove another member.
    expect((await w.student.api.delete(`/api/v1/groups/${g.id}/users/${w.student2.id}`)).status).toBe(403);
    expect(await groupTables(server)).toEqual(before);
    const removed = await w.teacher.api.delete(`/api/v1/groups/${g.id}/users/${w.student.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body.ok).toBe(true);
    expect(await membershipRow(server, g.id, w.student.id)).toMatchObject({ workflow_state: 'deleted' });
  });

  it('a community moderator removes a member by membership id', async () => {
    const g = await createCommunity(w.teacher.api, { join_level: 'parent_context_auto_join' });
    const m = (await join(w.student2, g.id)).body;
    expect((await w.teacher.api.delete(`${mPath(g.id)}/${m.id}`)).status).toBe(200);
    expect((await w.teacher.api.get(`${mPath(g.id)}/${m.id}`)).status).toBe(404);
    expect((await w.teacher.api.delete(`${mPath(g.id)}/${m.id}`)).status).toBe(404);
  });
});

describe('GET a membership: the self forms and the /users/:user_id alias', () => {
  let g: any;
  let mine: any;
  beforeAll(async () => {
    g = await createCommunity(w.teacher.api, { join_level: 'parent_context_auto_join' });
    mine = (await join(w.student, g.id)).body;
  });

  it('finds the same membership by id, self, /users/self and /users/:user_id', async () => {
    const expected = { id: mine.id, group_id: g.id, user_id: w.student.id, workflow_state: 'accepted', moderator: false, created_at: mine.created_at };
    for (const path of [`${mPath(g.id)}/${mine.id}`, `${mPath(g.id)}/self`, `/api/v1/groups/${g.id}/users/self`, `/api/v1/groups/${g.id}/users/${w.student.id}`]) {
      const res = await w.student.api.get(path);
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 200, body: expected });
    }
    // Another member may look it up; the moderator too.
    expect((await w.teacher.api.get(`/api/v1/groups/${g.id}/users/${w.student.id}`)).body.id).toBe(mine.id);
  });

  it('answers 404 for no membership, 403 for a caller who cannot read the roster', async () => {
    expect((await w.student2.api.get(`${mPath(g.id)}/self`)).status).toBe(404);
    expect((await w.student.api.get(`${mPath(g.id)}/99999999`)).status).toBe(404);
    expect((await w.student.api.get(`/api/v1/groups/${g.id}/users/99999999`)).status).toBe(404);
    const priv = await createCommunity(w.teacher.api, { join_level: 'invitation_only' });
    const teacherMembership = (await w.teacher.api.get(`${mPath(priv.id)}/self`)).body;
    const res = await w.outsider.api.get(`${mPath(priv.id)}/${teacherMembership.id}`);
    expect(res.status).toBe(403);
    expect((await w.outsider.api.get(mPath(priv.id))).status).toBe(403);
  });
});

describe('GET /api/v1/groups/:group_id/memberships with filter_states[]', () => {
  let g: any;
  beforeAll(async () => {
    g = await createCommunity(w.teacher.api, { join_level: 'parent_context_request' });
    await join(w.student, g.id);
    await w.teacher.api.post(`/api/v1/groups/${g.id}/invite`, { invitees: [w.student2.login] });
  });

  it('lists every state by default, in id order', async () => {
    const res = await w.teacher.api.get(mPath(g.id));
    expect(res.status).toBe(200);
    expect(states(res.body)).toEqual([
      [w.teacher.id, 'accepted'],
      [w.student.id, 'requested'],
      [w.student2.id, 'invited'],
    ]);
    expect(res.headers.get('link')).toContain('rel="current"');
  });

  it('filters by one or more states and refuses unknown ones', async () => {
    expect(states((await w.teacher.api.get(`${mPath(g.id)}?filter_states[]=requested`)).body)).toEqual([[w.student.id, 'requested']]);
    expect(states((await w.teacher.api.get(`${mPath(g.id)}?filter_states[]=invited&filter_states[]=accepted`)).body)).toEqual([
      [w.teacher.id, 'accepted'],
      [w.student2.id, 'invited'],
    ]);
    const bad = await w.teacher.api.get(`${mPath(g.id)}?filter_states[]=deleted`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors['filter_states[]']).toBeDefined();
  });

  it('students of the course may list the memberships of a group they could join, not of a class group', async () => {
    const open = await createCategory(w.teacher.api, courseId, { self_signup: 'enabled' });
    const openGroup = await createGroup(w.teacher.api, open.id);
    await join(w.student, openGroup.id);
    expect(states((await w.student2.api.get(mPath(openGroup.id))).body)).toEqual([[w.student.id, 'accepted']]);
    const closed = await createCategory(w.teacher.api, courseId);
    const closedGroup = await createGroup(w.teacher.api, closed.id);
    await addMembers(w.teacher.api, closedGroup.id, [w.student]);
    expect((await w.student2.api.get(mPath(closedGroup.id))).status).toBe(403);
    expect((await w.outsider.api.get(mPath(openGroup.id))).status).toBe(403);
  });

  it('paginates', async () => {
    const first = await w.teacher.api.get(`${mPath(g.id)}?per_page=2`);
    expect(first.body).toHaveLength(2);
    expect(first.headers.get('link')).toContain('rel="next"');
  });
});

describe('one group per category', () => {
  it('joining a second group of an exclusive category moves the user', async () => {
    const cat = await createCategory(w.teacher.api, courseId, { self_signup: 'enabled' });
    const a = await createGroup(w.teacher.api, cat.id, { name: 'A' });
    const b = await createGroup(w.teacher.api, cat.id, { name: 'B' });
    expect((await join(w.student, a.id)).body.workflow_state).toBe('accepted');
    const moved = await join(w.student, b.id);
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ workflow_state: 'accepted', just_created: true });
    expect(await membershipRow(server, a.id, w.student.id)).toMatchObject({ workflow_state: 'deleted' });
    expect((await w.teacher.api.get(`/api/v1/groups/${a.id}`)).body.members_count).toBe(0);
    expect((await w.teacher.api.get(`/api/v1/groups/${b.id}`)).body.members_count).toBe(1);
    // A teacher assignment moves too.
    await addMembers(w.teacher.api, a.id, [w.student]);
    expect(await membershipRow(server, b.id, w.student.id)).toMatchObject({ workflow_state: 'deleted' });
    expect(await membershipRow(server, a.id, w.student.id)).toMatchObject({ workflow_state: 'accepted' });
  });

  it('community groups allow several memberships', async () => {
    const [x, y] = [await createCommunity(w.teacher.api, { join_level: 'parent_context_auto_join' }), await createCommunity(w.teacher.api, { join_level: 'parent_context_auto_join' })];
    await join(w.student2, x.id);
    await join(w.student2, y.id);
    expect(await membershipRow(server, x.id, w.student2.id)).toMatchObject({ workflow_state: 'accepted' });
    expect(await membershipRow(server, y.id, w.student2.id)).toMatchObject({ workflow_state: 'accepted' });
  });
});

describe('restricted self-signup', () => {
  it('refuses a student who shares no section with the members (400) and stores nothing', async () => {
    const course = await world.course({ name: 'Sectioned' });
    const [secA, secB] = [await world.section(course.id, 'A'), await world.section(course.id, 'B')];
    const [a1, a2, b1] = await Promise.all([world.user('Ann A'), world.user('Abe A'), world.user('Bea B')]);
    await world.enroll(course.id, a1.id, 'StudentEnrollment', { sectionId: secA.id });
    await world.enroll(course.id, a2.id, 'StudentEnrollment', { sectionId: secA.id });
    await world.enroll(course.id, b1.id, 'StudentEnrollment', { sectionId: secB.id });
    const cat = expectOk(await server.admin.post(`/api/v1/courses/${course.id}/group_categories`, { name: 'Restricted', self_signup: 'restricted' })).body;
    const g = await createGroup(server.admin, cat.id, { name: 'Sec Group' });
    expect((await join(a1, g.id)).status).toBe(200);
    const before = await groupTables(server);
    const res = await join(b1, g.id);
    expect(res.status).toBe(400);
    expect(res.body.errors.user_id[0]).toMatchObject({
      attribute: 'user_id',
      type: 'not_in_group_section',
      message: 'Bea B does not share a section with the other members of Sec Group.',
    });
    expect(await groupTables(server)).toEqual(before);
    expect((await join(a2, g.id)).status).toBe(200);
    // An invitation (members[]) does not get round it: accepting it is refused the same way.
    expectOk(await server.admin.put(`/api/v1/groups/${g.id}`, { members: [a1.id, a2.id, b1.id] }));
    const accept = await b1.api.put(`/api/v1/groups/${g.id}/users/self`, { workflow_state: 'accepted' });
    expect(accept.status).toBe(400);
    expect(accept.body.errors.user_id[0].type).toBe('not_in_group_section');
    expect(await membershipRow(server, g.id, b1.id)).toMatchObject({ workflow_state: 'invited' });
    // An empty group of the category takes anyone of the course.
    const empty = await createGroup(server.admin, cat.id);
    expect((await join(b1, empty.id)).status).toBe(200);
  });
});

describe('capacity', () => {
  it('refuses a join into a full group ("The group is full.") and stores nothing', async () => {
    const cat = await createCategory(w.teacher.api, courseId, { self_signup: 'enabled', group_limit: 2 });
    const g = await createGroup(w.teacher.api, cat.id);
    const third = await world.user('Theo Third');
    await world.enroll(courseId, third.id, 'StudentEnrollment');
    expect((await join(w.student, g.id)).status).toBe(200);
    expect((await join(w.student2, g.id)).status).toBe(200);
    const before = await groupTables(server);
    const res = await join(third, g.id);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: { group_id: [{ attribute: 'group_id', type: 'full', message: 'The group is full.' }] } });
    expect(await groupTables(server)).toEqual(before);
    // A teacher cannot overfill it either.
    expect((await w.teacher.api.post(mPath(g.id), { user_id: third.id })).status).toBe(400);
    expect(await groupTables(server)).toEqual(before);
  });

  it('max_membership caps a community; accepting a request into a full group is refused', async () => {
    const g = await createCommunity(w.teacher.api, { join_level: 'parent_context_request', max_membership: 2 });
    const r1 = (await join(w.student, g.id)).body;
    const r2 = (await join(w.student2, g.id)).body;
    expect((await w.teacher.api.put(`${mPath(g.id)}/${r1.id}`, { workflow_state: 'accepted' })).status).toBe(200);
    const full = await w.teacher.api.put(`${mPath(g.id)}/${r2.id}`, { workflow_state: 'accepted' });
    expect(full.status).toBe(400);
    expect(full.body.errors.group_id[0].message).toBe('The group is full.');
    expect(await membershipRow(server, g.id, w.student2.id)).toMatchObject({ workflow_state: 'requested' });
  });
});

describe('differentiation tags: the bulk forms', () => {
  let course: { id: number };
  let s: WorldUser[];
  let tagCat: any;
  beforeAll(async () => {
    course = await world.course({ name: 'Tagged Course' });
    await world.enroll(course.id, w.teacher.id, 'TeacherEnrollment');
    await world.enroll(course.id, w.ta.id, 'TaEnrollment');
    s = await Promise.all([world.user('Tag One'), world.user('Tag Two'), world.user('Tag Three')]);
    for (const u of s) await world.enroll(course.id, u.id, 'StudentEnrollment');
    tagCat = await createCategory(w.teacher.api, course.id, { non_collaborative: true });
  });

  it('members[] adds the listed students as accepted members (200, empty body)', async () => {
    const tag = await createGroup(w.teacher.api, tagCat.id);
    const res = await w.teacher.api.post(mPath(tag.id), { members: [s[0].id, s[1].id] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(await membershipRow(server, tag.id, s[0].id)).toEqual({ workflow_state: 'accepted', moderator: false });
    expect(await membershipRow(server, tag.id, s[1].id)).toEqual({ workflow_state: 'accepted', moderator: false });
    expect(await membershipRow(server, tag.id, s[2].id)).toBeNull();
  });

  it('all_in_group_course adds every current student except exclude_user_ids[]', async () => {
    const tag = await createGroup(w.ta.api, tagCat.id);
    const res = await w.ta.api.post(mPath(tag.id), { all_in_group_course: true, exclude_user_ids: [s[1].id] });
    expect(res.status).toBe(200);
    const rows = await server.app.ds.query('SELECT user_id FROM group_memberships WHERE group_id = ? AND workflow_state = ? ORDER BY user_id', [tag.id, 'accepted']);
    expect(rows.map((r: { user_id: number }) => Number(r.user_id))).toEqual([s[0].id, s[2].id].sort((a, b) => a - b));
  });

  it('reports users who are not students of the course as a partial failure', async () => {
    const tag = await createGroup(w.teacher.api, tagCat.id);
    const res = await w.teacher.api.post(mPath(tag.id), { members: [s[2].id, w.outsider.id] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Partial failure encountered', invalid_user_ids: [w.outsider.id], membership_errors: [] });
    expect(await membershipRow(server, tag.id, s[2].id)).toMatchObject({ workflow_state: 'accepted' });
    expect(await membershipRow(server, tag.id, w.outsider.id)).toBeNull();
  });

  it('is only for manage_tags holders (403) and only on non-collaborative course groups (400); nothing stored', async () => {
    const tag = await createGroup(w.teacher.api, tagCat.id);
    const collabCat = await createCategory(w.teacher.api, course.id);
    const collab = await createGroup(w.teacher.api, collabCat.id);
    const before = await groupTables(server);
    expect((await s[0].api.post(mPath(tag.id), { members: [s[0].id] })).status).toBe(403);
    expect((await s[0].api.post(mPath(tag.id), { all_in_group_course: true })).status).toBe(403);
    const onCollab = await w.teacher.api.post(mPath(collab.id), { members: [s[0].id] });
    expect(onCollab.status).toBe(400);
    expect((await w.teacher.api.post(mPath(collab.id), { all_in_group_course: true })).status).toBe(400);
    // A plain join on a tag is refused too, and an empty list is an error.
    expect((await w.teacher.api.post(mPath(tag.id), { user_id: s[0].id })).status).toBe(400);
    expect((await w.teacher.api.post(mPath(tag.id), { members: [] , all_in_group_course: false })).status).toBe(400);
    expect(await groupTables(server)).toEqual(before);
  });
});
