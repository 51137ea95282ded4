import { parseLinks } from './support/api';
import {
  count,
  createCategory,
  createCommunity,
  createGroup,
  FORBIDDEN,
  groupsWorld,
  groupTables,
  ISO,
  NOT_FOUND,
  UNAUTHENTICATED,
  uniq,
} from './support/groups';
import { startTestServer, TestServer } from './support/server';
import { World } from './support/world';

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

const catPath = (id: number) => `/api/v1/group_categories/${id}`;

describe('POST /api/v1/courses/:course_id/group_categories', () => {
  it('creates a category with the Canvas GroupCategory shape', async () => {
    const res = await w.teacher.api.post(`/api/v1/courses/${courseId}/group_categories`, { name: 'Project Teams' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'Project Teams',
      role: null,
      self_signup: null,
      group_limit: null,
      auto_leader: null,
      created_at: expect.stringMatching(ISO),
      context_type: 'Course',
      course_id: courseId,
      protected: false,
      allows_multiple_memberships: false,
      is_member: false,
      non_collaborative: false,
      groups_count: 0,
    });
    expect(await count(server, 'group_categories', 'id = ? AND context_type = ? AND context_id = ?', [res.body.id, 'Course', courseId])).toBe(1);
  });

  it('stores self_signup, group_limit and auto_leader', async () => {
    const res = await w.teacher.api.post(`/api/v1/courses/${courseId}/group_categories`, {
      name: `Signup ${uniq()}`,
      self_signup: 'restricted',
      group_limit: '4',
      auto_leader: 'first',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ self_signup: 'restricted', group_limit: 4, auto_leader: 'first' });
    const enabled = await w.teacher.api.post(`/api/v1/courses/${courseId}/group_categories`, { name: `Open ${uniq()}`, self_signup: 'enabled' });
    expect(enabled.body.self_signup).toBe('enabled');
  });

  it('creates create_group_count empty groups named after the category', async () => {
    const res = await w.teacher.api.post(`/api/v1/courses/${courseId}/group_categories`, { name: 'Lab', create_group_count: 3 });
    expect(res.status).toBe(200);
    expect(res.body.groups_count).toBe(3);
    const groups = await w.teacher.api.get(`${catPath(res.body.id)}/groups`);
    expect(groups.status).toBe(200);
    expect(groups.body.map((g: { name: string }) => g.name)).toEqual(['Lab 1', 'Lab 2', 'Lab 3']);
    for (const g of groups.body) {
      expect(g).toMatchObject({ group_category_id: res.body.id, course_id: courseId, context_type: 'Course', join_level: 'invitation_only', members_count: 0 });
    }
  });

  describe('name', () => {
    it('is required, at most 255 characters and unique in the context; nothing is stored', async () => {
      const before = await groupTables(server);
      const missing = await w.teacher.api.post(`/api/v1/courses/${courseId}/group_categories`, { self_signup: 'enabled' });
      expect(missing.status).toBe(400);
      expect(missing.body.errors.name[0]).toMatchObject({ attribute: 'name', type: 'blank' });
      const blank = await w.teacher.api.post(`/api/v1/courses/${courseId}/group_categories`, { name: '   ' });
      expect(blank.status).toBe(400);
      expect(blank.body.errors.name[0].type).toBe('blank');
      const long = await w.teacher.api.post(`/api/v1/courses/${courseId}/group_categories`, { name: 'x'.repeat(256) });
      expect(long.status).toBe(400);
      expect(long.body.errors.name[0]).toMatchObject({ attribute: 'name', type: 'too_long' });
      const name = `Unique ${uniq()}`;
      await createCategory(w.teacher.api, courseId, { name });
      const after1 = await groupTables(server);
      const dup = await w.teacher.api.post(`/api/v1/courses/${courseId}/group_categories`, { name });
      expect(dup.status).toBe(400);
      expect(dup.body.errors.name[0]).toMatchObject({ attribute: 'name', type: 'taken' });
      expect(await groupTables(server)).toEqual(after1);
      expect(after1.group_categories).toBe(before.group_categories + 1);
      // The same name in another course is fine.
      const elsewhere = await server.admin.post(`/api/v1/courses/${w.otherCourse.id}/group_categories`, { name });
      expect(elsewhere.status).toBe(200);
    });

    it('accepts exactly 255 characters', async () => {
      const name = `${uniq()}${'y'.repeat(247)}`;
      const res = await w.teacher.api.post(`/api/v1/courses/${courseId}/group_categories`, { name });
      expect(res.status).toBe(200);
      expect(res.body.name).toBe(name);
    });

    it('cannot take a built-in category name', async () => {
      const res = await w.teacher.api.post(`/api/v1/courses/${courseId}/group_categories`, { name: 'Student Groups' });
      expect(res.status).toBe(400);
      expect(res.body.errors.name[0].type).toBe('invalid');
    });
  });

  it('accepts self_signup only as enabled or restricted', async () => {
    const before = await groupTables(server);
    const res = await w.teacher.api.post(`/api/v1/courses/${courseId}/group_categories`, { name: `Bad ${uniq()}`, self_signup: 'sometimes' });
    expect(res.status).toBe(400);
    expect(res.body.errors.self_signup[0]).toMatchObject({ attribute: 'self_signup', type: 'inclusion' });
    expect(await groupTables(server)).toEqual(before);
  });

  it('requires group_limit to be a number greater than 1', async () => {
    const before = await groupTables(server);
    const one = await w.teacher.api.post(`/api/v1/courses/${courseId}/group_categories`, { name: `One ${uniq()}`, group_limit: 1 });
    expect(one.status).toBe(400);
    expect(one.body.errors.group_limit[0]).toMatchObject({ attribute: 'group_limit', message: 'Must be greater than 1' });
    const abc = await w.teacher.api.post(`/api/v1/courses/${courseId}/group_categories`, { name: `Abc ${uniq()}`, group_limit: 'abc' });
    expect(abc.status).toBe(400);
    expect(abc.body.errors.group_limit[0].attribute).toBe('group_limit');
    const count1 = await w.teacher.api.post(`/api/v1/courses/${courseId}/group_categories`, { name: `N ${uniq()}`, create_group_count: 'many' });
    expect(count1.status).toBe(400);
    expect(Object.keys(count1.body.errors)).toEqual(['create_group_count']);
    expect(await groupTables(server)).toEqual(before);
  });

  describe('non_collaborative (differentiation tags)', () => {
    it('needs manage_tags: teachers, TAs and admins yes, students no', async () => {
      const t = await w.teacher.api.post(`/api/v1/courses/${courseId}/group_categories`, { name: `Tags T ${uniq()}`, non_collaborative: true });
      expect(t.status).toBe(200);
      expect(t.body.non_collaborative).toBe(true);
      // TAs hold manage_tags by default (src/auth/permissions.ts: TA = teacher minus course administration).
      const ta = await w.ta.api.post(`/api/v1/courses/${courseId}/group_categories`, { name: `Tags TA ${uniq()}`, non_collaborative: 'true' });
      expect(ta.status).toBe(200);
      const admin = await w.admin.api.post(`/api/v1/courses/${courseId}/group_categories`, { name: `Tags A ${uniq()}`, non_collaborative: '1' });
      expect(admin.status).toBe(200);
      const before = await groupTables(server);
      const s = await w.student.api.post(`/api/v1/courses/${courseId}/group_categories`, { name: `Tags S ${uniq()}`, non_collaborative: true });
      expect(s.status).toBe(403);
      expect(s.body).toEqual(FORBIDDEN);
      expect(await groupTables(server)).toEqual(before);
    });

    it('cannot be changed after creation', async () => {
      const cat = await createCategory(w.teacher.api, courseId);
      const res = await w.teacher.api.put(catPath(cat.id), { non_collaborative: true });
      expect(res.status).toBe(400);
      expect(res.body.errors.non_collaborative[0].type).toBe('read_only');
      expect((await w.teacher.api.get(catPath(cat.id))).body.non_collaborative).toBe(false);
    });
  });

  it('refuses students, observers, outsiders and students of other courses with 403, anonymous with 401', async () => {
    const before = await groupTables(server);
    for (const u of [w.student, w.observer, w.outsider, w.otherStudent]) {
      const res = await u.api.post(`/api/v1/courses/${courseId}/group_categories`, { name: `Nope ${uniq()}` });
      expect({ who: u.name, status: res.status }).toEqual({ who: u.name, status: 403 });
      expect(res.body).toEqual(FORBIDDEN);
    }
    const anon = await server.as(null).post(`/api/v1/courses/${courseId}/group_categories`, { name: 'Anon' });
    expect(anon.status).toBe(401);
    expect(anon.body).toEqual(UNAUTHENTICATED);
    expect(await groupTables(server)).toEqual(before);
  });

  it('answers 404 for an unknown course', async () => {
    const res = await server.admin.post('/api/v1/courses/99999999/group_categories', { name: 'Ghost' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
  });
});

describe('POST /api/v1/accounts/:account_id/group_categories', () => {
  it('creates an account category for an admin, keyed account_id', async () => {
    const res = await w.admin.api.post('/api/v1/accounts/self/group_categories', { name: `Staff ${uniq()}` });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ context_type: 'Account', account_id: 1, role: null, self_signup: null, non_collaborative: false });
    expect(res.body).not.toHaveProperty('course_id');
    const show = await server.admin.get(catPath(res.body.id));
    expect(show.body.account_id).toBe(1);
  });

  it('refuses self_signup and non_collaborative on an account category', async () => {
    const before = await groupTables(server);
    const signup = await server.admin.post('/api/v1/accounts/self/group_categories', { name: `S ${uniq()}`, self_signup: 'enabled' });
    expect(signup.status).toBe(400);
    expect(signup.body.errors.self_signup[0].type).toBe('invalid');
    const tags = await server.admin.post('/api/v1/accounts/self/group_categories', { name: `T ${uniq()}`, non_collaborative: true });
    expect(tags.status).toBe(400);
    expect(tags.body.errors.non_collaborative).toBeDefined();
    expect(await groupTables(server)).toEqual(before);
  });

  it('refuses non-admins (teachers included) with 403', async () => {
    const before = await groupTables(server);
    for (const u of [w.teacher, w.student, w.outsider]) {
      const res = await u.api.post('/api/v1/accounts/self/group_categories', { name: `No ${uniq()}` });
      expect(res.status).toBe(403);
    }
    expect(await groupTables(server)).toEqual(before);
    expect((await server.admin.post('/api/v1/accounts/99999/group_categories', { name: 'X' })).status).toBe(404);
  });
});

describe('GET /api/v1/courses/:course_id/group_categories and /accounts/:account_id/group_categories', () => {
  let collab: any;
  let tags: any;
  let listCourse: { id: number };
  beforeAll(async () => {
    listCourse = await world.course({ name: 'Listing' });
    await world.enroll(listCourse.id, w.teacher.id, 'TeacherEnrollment');
    await world.enroll(listCourse.id, w.student.id, 'StudentEnrollment');
    await world.enroll(listCourse.id, w.observer.id, 'ObserverEnrollment', { associatedUserId: w.student.id });
    collab = await createCategory(w.teacher.api, listCourse.id, { name: 'B Collaborative' });
    tags = await createCategory(w.teacher.api, listCourse.id, { name: 'A Tags', non_collaborative: true });
  });

  it('lists collaborative and tag categories, by name, to a teacher', async () => {
    const res = await w.teacher.api.get(`/api/v1/courses/${listCourse.id}/group_categories`);
    expect(res.status).toBe(200);
    expect(res.body.map((c: { id: number }) => c.id)).toEqual([tags.id, collab.id]);
    expect(res.headers.get('link')).toContain('rel="current"');
  });

  it('lists collaborative categories but not tags to a student', async () => {
    const res = await w.student.api.get(`/api/v1/courses/${listCourse.id}/group_categories`);
    expect(res.status).toBe(200);
    expect(res.body.map((c: { id: number }) => c.id)).toEqual([collab.id]);
  });

  it('refuses outsiders, observers and students of other courses (403) and anonymous callers (401)', async () => {
    for (const u of [w.outsider, w.otherStudent, w.observer]) {
      const res = await u.api.get(`/api/v1/courses/${listCourse.id}/group_categories`);
      expect({ who: u.name, status: res.status }).toEqual({ who: u.name, status: 403 });
      expect(res.text).not.toContain('Collaborative');
    }
    expect((await server.as(null).get(`/api/v1/courses/${listCourse.id}/group_categories`)).status).toBe(401);
    expect((await w.teacher.api.get('/api/v1/courses/99999999/group_categories')).status).toBe(404);
  });

  it('paginates with Link headers', async () => {
    const c = await world.course({ name: 'Many Sets' });
    for (let i = 0; i < 3; i++) await createCategory(server.admin, c.id, { name: `Set ${i}` });
    const first = await server.admin.get(`/api/v1/courses/${c.id}/group_categories?per_page=2`);
    expect(first.body.map((x: { name: string }) => x.name)).toEqual(['Set 0', 'Set 1']);
    const next = parseLinks(first.headers.get('link')).next;
    expect(next).toContain('page=2&per_page=2');
    const second = await server.admin.get(next.replace(server.url, ''));
    expect(second.body.map((x: { name: string }) => x.name)).toEqual(['Set 2']);
  });

  it('lists account categories to account admins only', async () => {
    const cat = await server.admin.post('/api/v1/accounts/self/group_categories', { name: `Acct ${uniq()}` });
    const res = await w.admin.api.get('/api/v1/accounts/self/group_categories?per_page=100');
    expect(res.status).toBe(200);
    expect(res.body.map((c: { id: number }) => c.id)).toContain(cat.body.id);
    expect((await w.teacher.api.get('/api/v1/accounts/self/group_categories')).status).toBe(403);
  });
});

describe('GET /api/v1/group_categories/:id', () => {
  it('shows a collaborative category to its course and is_member to a member', async () => {
    const cat = await createCategory(w.teacher.api, courseId, { self_signup: 'enabled' });
    const group = await createGroup(w.teacher.api, cat.id);
    const s = await w.student.api.get(catPath(cat.id));
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ id: cat.id, is_member: false, groups_count: 1, self_signup: 'enabled' });
    expect((await w.student.api.post(`/api/v1/groups/${group.id}/memberships`, { user_id: 'self' })).status).toBe(200);
    expect((await w.student.api.get(catPath(cat.id))).body.is_member).toBe(true);
    expect((await w.teacher.api.get(catPath(cat.id))).body.is_member).toBe(false);
  });

  it('hides tag categories from students and every category from outsiders (403); 404 for unknown ids', async () => {
    const tags = await createCategory(w.teacher.api, courseId, { non_collaborative: true });
    const collab = await createCategory(w.teacher.api, courseId);
    expect((await w.student.api.get(catPath(tags.id))).status).toBe(403);
    expect((await w.ta.api.get(catPath(tags.id))).status).toBe(200);
    for (const u of [w.outsider, w.otherStudent]) {
      const res = await u.api.get(catPath(collab.id));
      expect(res.status).toBe(403);
      expect(res.text).not.toContain(collab.name);
    }
    expect((await server.as(null).get(catPath(collab.id))).status).toBe(401);
    const missing = await server.admin.get(catPath(99999999));
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(NOT_FOUND);
    expect((await server.admin.get('/api/v1/group_categories/abc')).status).toBe(404);
  });
});

describe('PUT /api/v1/group_categories/:id', () => {
  it('updates name, self_signup, group_limit and auto_leader', async () => {
    const cat = await createCategory(w.teacher.api, courseId, { group_limit: 3 });
    const name = `Renamed ${uniq()}`;
    const res = await w.teacher.api.put(catPath(cat.id), { name, self_signup: 'enabled', group_limit: 5, auto_leader: 'random' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: cat.id, name, self_signup: 'enabled', group_limit: 5, auto_leader: 'random' });
    // Empty values clear them.
    const cleared = await w.teacher.api.put(catPath(cat.id), { self_signup: '', group_limit: '' });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ name, self_signup: null, group_limit: null });
    expect((await w.teacher.api.get(catPath(cat.id))).body).toMatchObject({ name, self_signup: null, group_limit: null, auto_leader: 'random' });
  });

  it('refuses a taken name, a long name, a bad self_signup or group_limit and keeps the category', async () => {
    const a = await createCategory(w.teacher.api, courseId);
    const b = await createCategory(w.teacher.api, courseId);
    for (const body of [{ name: a.name }, { name: 'z'.repeat(256) }, { name: '' }, { self_signup: 'always' }, { group_limit: 1 }, { group_limit: 'abc' }, { auto_leader: 'eldest' }]) {
      const res = await w.teacher.api.put(catPath(b.id), body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
    }
    expect((await w.teacher.api.get(catPath(b.id))).body).toMatchObject({ name: b.name, self_signup: null, group_limit: null, auto_leader: null });
    // Keeping its own name is not a clash.
    expect((await w.teacher.api.put(catPath(b.id), { name: b.name })).status).toBe(200);
  });

  it('refuses students and outsiders (403) and unknown ids (404)', async () => {
    const cat = await createCategory(w.teacher.api, courseId);
    for (const u of [w.student, w.outsider, w.observer]) {
      const res = await u.api.put(catPath(cat.id), { name: 'Hijacked' });
      expect(res.status).toBe(403);
    }
    expect((await w.teacher.api.get(catPath(cat.id))).body.name).toBe(cat.name);
    expect((await w.teacher.api.put(catPath(99999999), { name: 'x' })).status).toBe(404);
  });
});

describe('DELETE /api/v1/group_categories/:id', () => {
  it('deletes the category with its groups and memberships', async () => {
    const cat = await createCategory(w.teacher.api, courseId);
    const group = await createGroup(w.teacher.api, cat.id);
    expect((await w.teacher.api.post(`/api/v1/groups/${group.id}/memberships`, { user_id: w.student2.id })).status).toBe(200);
    const res = await w.teacher.api.delete(catPath(cat.id));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: cat.id, name: cat.name });
    expect((await w.teacher.api.get(catPath(cat.id))).status).toBe(404);
    expect((await w.teacher.api.get(`/api/v1/groups/${group.id}`)).status).toBe(404);
    expect(await count(server, 'group_memberships', 'group_id = ? AND workflow_state <> ?', [group.id, 'deleted'])).toBe(0);
    const list = await w.teacher.api.get(`/api/v1/courses/${courseId}/groups?per_page=100`);
    expect(list.body.map((g: { id: number }) => g.id)).not.toContain(group.id);
    const cats = await w.teacher.api.get(`/api/v1/courses/${courseId}/group_categories?per_page=100`);
    expect(cats.body.map((c: { id: number }) => c.id)).not.toContain(cat.id);
    // Deleting again is a 404, and the name is free again.
    expect((await w.teacher.api.delete(catPath(cat.id))).status).toBe(404);
    expect((await w.teacher.api.post(`/api/v1/courses/${courseId}/group_categories`, { name: cat.name })).status).toBe(200);
  });

  it('refuses to delete a built-in category', async () => {
    const community = await createCommunity(w.student.api);
    const res = await server.admin.delete(catPath(community.group_category_id));
    expect(res.status).toBe(400);
    expect(res.body.errors.role[0].type).toBe('protected');
    const show = await server.admin.get(catPath(community.group_category_id));
    expect(show.body).toMatchObject({ role: 'communities', protected: true, allows_multiple_memberships: true, account_id: 1 });
    expect((await w.student.api.get(`/api/v1/groups/${community.id}`)).status).toBe(200);
  });

  it('refuses students and outsiders with 403 and deletes nothing', async () => {
    const cat = await createCategory(w.teacher.api, courseId, { create_group_count: 1 });
    const before = await groupTables(server);
    for (const u of [w.student, w.outsider, w.otherStudent, w.observer]) expect((await u.api.delete(catPath(cat.id))).status).toBe(403);
    expect((await server.as(null).delete(catPath(cat.id))).status).toBe(401);
    expect(await groupTables(server)).toEqual(before);
  });

  it('lets only tag managers delete a tag category', async () => {
    const tags = await createCategory(w.teacher.api, courseId, { non_collaborative: true });
    expect((await w.student.api.delete(catPath(tags.id))).status).toBe(403);
    expect((await w.ta.api.delete(catPath(tags.id))).status).toBe(200);
  });
});

describe('GET /api/v1/group_categories/:id/groups', () => {
  it('lists the groups of the category, paginated, to the course', async () => {
    const cat = await createCategory(w.teacher.api, courseId, { create_group_count: 3 });
    const first = await w.student.api.get(`${catPath(cat.id)}/groups?per_page=2`);
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(2);
    const links = parseLinks(first.headers.get('link'));
    expect(links.last).toContain('page=2&per_page=2');
    const second = await w.student.api.get(links.next.replace(server.url, ''));
    expect(second.body).toHaveLength(1);
    expect([...first.body, ...second.body].every((g: { group_category_id: number }) => g.group_category_id === cat.id)).toBe(true);
    // Other categories' groups are not listed.
    const other = await createCategory(w.teacher.api, courseId, { create_group_count: 1 });
    const again = await w.teacher.api.get(`${catPath(cat.id)}/groups?per_page=100`);
    expect(again.body.map((g: { group_category_id: number }) => g.group_category_id)).not.toContain(other.id);
  });

  it('lists tag groups to tag managers only, and nothing to outsiders', async () => {
    const tags = await createCategory(w.teacher.api, courseId, { non_collaborative: true, create_group_count: 2 });
    const t = await w.teacher.api.get(`${catPath(tags.id)}/groups`);
    expect(t.status).toBe(200);
    expect(t.body).toHaveLength(2);
    expect(t.body[0].non_collaborative).toBe(true);
    expect((await w.student.api.get(`${catPath(tags.id)}/groups`)).status).toBe(403);
    const collab = await createCategory(w.teacher.api, courseId, { create_group_count: 1 });
    const res = await w.outsider.api.get(`${catPath(collab.id)}/groups`);
    expect(res.status).toBe(403);
    expect(res.text).not.toContain(collab.name);
    expect((await w.teacher.api.get(`${catPath(99999999)}/groups`)).status).toBe(404);
  });
});
