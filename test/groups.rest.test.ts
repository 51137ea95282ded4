import { parseLinks } from './support/api';
import {
  addMembers,
  count,
  createCategory,
  createCommunity,
  createGroup,
  FORBIDDEN,
  groupRow,
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
let rootName: string;

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
  w = await groupsWorld(world);
  courseId = w.course.id;
  rootName = (await server.admin.get('/api/v1/accounts/self')).body.name;
});
afterAll(() => server.close());

const gPath = (id: number) => `/api/v1/groups/${id}`;
const ids = (list: { id: number }[]) => list.map((x) => x.id);

/** A class group (regular course category) with the given accepted members. */
async function classGroup(members: WorldUser[] = [], fields: Record<string, unknown> = {}, catFields: Record<string, unknown> = {}) {
  const cat = await createCategory(w.teacher.api, courseId, catFields);
  const group = await createGroup(w.teacher.api, cat.id, fields);
  await addMembers(w.teacher.api, group.id, members);
  return { cat, group };
}

describe('GET /api/v1/groups/:group_id', () => {
  let cat: any;
  let group: any;
  beforeAll(async () => {
    ({ cat, group } = await classGroup([w.student], { name: 'Team Alpha', description: 'We study cells' }));
  });

  it('answers the Canvas Group shape, keyed course_id for a course group', async () => {
    const res = await w.student.api.get(gPath(group.id));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: group.id,
      name: 'Team Alpha',
      description: 'We study cells',
      is_public: false,
      followed_by_user: false,
      join_level: 'invitation_only',
      members_count: 1,
      avatar_url: null,
      context_type: 'Course',
      course_id: courseId,
      context_name: 'Biology 101',
      role: null,
      group_category_id: cat.id,
      storage_quota_mb: 50,
      non_collaborative: false,
      max_membership: null,
      created_at: expect.stringMatching(ISO),
      concluded: false,
      leader: null,
      has_submission: false,
    });
    expect(res.body).not.toHaveProperty('account_id');
  });

  it('shows sis_group_id only to read_sis holders and sis_import_id only to manage_sis holders', async () => {
    const sis = `G-${uniq()}`;
    // Another category: joining a second group of the same one would move the student out of Team Alpha.
    const other = await createCategory(w.teacher.api, courseId);
    const g = await createGroup(server.admin, other.id, { sis_group_id: sis });
    await addMembers(w.teacher.api, g.id, [w.student]);
    const admin = await w.admin.api.get(gPath(g.id));
    expect(admin.body.sis_group_id).toBe(sis);
    expect(admin.body).toHaveProperty('sis_import_id', null);
    // Teachers hold read_sis but not manage_sis.
    const teacher = await w.teacher.api.get(gPath(g.id));
    expect(teacher.body.sis_group_id).toBe(sis);
    expect(teacher.body).not.toHaveProperty('sis_import_id');
    const student = await w.student.api.get(gPath(g.id));
    expect(student.status).toBe(200);
    expect(student.body).not.toHaveProperty('sis_group_id');
    expect(student.body).not.toHaveProperty('sis_import_id');
    // The SIS form of the id finds the group.
    expect((await w.admin.api.get(`/api/v1/groups/sis_group_id:${sis}`)).body.id).toBe(g.id);
  });

  it('includes permissions only with include[]=permissions', async () => {
    const plain = await w.student.api.get(gPath(group.id));
    expect(plain.status).toBe(200);
    expect(plain.body).not.toHaveProperty('permissions');
    const s = await w.student.api.get(`${gPath(group.id)}?include[]=permissions`);
    expect(s.body.permissions).toEqual({ create_discussion_topic: true, join: false, create_announcement: true });
    const t = await w.teacher.api.get(`${gPath(group.id)}?include[]=permissions`);
    expect(t.body.permissions).toEqual({ create_discussion_topic: true, join: false, create_announcement: true });
  });

  it('includes users only with include[]=users, and counts only accepted members', async () => {
    const g = (await classGroup([w.student, w.student2])).group;
    // An invitation is not membership yet.
    expect((await w.teacher.api.put(gPath(g.id), { members: [w.student.id, w.student2.id, w.ta.id] })).status).toBe(200);
    const plain = await w.teacher.api.get(gPath(g.id));
    expect(plain.body.members_count).toBe(2);
    expect(plain.body).not.toHaveProperty('users');
    const withUsers = await w.teacher.api.get(`${gPath(g.id)}?include[]=users`);
    expect(withUsers.body.users.map((u: { name: string }) => u.name)).toEqual(['Sally Student', 'Sam Student']);
    expect(withUsers.body.users[0]).toMatchObject({ id: w.student2.id, name: 'Sally Student', sortable_name: 'Student, Sally', short_name: 'Sally Student' });
  });

  it('reports non_collaborative groups', async () => {
    const tags = await createCategory(w.teacher.api, courseId, { non_collaborative: true });
    const tag = await createGroup(w.teacher.api, tags.id);
    expect((await w.teacher.api.get(gPath(tag.id))).body).toMatchObject({ non_collaborative: true, group_category_id: tags.id });
    // Students see nothing of differentiation tags.
    expect((await w.student.api.get(gPath(tag.id))).status).toBe(401);
  });

  it('keys account groups account_id with the account name as context_name', async () => {
    const acat = await server.admin.post('/api/v1/accounts/self/group_categories', { name: `Staff ${uniq()}` });
    const g = await createGroup(server.admin, acat.body.id, { name: 'Staff Room', join_level: 'parent_context_auto_join' });
    expect(g).toMatchObject({ context_type: 'Account', account_id: 1, context_name: rootName, role: null, join_level: 'parent_context_auto_join' });
    expect(g).not.toHaveProperty('course_id');
  });

  it('answers 401 (Canvas unauthorized body) to callers without rights, 404 for unknown or malformed ids', async () => {
    for (const u of [w.student2, w.outsider, w.otherStudent, w.observer]) {
      const res = await u.api.get(gPath(group.id));
      expect({ who: u.name, status: res.status }).toEqual({ who: u.name, status: 401 });
      expect(res.body).toEqual(FORBIDDEN);
      expect(res.text).not.toContain('Team Alpha');
    }
    expect((await w.teacher.api.get(gPath(99999999))).body).toEqual(NOT_FOUND);
    expect((await w.teacher.api.get('/api/v1/groups/abc')).status).toBe(404);
  });
});

describe('POST /api/v1/groups (community groups)', () => {
  it('creates a community in the root account; the creator is its accepted moderator', async () => {
    const before = await count(server, 'groups');
    const res = await w.student.api.post('/api/v1/groups', { name: 'Chess Club', description: 'Knights', join_level: 'parent_context_auto_join' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Chess Club',
      description: 'Knights',
      is_public: false,
      join_level: 'parent_context_auto_join',
      role: 'communities',
      context_type: 'Account',
      account_id: 1,
      context_name: rootName,
      members_count: 1,
      storage_quota_mb: 50,
    });
    // Create responses carry users, the category and permissions, as in Canvas.
    expect(res.body.users.map((u: { id: number }) => u.id)).toEqual([w.student.id]);
    expect(res.body.group_category).toMatchObject({ role: 'communities', protected: true, account_id: 1 });
    expect(res.body.permissions).toEqual(expect.objectContaining({ create_discussion_topic: true }));
    expect(await count(server, 'groups')).toBe(before + 1);
    const m = await w.student.api.get(`${gPath(res.body.id)}/memberships`);
    expect(m.body).toEqual([
      { id: expect.any(Number), group_id: res.body.id, user_id: w.student.id, workflow_state: 'accepted', moderator: true, created_at: expect.stringMatching(ISO) },
    ]);
  });

  it('names a community created without a name, and refuses an empty name', async () => {
    const res = await w.student.api.post('/api/v1/groups', { description: 'nameless' });
    expect(res.status).toBe(200);
    expect(res.body.name).toMatch(/\S/);
    const before = await groupTables(server);
    const empty = await w.student.api.post('/api/v1/groups', { name: '' });
    expect(empty.status).toBe(400);
    expect(empty.body.errors.name[0].type).toBe('blank');
    expect(await groupTables(server)).toEqual(before);
  });

  it('is_public may go false → true only; true → false is a 400 and changes nothing', async () => {
    const g = await createCommunity(w.student.api);
    expect(g.is_public).toBe(false);
    const pub = await w.student.api.put(gPath(g.id), { is_public: true });
    expect(pub.status).toBe(200);
    expect(pub.body.is_public).toBe(true);
    const back = await w.student.api.put(gPath(g.id), { is_public: false, name: 'Should Not Change' });
    expect(back.status).toBe(400);
    expect(back.body.errors.is_public[0]).toMatchObject({ attribute: 'is_public', type: 'invalid' });
    const after = await w.student.api.get(gPath(g.id));
    expect(after.body).toMatchObject({ is_public: true, name: g.name });
    // A public community is visible to any logged-in user.
    expect((await w.outsider.api.get(gPath(g.id))).status).toBe(200);
    const born = await createCommunity(w.student.api, { is_public: 'true' });
    expect(born.is_public).toBe(true);
  });

  it('ignores storage_quota_mb without manage_storage_quotas and applies it for an admin', async () => {
    const student = await createCommunity(w.student.api, { storage_quota_mb: 500 });
    expect(student.storage_quota_mb).toBe(50);
    const admin = await createCommunity(w.admin.api, { storage_quota_mb: 500 });
    expect(admin.storage_quota_mb).toBe(500);
  });

  it('refuses sis_group_id without manage_sis (401) and stores nothing', async () => {
    const before = await groupTables(server);
    const res = await w.teacher.api.post('/api/v1/groups', { name: 'SIS Club', sis_group_id: 'X1' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: 'You must have manage_sis permission to set sis attributes' });
    expect(await groupTables(server)).toEqual(before);
  });

  it('refuses anonymous callers', async () => {
    const before = await groupTables(server);
    expect((await server.as(null).post('/api/v1/groups', { name: 'Anon Club' })).status).toBe(401);
    expect(await groupTables(server)).toEqual(before);
  });
});

describe('POST /api/v1/group_categories/:group_category_id/groups', () => {
  it('creates class groups always invitation_only, whatever join_level asks', async () => {
    const cat = await createCategory(w.teacher.api, courseId);
    const res = await w.teacher.api.post(`/api/v1/group_categories/${cat.id}/groups`, { name: 'Class G', join_level: 'parent_context_auto_join' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ join_level: 'invitation_only', group_category_id: cat.id, members_count: 0, role: null, course_id: courseId });
    // The teacher is not added as a member of a class group.
    expect(res.body.users).toEqual([]);
    const put = await w.teacher.api.put(gPath(res.body.id), { join_level: 'parent_context_request' });
    expect(put.status).toBe(200);
    expect(put.body.join_level).toBe('invitation_only');
  });

  it('refuses is_public on a class group', async () => {
    const cat = await createCategory(w.teacher.api, courseId);
    const before = await groupTables(server);
    const res = await w.teacher.api.post(`/api/v1/group_categories/${cat.id}/groups`, { name: 'Public?', is_public: true });
    expect(res.status).toBe(400);
    expect(res.body.errors.is_public).toBeDefined();
    expect(await groupTables(server)).toEqual(before);
  });

  it('sets storage_quota_mb for an admin and ignores it for a teacher (create and update)', async () => {
    const cat = await createCategory(w.teacher.api, courseId);
    const t = await createGroup(w.teacher.api, cat.id, { storage_quota_mb: 300 });
    expect(t.storage_quota_mb).toBe(50);
    const a = await createGroup(w.admin.api, cat.id, { storage_quota_mb: 300 });
    expect(a.storage_quota_mb).toBe(300);
    const tu = await w.teacher.api.put(gPath(a.id), { storage_quota_mb: 10 });
    expect(tu.status).toBe(200);
    expect(tu.body.storage_quota_mb).toBe(300);
    const au = await w.admin.api.put(gPath(a.id), { storage_quota_mb: 10 });
    expect(au.body.storage_quota_mb).toBe(10);
  });

  it('refuses students and outsiders with 403, unknown categories with 404', async () => {
    const cat = await createCategory(w.teacher.api, courseId);
    const before = await groupTables(server);
    for (const u of [w.student, w.observer, w.outsider, w.otherStudent]) {
      const res = await u.api.post(`/api/v1/group_categories/${cat.id}/groups`, { name: 'Sneaky' });
      expect({ who: u.name, status: res.status }).toEqual({ who: u.name, status: 403 });
    }
    expect((await w.teacher.api.post('/api/v1/group_categories/99999999/groups', { name: 'Ghost' })).status).toBe(404);
    expect(await groupTables(server)).toEqual(before);
  });
});

describe('PUT /api/v1/groups/:group_id', () => {
  it('updates name and description and leaves unsent fields alone', async () => {
    const { group } = await classGroup([], { description: 'Old', max_membership: 4 });
    const res = await w.teacher.api.put(gPath(group.id), { name: 'New Name' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'New Name', description: 'Old', max_membership: 4 });
    const d = await w.teacher.api.put(gPath(group.id), { description: 'Fresh' });
    expect(d.body).toMatchObject({ name: 'New Name', description: 'Fresh', max_membership: 4 });
  });

  it('with members[] invites new users and removes members not listed', async () => {
    const { group } = await classGroup([w.student]);
    const res = await w.teacher.api.put(gPath(group.id), { members: [w.student2.id, w.outsider.id] });
    expect(res.status).toBe(200);
    expect(await membershipRow(server, group.id, w.student.id)).toMatchObject({ workflow_state: 'deleted' });
    expect(await membershipRow(server, group.id, w.student2.id)).toMatchObject({ workflow_state: 'invited' });
    // Users outside the course are ignored.
    expect(await membershipRow(server, group.id, w.outsider.id)).toBeNull();
    const list = await w.teacher.api.get(`${gPath(group.id)}/memberships`);
    expect(list.body.map((m: { user_id: number; workflow_state: string }) => [m.user_id, m.workflow_state])).toEqual([[w.student2.id, 'invited']]);
    expect(res.body.members_count).toBe(0);
  });

  it('one empty members[] value (form or JSON) empties the group; blanks beside ids are dropped', async () => {
    for (const clear of [
      (id: number) => w.teacher.api.put(gPath(id), [['members[]', '']]),
      (id: number) => w.teacher.api.put(gPath(id), [['members', '']]),
      (id: number) => w.teacher.api.put(gPath(id), { members: [''] }, { json: true }),
      (id: number) => w.teacher.api.put(gPath(id), { members: [' ', null] }, { json: true }),
    ]) {
      const { group } = await classGroup([w.student]);
      const res = await clear(group.id);
      expect(res.status).toBe(200);
      expect(res.body.members_count).toBe(0);
      expect(await membershipRow(server, group.id, w.student.id)).toMatchObject({ workflow_state: 'deleted' });
    }
    const { group } = await classGroup([w.student]);
    const kept = await w.teacher.api.put(gPath(group.id), [['members[]', ''], ['members[]', String(w.student.id)]]);
    expect(kept.status).toBe(200);
    expect(kept.body.members_count).toBe(1);
  });

  it('sets a member as leader with leader[id]; members[] without the leader clears it', async () => {
    const { group } = await classGroup([w.student, w.student2]);
    const res = await w.teacher.api.put(gPath(group.id), { leader: { id: w.student.id } });
    expect(res.status).toBe(200);
    expect(res.body.leader).toMatchObject({ id: w.student.id, display_name: 'Sam Student', html_url: `${server.url}/courses/${courseId}/users/${w.student.id}` });
    expect((await w.student.api.get(gPath(group.id))).body.leader.id).toBe(w.student.id);
    // A non-member cannot lead.
    expect((await w.teacher.api.put(gPath(group.id), { leader: { id: w.outsider.id } })).status).toBe(400);
    const dropped = await w.teacher.api.put(gPath(group.id), { members: [w.student2.id] });
    expect(dropped.status).toBe(200);
    expect(dropped.body.leader).toBeNull();
    expect((await w.teacher.api.get(gPath(group.id))).body.leader).toBeNull();
  });

  it('with override_sis_stickiness=false leaves sticky fields of an SIS group but changes the others', async () => {
    const cat = await createCategory(w.teacher.api, courseId);
    const g = await createGroup(server.admin, cat.id, { name: 'SIS Name', sis_group_id: `SG-${uniq()}` });
    // A change through the API makes the name sticky.
    expect((await w.teacher.api.put(gPath(g.id), { name: 'Teacher Name' })).body.name).toBe('Teacher Name');
    expect(JSON.parse((await groupRow(server, g.id)).sticky_fields)).toEqual(['name']);
    const sisUpdate = await server.admin.put(gPath(g.id), { name: 'SIS Rename', description: 'From SIS', max_membership: 5, override_sis_stickiness: false });
    expect(sisUpdate.status).toBe(200);
    expect(sisUpdate.body).toMatchObject({ name: 'Teacher Name', description: 'From SIS', max_membership: 5 });
    // An SIS-style update does not make its own changes sticky.
    expect(JSON.parse((await groupRow(server, g.id)).sticky_fields)).toEqual(['name']);
    // The default (override) changes the name again.
    expect((await server.admin.put(gPath(g.id), { name: 'Admin Name' })).body.name).toBe('Admin Name');
    // A group without an SIS id keeps no sticky fields.
    const plain = await createGroup(w.teacher.api, cat.id);
    await w.teacher.api.put(gPath(plain.id), { name: 'Plain Rename' });
    expect((await groupRow(server, plain.id)).sticky_fields).toBeNull();
  });

  it('needs manage_sis to change sis_group_id (401) but not to update other fields of an SIS group', async () => {
    const cat = await createCategory(w.teacher.api, courseId);
    const sis = `SG-${uniq()}`;
    const g = await createGroup(server.admin, cat.id, { sis_group_id: sis });
    const res = await w.teacher.api.put(gPath(g.id), { sis_group_id: 'MINE' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: 'You must have manage_sis permission to update sis attributes' });
    expect((await groupRow(server, g.id)).sis_group_id).toBe(sis);
    const ok = await w.teacher.api.put(gPath(g.id), { description: 'fine' });
    expect(ok.status).toBe(200);
    expect((await groupRow(server, g.id)).sis_group_id).toBe(sis);
  });

  it('refuses plain members, outsiders and anonymous callers and changes nothing', async () => {
    const { group } = await classGroup([w.student], { name: 'Locked Name' });
    for (const u of [w.student, w.student2, w.outsider, w.observer]) {
      const res = await u.api.put(gPath(group.id), { name: 'Hacked' });
      expect({ who: u.name, status: res.status }).toEqual({ who: u.name, status: 403 });
      expect(res.text).not.toContain('Locked Name');
    }
    expect((await server.as(null).put(gPath(group.id), { name: 'Hacked' })).status).toBe(401);
    expect((await groupRow(server, group.id)).name).toBe('Locked Name');
    expect((await w.teacher.api.put(gPath(99999999), { name: 'x' })).status).toBe(404);
  });
});

describe('DELETE /api/v1/groups/:group_id', () => {
  it('deletes the group, removes its members and answers the group JSON', async () => {
    const { group } = await classGroup([w.student, w.student2], { name: 'Doomed' });
    const res = await w.teacher.api.delete(gPath(group.id));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: group.id, name: 'Doomed', course_id: courseId });
    expect(await count(server, 'group_memberships', 'group_id = ? AND workflow_state <> ?', [group.id, 'deleted'])).toBe(0);
    expect((await groupRow(server, group.id)).workflow_state).toBe('deleted');
    expect((await w.teacher.api.get(gPath(group.id))).status).toBe(404);
    expect((await w.student.api.get(`${gPath(group.id)}/memberships`)).status).toBe(404);
    expect(ids((await w.student.api.get('/api/v1/users/self/groups?per_page=100')).body)).not.toContain(group.id);
    expect(ids((await w.teacher.api.get(`/api/v1/courses/${courseId}/groups?per_page=100`)).body)).not.toContain(group.id);
    expect((await w.teacher.api.delete(gPath(group.id))).status).toBe(404);
  });

  it('lets a community moderator delete; refuses members, outsiders and anonymous callers', async () => {
    const g = await createCommunity(w.student.api, { join_level: 'parent_context_auto_join' });
    expect((await w.student2.api.post(`${gPath(g.id)}/memberships`, { user_id: 'self' })).status).toBe(200);
    const before = await groupTables(server);
    for (const u of [w.student2, w.outsider]) expect((await u.api.delete(gPath(g.id))).status).toBe(403);
    expect((await server.as(null).delete(gPath(g.id))).status).toBe(401);
    expect(await groupTables(server)).toEqual(before);
    expect((await w.student.api.delete(gPath(g.id))).status).toBe(200);
  });
});

describe('POST /api/v1/groups/:group_id/invite', () => {
  it('invites existing users and keeps unknown addresses until a user with that login is created', async () => {
    const { group } = await classGroup([w.student]);
    const newcomer = `newcomer.${uniq()}@example.com`;
    const res = await w.teacher.api.post(`${gPath(group.id)}/invite`, { invitees: [w.student2.login, newcomer.toUpperCase(), w.student.login] });
    expect(res.status).toBe(200);
    expect(res.body.map((m: any) => [m.user_id, m.workflow_state])).toEqual([
      [w.student2.id, 'invited'],
      [w.student.id, 'accepted'],
    ]);
    expect(res.body[0]).toMatchObject({ id: expect.any(Number), group_id: group.id, moderator: false });
    expect(await count(server, 'group_invitations', 'group_id = ? AND email = ?', [group.id, newcomer])).toBe(1);

    // The address becomes a user through the Users API: an invited membership waits for them.
    const created = await server.admin.post('/api/v1/accounts/self/users', { user: { name: 'Nora Newcomer' }, pseudonym: { unique_id: newcomer } });
    expect(created.status).toBe(200);
    expect(await membershipRow(server, group.id, created.body.id)).toEqual({ workflow_state: 'invited', moderator: false });
    const invited = await w.teacher.api.get(`${gPath(group.id)}/memberships?filter_states[]=invited`);
    expect(invited.body.map((m: { user_id: number }) => m.user_id).sort()).toEqual([w.student2.id, created.body.id].sort());
  });

  it('refuses bad addresses and an empty list with 400, storing nothing', async () => {
    const { group } = await classGroup();
    const before = await groupTables(server);
    const bad = await w.teacher.api.post(`${gPath(group.id)}/invite`, { invitees: ['not-an-address', `ok.${uniq()}@example.com`] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.invitees[0]).toMatchObject({ attribute: 'invitees', type: 'invalid' });
    const empty = await w.teacher.api.post(`${gPath(group.id)}/invite`, {});
    expect(empty.status).toBe(400);
    expect(await groupTables(server)).toEqual(before);
  });

  it('refuses members who do not moderate, and outsiders (403)', async () => {
    const { group } = await classGroup([w.student]);
    const before = await groupTables(server);
    for (const u of [w.student, w.outsider]) expect((await u.api.post(`${gPath(group.id)}/invite`, { invitees: [w.student2.login] })).status).toBe(403);
    expect(await groupTables(server)).toEqual(before);
    expect((await w.teacher.api.post(`${gPath(99999999)}/invite`, { invitees: [w.student2.login] })).status).toBe(404);
  });
});

describe('GET /api/v1/groups/:group_id/users', () => {
  let group: any;
  beforeAll(async () => {
    ({ group } = await classGroup([w.student, w.student2]));
  });

  it('lists accepted members by sortable name', async () => {
    const res = await w.student.api.get(`${gPath(group.id)}/users`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { id: w.student2.id, name: 'Sally Student', sortable_name: 'Student, Sally', short_name: 'Sally Student', created_at: expect.stringMatching(ISO) },
      { id: w.student.id, name: 'Sam Student', sortable_name: 'Student, Sam', short_name: 'Sam Student', created_at: expect.stringMatching(ISO) },
    ]);
    expect(res.headers.get('link')).toContain('rel="current"');
  });

  it('refuses a search_term shorter than 3 characters with the Canvas body', async () => {
    const res = await w.student.api.get(`${gPath(group.id)}/users?search_term=Sa`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: [{ field: 'search_term', code: 'invalid', message: '3 or more characters is required' }] });
  });

  it('filters by partial name, case-insensitively', async () => {
    expect(ids((await w.student.api.get(`${gPath(group.id)}/users?search_term=sall`)).body)).toEqual([w.student2.id]);
    expect(ids((await w.student.api.get(`${gPath(group.id)}/users?search_term=Student`)).body)).toEqual([w.student2.id, w.student.id]);
    expect((await w.student.api.get(`${gPath(group.id)}/users?search_term=zzz`)).body).toEqual([]);
  });

  it('adds avatar_url with include[]=avatar_url', async () => {
    const res = await w.student.api.get(`${gPath(group.id)}/users?include[]=avatar_url`);
    expect(res.body[0]).toHaveProperty('avatar_url');
  });

  it('drops members whose enrollment is inactive with exclude_inactive=true', async () => {
    const { group: g } = await classGroup([w.student, w.student2]);
    const c2 = await world.course({ name: 'Inactive Course' });
    const u = await world.user('Ina Inactive');
    const e = await world.enroll(courseId, u.id, 'StudentEnrollment');
    await addMembers(w.teacher.api, g.id, [u]);
    void c2;
    // There is no REST route to deactivate an enrollment; set the state as Canvas would.
    await server.app.ds.query('UPDATE enrollments SET workflow_state = ? WHERE id = ?', ['inactive', e.id]);
    expect(ids((await w.teacher.api.get(`${gPath(g.id)}/users`)).body)).toContain(u.id);
    const active = await w.teacher.api.get(`${gPath(g.id)}/users?exclude_inactive=true`);
    expect(ids(active.body).sort()).toEqual([w.student.id, w.student2.id].sort());
  });

  it('refuses callers who cannot see the group', async () => {
    for (const u of [w.outsider, w.otherStudent, w.observer]) {
      const res = await u.api.get(`${gPath(group.id)}/users`);
      expect(res.status).toBe(403);
      expect(res.text).not.toContain('Sam Student');
    }
  });
});

describe('POST /api/v1/groups/:group_id/preview_html', () => {
  it('removes scripts and event handlers and keeps ordinary markup', async () => {
    const { group } = await classGroup([w.student]);
    const html = '<p onclick="steal()">Hello <b>there</b></p><script>alert(1)</script><img src="https://example.com/a.png" onerror="alert(2)"><a href="javascript:alert(3)">x</a>';
    const res = await w.student.api.post(`${gPath(group.id)}/preview_html`, { html });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['html']);
    expect(res.body.html).toContain('<p>Hello <b>there</b></p>');
    expect(res.body.html).toContain('<img src="https://example.com/a.png" />');
    expect(res.body.html).not.toMatch(/script|onclick|onerror|javascript:|alert/);
    expect((await w.outsider.api.post(`${gPath(group.id)}/preview_html`, { html })).status).toBe(403);
  });
});

describe('GET /api/v1/groups/:group_id/permissions', () => {
  it('answers each asked permission for the caller; unknown names are false', async () => {
    const { group } = await classGroup([w.student]);
    const q = '?permissions[]=create_discussion_topic&permissions[]=manage&permissions[]=read&permissions[]=no_such_thing';
    const s = await w.student.api.get(`${gPath(group.id)}/permissions${q}`);
    expect(s.status).toBe(200);
    expect(s.body).toEqual({ create_discussion_topic: true, manage: false, read: true, no_such_thing: false });
    const t = await w.teacher.api.get(`${gPath(group.id)}/permissions${q}`);
    expect(t.body).toEqual({ create_discussion_topic: true, manage: true, read: true, no_such_thing: false });
    expect((await w.outsider.api.get(`${gPath(group.id)}/permissions${q}`)).status).toBe(403);
  });
});

describe('GET /api/v1/users/self/groups', () => {
  let me: WorldUser;
  let classG: any;
  let community: any;
  beforeAll(async () => {
    me = await world.user('Gina Groups');
    await world.enroll(courseId, me.id, 'StudentEnrollment');
    classG = (await classGroup([me], { name: 'A Class Group' })).group;
    community = await createCommunity(me.api, { name: 'B Community' });
    // An invitation and a deleted group do not count.
    const invitedTo = (await classGroup()).group;
    await w.teacher.api.put(gPath(invitedTo.id), { members: [me.id] });
    const gone = (await classGroup([me])).group;
    await w.teacher.api.delete(gPath(gone.id));
  });

  it("lists the caller's active groups by name", async () => {
    const res = await me.api.get('/api/v1/users/self/groups');
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([classG.id, community.id]);
    expect(res.body[0]).toMatchObject({ course_id: courseId, context_type: 'Course' });
    expect(res.body[1]).toMatchObject({ account_id: 1, context_type: 'Account', role: 'communities' });
  });

  it('filters by context_type and refuses an unknown one', async () => {
    expect(ids((await me.api.get('/api/v1/users/self/groups?context_type=Course')).body)).toEqual([classG.id]);
    expect(ids((await me.api.get('/api/v1/users/self/groups?context_type=Account')).body)).toEqual([community.id]);
    expect((await me.api.get('/api/v1/users/self/groups?context_type=Planet')).status).toBe(400);
  });

  it('pages with Canvas bookmarks', async () => {
    const first = await me.api.get('/api/v1/users/self/groups?per_page=1');
    expect(ids(first.body)).toEqual([classG.id]);
    const links = parseLinks(first.headers.get('link'));
    expect(links.current).toContain('page=first&per_page=1');
    expect(links.next).toMatch(/page=bookmark%3A[\w-]+&per_page=1$/);
    expect(links.last).toBeUndefined();
    const second = await me.api.get(links.next.replace(server.url, ''));
    expect(ids(second.body)).toEqual([community.id]);
    expect(parseLinks(second.headers.get('link')).next).toBeUndefined();
  });

  it('is empty for a user without groups and refuses anonymous callers', async () => {
    expect((await w.outsider.api.get('/api/v1/users/self/groups')).body).toEqual([]);
    expect((await server.as(null).get('/api/v1/users/self/groups')).status).toBe(401);
  });
});

describe('GET /api/v1/courses/:course_id/groups and /api/v1/accounts/:account_id/groups', () => {
  let course: { id: number };
  let g1: any;
  let g2: any;
  let tag: any;
  beforeAll(async () => {
    course = await world.course({ name: 'Listing Course' });
    await world.enroll(course.id, w.teacher.id, 'TeacherEnrollment');
    await world.enroll(course.id, w.student.id, 'StudentEnrollment');
    await world.enroll(course.id, w.student2.id, 'StudentEnrollment');
    const cat = await createCategory(w.teacher.api, course.id);
    g1 = await createGroup(w.teacher.api, cat.id, { name: 'Group One' });
    g2 = await createGroup(w.teacher.api, cat.id, { name: 'Group Two' });
    await addMembers(w.teacher.api, g1.id, [w.student]);
    const tags = await createCategory(w.teacher.api, course.id, { non_collaborative: true });
    tag = await createGroup(w.teacher.api, tags.id, { name: 'Tag One' });
  });

  it('lists the collaborative groups of the course to teachers and students', async () => {
    for (const u of [w.teacher, w.student, w.student2]) {
      const res = await u.api.get(`/api/v1/courses/${course.id}/groups`);
      expect(res.status).toBe(200);
      expect(ids(res.body)).toEqual([g1.id, g2.id]);
    }
  });

  it('with only_own_groups=true lists only the caller’s groups', async () => {
    expect(ids((await w.student.api.get(`/api/v1/courses/${course.id}/groups?only_own_groups=true`)).body)).toEqual([g1.id]);
    expect((await w.student2.api.get(`/api/v1/courses/${course.id}/groups?only_own_groups=1`)).body).toEqual([]);
  });

  it('filters by collaboration_state for tag managers', async () => {
    expect(ids((await w.teacher.api.get(`/api/v1/courses/${course.id}/groups?collaboration_state=non_collaborative`)).body)).toEqual([tag.id]);
    expect(ids((await w.teacher.api.get(`/api/v1/courses/${course.id}/groups?collaboration_state=all`)).body).sort()).toEqual([g1.id, g2.id, tag.id].sort());
    expect((await w.student.api.get(`/api/v1/courses/${course.id}/groups?collaboration_state=non_collaborative`)).status).toBe(403);
    // A student asking for all sees the collaborative ones only.
    expect(ids((await w.student.api.get(`/api/v1/courses/${course.id}/groups?collaboration_state=all`)).body)).toEqual([g1.id, g2.id]);
    expect((await w.teacher.api.get(`/api/v1/courses/${course.id}/groups?collaboration_state=sometimes`)).status).toBe(400);
  });

  it('includes users with include[]=users', async () => {
    const res = await w.teacher.api.get(`/api/v1/courses/${course.id}/groups?include[]=users`);
    expect(res.body[0].users.map((u: { id: number }) => u.id)).toEqual([w.student.id]);
    expect(res.body[1].users).toEqual([]);
    expect((await w.teacher.api.get(`/api/v1/courses/${course.id}/groups`)).body[0]).not.toHaveProperty('users');
  });

  it('refuses outsiders and observers (403), anonymous (401); 404 for unknown courses', async () => {
    for (const u of [w.outsider, w.otherStudent]) {
      const res = await u.api.get(`/api/v1/courses/${course.id}/groups`);
      expect(res.status).toBe(403);
      expect(res.text).not.toContain('Group One');
    }
    expect((await server.as(null).get(`/api/v1/courses/${course.id}/groups`)).status).toBe(401);
    expect((await w.teacher.api.get('/api/v1/courses/99999999/groups')).status).toBe(404);
  });

  it('lists account groups to account admins only', async () => {
    const acat = await server.admin.post('/api/v1/accounts/self/group_categories', { name: `Acct ${uniq()}` });
    const ag = await createGroup(server.admin, acat.body.id, { name: 'Account Group' });
    const res = await w.admin.api.get('/api/v1/accounts/self/groups?per_page=100');
    expect(res.status).toBe(200);
    expect(ids(res.body)).toContain(ag.id);
    expect(res.body.every((g: { context_type: string; account_id: number }) => g.context_type === 'Account' && g.account_id === 1)).toBe(true);
    expect((await w.teacher.api.get('/api/v1/accounts/self/groups')).status).toBe(403);
  });
});
