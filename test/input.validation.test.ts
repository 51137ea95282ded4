import type { ApiResponse } from './support/api';
import { addMembers, createCategory, createCommunity, createGroup, groupsWorld, membershipRow, NOT_FOUND } from './support/groups';
import { startTestServer, TestServer } from './support/server';
import { World } from './support/world';

/**
 * Declared input (issue 10, findings 5 and 6) for the groups, discussions, planner, courses, users,
 * accounts and error-report routes: hostile shapes (a hash where a scalar belongs, a word outside an
 * enumeration, a non-boolean, a number past its range) answer 400 with Canvas's JSON body naming the
 * field, a malformed path id answers 404 as Canvas does, and nothing is stored either way.
 */
let server: TestServer;
let w: Awaited<ReturnType<typeof groupsWorld>>;
let fx: {
  category: number;
  group: number;
  community: number;
  membership: number;
  topic: number;
  groupTopic: number;
  entry: number;
  note: number;
  override: number;
};

const HUGE = '99999999999999999999';
const TABLES = [
  'group_categories', 'groups', 'group_memberships', 'group_invitations', 'discussion_topics', 'discussion_entries',
  'discussion_topic_participants', 'planner_notes', 'planner_overrides', 'courses', 'course_sections', 'enrollments',
  'users', 'pseudonyms', 'error_reports', 'assignments',
];

/** Row counts of every table these routes write, and the rows the updates below aim at. */
async function snapshot(): Promise<unknown> {
  const q = (sql: string, p: unknown[] = []) => server.app.ds.query(sql, p);
  const counts: Record<string, number> = {};
  for (const t of TABLES) counts[t] = Number((await q(`SELECT COUNT(*) AS n FROM ${t}`))[0].n);
  return {
    counts,
    category: await q('SELECT * FROM group_categories WHERE id = ?', [fx.category]),
    groups: await q('SELECT * FROM groups WHERE id IN (?, ?)', [fx.group, fx.community]),
    memberships: await q('SELECT * FROM group_memberships WHERE group_id IN (?, ?) ORDER BY id', [fx.group, fx.community]),
    topics: await q('SELECT * FROM discussion_topics WHERE id IN (?, ?)', [fx.topic, fx.groupTopic]),
    note: await q('SELECT * FROM planner_notes WHERE id = ?', [fx.note]),
    override: await q('SELECT * FROM planner_overrides WHERE id = ?', [fx.override]),
    course: await q('SELECT * FROM courses WHERE id = ?', [w.course.id]),
  };
}

/** A 4xx JSON answer; for a 400, errors naming `field`; and no stored row changed. */
async function refused(call: () => Promise<ApiResponse>, field: string | null, status = 400): Promise<ApiResponse> {
  const before = await snapshot();
  const res = await call();
  expect({ status: res.status, type: res.headers.get('content-type') }).toEqual({ status, type: expect.stringContaining('application/json') });
  if (status === 404) expect(res.body).toEqual(NOT_FOUND);
  if (field) {
    expect(Object.keys(res.body?.errors ?? {})).toContain(field);
    expect(res.body.errors[field][0]).toMatchObject({ attribute: field, message: expect.any(String) });
  }
  expect(await snapshot()).toEqual(before);
  return res;
}

beforeAll(async () => {
  server = await startTestServer();
  const world = new World(server);
  w = await groupsWorld(world);
  const cat = await createCategory(w.teacher.api, w.course.id, { name: 'Validation Set' });
  const group = await createGroup(w.teacher.api, cat.id, { name: 'Validation Group' });
  await addMembers(w.teacher.api, group.id, [w.student]);
  const membership = (await w.student.api.get(`/api/v1/groups/${group.id}/memberships/self`)).body.id;
  const community = await createCommunity(w.teacher.api, { name: 'Validation Community', join_level: 'parent_context_request' });
  const C = `/api/v1/courses/${w.course.id}`;
  const topic = (await w.teacher.api.post(`${C}/discussion_topics`, { title: 'Validated', message: 'Hi', published: true })).body.id;
  const groupTopic = (await w.student.api.post(`/api/v1/groups/${group.id}/discussion_topics`, { title: 'In group', message: 'Hi' })).body.id;
  const entry = (await w.student.api.post(`${C}/discussion_topics/${topic}/entries`, { message: 'First' })).body.id;
  const note = (await w.student.api.post('/api/v1/planner_notes', { title: 'Mine', todo_date: '2031-01-01' })).body.id;
  const override = (await w.student.api.post('/api/v1/planner/overrides', { plannable_type: 'planner_note', plannable_id: note, marked_complete: true })).body.id;
  fx = { category: cat.id, group: group.id, community: community.id, membership, topic, groupTopic, entry, note, override };
  for (const [k, v] of Object.entries(fx)) if (typeof v !== 'number') throw new Error(`fixture ${k} was not created`);
});
afterAll(() => server.close());

describe('finding 5: hostile values that reached the database as 500s', () => {
  it('a page number past the SQL offset range on a group list is a 400 naming page', async () => {
    await refused(() => w.teacher.api.get(`/api/v1/courses/${w.course.id}/groups?page=${HUGE}`), 'page');
    await refused(() => w.teacher.api.get(`/api/v1/group_categories/${fx.category}/groups?page=${HUGE}&per_page=50`), 'page');
  });

  it('?include[x][y]=1 and other hashes where a scalar belongs are 400s naming the field', async () => {
    // The answer names the offending key as the client sent it.
    await refused(() => w.teacher.api.get(`/api/v1/groups/${fx.group}?include[x][y]=1`), 'include[x]');
    await refused(() => w.teacher.api.get(`/api/v1/groups/${fx.group}/users?search_term[x][y]=1`), 'search_term');
    await refused(() => w.teacher.api.put(`/api/v1/groups/${fx.group}`, 'name[x][y]=1'), 'name');
    await refused(() => w.teacher.api.get(`/api/v1/courses/${w.course.id}/discussion_topics?order_by[x]=1`), 'order_by');
  });
});

describe('finding 6: bad input that was accepted silently', () => {
  it('a non-boolean is_public is a 400 on create and update', async () => {
    await refused(() => w.student.api.post('/api/v1/groups', { name: 'Fuzzy', is_public: 'banana' }), 'is_public');
    await refused(() => w.teacher.api.put(`/api/v1/groups/${fx.community}`, { is_public: 'sometimes' }), 'is_public');
    await refused(() => w.teacher.api.post(`/api/v1/group_categories/${fx.category}/groups`, { name: 'Fuzzy', is_public: { x: 1 } }, { json: true }), 'is_public');
  });

  it('members[] naming a user that does not exist is a 400 naming members; nothing is invited or removed', async () => {
    const res = await refused(() => w.teacher.api.put(`/api/v1/groups/${fx.group}`, { members: [w.student2.id, 987654321] }), 'members');
    expect(res.body.errors.members[0].message).toContain('987654321');
    await refused(() => w.teacher.api.put(`/api/v1/groups/${fx.group}`, { members: ['nobody'] }), 'members[]');
    expect(await membershipRow(server, fx.group, w.student.id)).toEqual({ workflow_state: 'accepted', moderator: false });
    expect(await membershipRow(server, fx.group, w.student2.id)).toBeNull();
  });

  it('…and GraphQL updateGroup refuses the same list (the rule is the service’s)', async () => {
    const before = await snapshot();
    const res = await w.teacher.api.graphql(
      `mutation($input: UpdateGroupInput!) { updateGroup(input: $input) { group { _id } errors { attribute type message } } }`,
      { input: { id: String(fx.group), members: [String(w.student2.id), '987654321', 'nobody'] } },
    );
    expect(res.data.updateGroup).toEqual({ group: null, errors: [{ attribute: 'members', type: 'invalid', message: expect.stringContaining('987654321') }] });
    expect(await snapshot()).toEqual(before);
  });

  it('a membership PUT with a workflow_state other than accepted is a 400, through REST and GraphQL', async () => {
    const req = (await w.student2.api.post(`/api/v1/groups/${fx.community}/memberships`, { user_id: 'self' })).body;
    expect(req.workflow_state).toBe('requested');
    for (const state of ['rejected', 'invited', 'deleted']) {
      await refused(() => w.teacher.api.put(`/api/v1/groups/${fx.community}/memberships/${req.id}`, { workflow_state: state }), 'workflow_state');
    }
    const before = await snapshot();
    const res = await w.teacher.api.graphql(
      `mutation($input: UpdateMembershipInput!) { updateGroupMembership(input: $input) { membership { _id } errors { attribute type } } }`,
      { input: { groupId: String(fx.community), membershipId: String(req.id), workflowState: 'rejected', moderator: true } },
    );
    expect(res.data.updateGroupMembership).toEqual({ membership: null, errors: [{ attribute: 'workflow_state', type: 'inclusion' }] });
    expect(await snapshot()).toEqual(before);
    expect(await membershipRow(server, fx.community, w.student2.id)).toEqual({ workflow_state: 'requested', moderator: false });
  });
});

describe('null where a number belongs', () => {
  it('a JSON null storage_quota_mb leaves the quota as it was (it used to become 0)', async () => {
    const course = (await server.admin.get(`/api/v1/courses/${w.course.id}`)).body.storage_quota_mb;
    const res = await server.admin.put(`/api/v1/courses/${w.course.id}`, { course: { storage_quota_mb: null } }, { json: true });
    expect(res.status).toBe(200);
    expect(res.body.storage_quota_mb).toBe(course);
    const group = (await server.admin.get(`/api/v1/groups/${fx.group}`)).body.storage_quota_mb;
    const put = await server.admin.put(`/api/v1/groups/${fx.group}`, { storage_quota_mb: null }, { json: true });
    expect(put.status).toBe(200);
    expect(put.body.storage_quota_mb).toBe(group);
    expect(group).toBeGreaterThan(0);
  });
});

/** One or more refused requests per route: [what, call, field named (null: 404 for a malformed path id)]. */
type Case = [string, () => Promise<ApiResponse>, string | null];

describe('every route of these areas refuses a bad shape', () => {
  const t = () => w.teacher.api;
  const s = () => w.student.api;
  const a = () => server.admin;

  const groupCases = (): Case[] => [
    ['POST course category: hash for name', () => t().post(`/api/v1/courses/${w.course.id}/group_categories`, 'name[x]=1'), 'name'],
    ['POST course category: bad self_signup', () => t().post(`/api/v1/courses/${w.course.id}/group_categories`, { name: 'S', self_signup: 'sometimes' }), 'self_signup'],
    ['POST account category: group_limit too big', () => a().post('/api/v1/accounts/self/group_categories', { name: 'L', group_limit: HUGE }), 'group_limit'],
    ['GET course categories: huge page', () => t().get(`/api/v1/courses/${w.course.id}/group_categories?page=${HUGE}`), 'page'],
    ['GET account categories: malformed account', () => a().get('/api/v1/accounts/not-one/group_categories'), null],
    ['GET category: malformed id', () => t().get('/api/v1/group_categories/abc'), null],
    ['PUT category: non-boolean non_collaborative', () => t().put(`/api/v1/group_categories/${fx.category}`, { non_collaborative: 'maybe' }), 'non_collaborative'],
    ['PUT category: bad auto_leader', () => t().put(`/api/v1/group_categories/${fx.category}`, { auto_leader: 'eldest' }), 'auto_leader'],
    ['DELETE category: malformed id', () => t().delete('/api/v1/group_categories/1x'), null],
    ['GET category groups: hash include', () => t().get(`/api/v1/group_categories/${fx.category}/groups?include[a][b]=c`), 'include[a]'],
    ['GET own groups: bad context_type', () => s().get('/api/v1/users/self/groups?context_type=Galaxy'), 'context_type'],
    ['GET course groups: non-boolean only_own_groups', () => s().get(`/api/v1/courses/${w.course.id}/groups?only_own_groups=perhaps`), 'only_own_groups'],
    ['GET account groups: bad collaboration_state', () => a().get('/api/v1/accounts/self/groups?collaboration_state=solo'), 'collaboration_state'],
    ['GET group: malformed id', () => t().get('/api/v1/groups/abc'), null],
    ['POST community: bad join_level', () => s().post('/api/v1/groups', { name: 'J', join_level: 'anyone' }), 'join_level'],
    ['POST group in category: storage_quota_mb too big', () => t().post(`/api/v1/group_categories/${fx.category}/groups`, { name: 'Q', storage_quota_mb: HUGE }), 'storage_quota_mb'],
    ['PUT group: max_membership too big', () => t().put(`/api/v1/groups/${fx.group}`, { max_membership: 3_000_000_000 }), 'max_membership'],
    ['PUT group: leader is a word', () => t().put(`/api/v1/groups/${fx.group}`, { leader: 'someone' }), 'leader'],
    ['DELETE group: malformed id', () => t().delete('/api/v1/groups/abc'), null],
    ['POST invite: hash for invitees', () => t().post(`/api/v1/groups/${fx.group}/invite`, 'invitees[a][b]=x@example.com'), 'invitees[a]'],
    ['GET group users: non-boolean exclude_inactive', () => t().get(`/api/v1/groups/${fx.group}/users?exclude_inactive=later`), 'exclude_inactive'],
    ['POST preview_html: hash for html', () => t().post(`/api/v1/groups/${fx.group}/preview_html`, 'html[x]=<p>'), 'html'],
    ['GET permissions: hash for permissions', () => t().get(`/api/v1/groups/${fx.group}/permissions?permissions[a][b]=read`), 'permissions[a]'],
    ['GET memberships: bad filter_states[]', () => t().get(`/api/v1/groups/${fx.group}/memberships?filter_states[]=deleted`), 'filter_states[]'],
    ['GET membership: malformed id', () => t().get(`/api/v1/groups/${fx.group}/memberships/abc`), null],
    ['GET membership by user: malformed id', () => t().get(`/api/v1/groups/${fx.group}/users/abc`), null],
    ['POST membership: malformed user_id', () => t().post(`/api/v1/groups/${fx.group}/memberships`, { user_id: 'abc' }), 'user_id'],
    ['POST membership: non-boolean all_in_group_course', () => t().post(`/api/v1/groups/${fx.group}/memberships`, { all_in_group_course: 'everyone' }), 'all_in_group_course'],
    ['POST membership: malformed exclude_user_ids[]', () => t().post(`/api/v1/groups/${fx.group}/memberships`, { all_in_group_course: true, exclude_user_ids: ['x'] }), 'exclude_user_ids[]'],
    ['PUT membership: non-boolean moderator', () => t().put(`/api/v1/groups/${fx.group}/memberships/${fx.membership}`, { moderator: 'kind of' }), 'moderator'],
    ['PUT membership by user: bad workflow_state', () => t().put(`/api/v1/groups/${fx.group}/users/${w.student.id}`, { workflow_state: 'deleted' }), 'workflow_state'],
    ['DELETE membership: malformed id', () => t().delete(`/api/v1/groups/${fx.group}/memberships/abc`), null],
    ['DELETE membership by user: malformed id', () => t().delete(`/api/v1/groups/${fx.group}/users/sis_nothing:1`), null],
  ];

  const discussionCases = (): Case[] => {
    const out: Case[] = [];
    for (const [base, topic] of [
      [`/api/v1/courses/${w.course.id}`, fx.topic],
      [`/api/v1/groups/${fx.group}`, fx.groupTopic],
    ] as const) {
      const T = `${base}/discussion_topics`;
      out.push(
        [`GET ${T}: bad order_by`, () => s().get(`${T}?order_by=random`), 'order_by'],
        [`GET ${T}: non-boolean only_announcements`, () => s().get(`${T}?only_announcements=sure`), 'only_announcements'],
        [`POST ${T}: bad discussion_type`, () => t().post(T, { title: 'x', discussion_type: 'chaotic' }), 'discussion_type'],
        [`POST ${T}: non-boolean published`, () => t().post(T, { title: 'x', published: 'soon' }), 'published'],
        [`POST ${T}: points_possible too big`, () => t().post(T, { title: 'x', assignment: { points_possible: '1000000000000' } }), 'points_possible'],
        [`GET ${T}/:id: malformed id`, () => s().get(`${T}/abc`), null],
        [`PUT ${T}/:id: hash for delayed_post_at`, () => t().put(`${T}/${topic}`, 'delayed_post_at[x]=1'), 'delayed_post_at'],
        [`PUT ${T}/:id: bad grading_type`, () => t().put(`${T}/${topic}`, { assignment: { grading_type: 'vibes' } }), 'grading_type'],
        [`DELETE ${T}/:id: malformed id`, () => t().delete(`${T}/abc`), null],
        [`GET ${T}/:id/entries: huge page`, () => s().get(`${T}/${topic}/entries?page=${HUGE}`), 'page'],
        [`POST ${T}/:id/entries: hash for message`, () => s().post(`${T}/${topic}/entries`, 'message[x]=hi'), 'message'],
        [`GET ${T}/:id/entries/:e/replies: malformed entry`, () => s().get(`${T}/${topic}/entries/abc/replies`), null],
        [`POST ${T}/:id/entries/:e/replies: list for message`, () => s().post(`${T}/${topic}/entries/${fx.entry}/replies`, { message: ['a', 'b'] }), 'message'],
        [`PUT ${T}/:id/read: malformed id`, () => s().put(`${T}/abc/read`), null],
        [`DELETE ${T}/:id/read: malformed id`, () => s().delete(`${T}/abc/read`), null],
        [`PUT ${T}/:id/read_all: hash include`, () => s().put(`${T}/${topic}/read_all?include[a][b]=1`), 'include[a]'],
        [`DELETE ${T}/:id/read_all: malformed id`, () => s().delete(`${T}/1.5/read_all`), null],
      );
    }
    out.push(
      ['GET group activity stream: huge page', () => s().get(`/api/v1/groups/${fx.group}/activity_stream?page=${HUGE}`), 'page'],
      ['GET group activity summary: malformed id', () => s().get('/api/v1/groups/abc/activity_stream/summary'), null],
      ['GET course activity stream: malformed id', () => s().get('/api/v1/courses/abc/activity_stream'), null],
      ['GET course activity summary: hash include', () => s().get(`/api/v1/courses/${w.course.id}/activity_stream/summary?include[a][b]=1`), 'include[a]'],
      ['GET own activity stream: huge page', () => s().get(`/api/v1/users/self/activity_stream?page=${HUGE}`), 'page'],
      ['GET own activity summary: hash as_user_id', () => s().get('/api/v1/users/self/activity_stream/summary?as_user_id[a]=1'), 'as_user_id'],
      ['GET activity stream: huge page', () => s().get(`/api/v1/users/activity_stream?page=${HUGE}`), 'page'],
      ['GET activity summary: hash include', () => s().get('/api/v1/users/activity_stream/summary?include[a][b]=1'), 'include[a]'],
    );
    return out;
  };

  const plannerCases = (): Case[] => [
    ['GET planner items: bad order', () => s().get('/api/v1/planner/items?order=sideways'), 'order'],
    ['GET planner items: hash observed_user_id', () => s().get('/api/v1/planner/items?observed_user_id[x]=1'), 'observed_user_id'],
    ['GET user planner items: malformed user', () => s().get('/api/v1/users/abc/planner/items'), null],
    ['GET user planner items: hash context_codes', () => s().get(`/api/v1/users/${w.student.id}/planner/items?context_codes[a][b]=course_1`), 'context_codes[a]'],
    ['GET planner notes: hash start_date', () => s().get('/api/v1/planner_notes?start_date[x]=2030-01-01'), 'start_date'],
    ['GET planner note: malformed id', () => s().get('/api/v1/planner_notes/abc'), null],
    ['POST planner note: impossible todo_date', () => s().post('/api/v1/planner_notes', { title: 'x', todo_date: '2031-13-45' }), 'todo_date'],
    ['POST planner note: malformed course_id', () => s().post('/api/v1/planner_notes', { title: 'x', todo_date: '2031-01-02', course_id: 'biology' }), 'course_id'],
    ['POST planner note: linked_object_id too big', () => s().post('/api/v1/planner_notes', { title: 'x', todo_date: '2031-01-02', linked_object_id: HUGE }), 'linked_object_id'],
    ['PUT planner note: hash for title', () => s().put(`/api/v1/planner_notes/${fx.note}`, 'title[x]=1'), 'title'],
    ['DELETE planner note: malformed id', () => s().delete('/api/v1/planner_notes/abc'), null],
    ['GET planner overrides: huge page', () => s().get(`/api/v1/planner/overrides?page=${HUGE}`), 'page'],
    ['GET planner override: malformed id', () => s().get('/api/v1/planner/overrides/abc'), null],
    ['POST planner override: bad plannable_type', () => s().post('/api/v1/planner/overrides', { plannable_type: 'Assignment', plannable_id: fx.note }), 'plannable_type'],
    ['POST planner override: non-boolean marked_complete', () => s().post('/api/v1/planner/overrides', { plannable_type: 'planner_note', plannable_id: fx.note, marked_complete: 'done' }), 'marked_complete'],
    ['PUT planner override: non-boolean dismissed', () => s().put(`/api/v1/planner/overrides/${fx.override}`, { dismissed: 'gone' }), 'dismissed'],
    ['DELETE planner override: malformed id', () => s().delete('/api/v1/planner/overrides/abc'), null],
  ];

  const platformCases = (): Case[] => [
    ['POST course: non-boolean course[is_public]', () => a().post('/api/v1/accounts/self/courses', { course: { name: 'C', is_public: 'kinda' } }), 'is_public'],
    ['POST course: storage quota too big', () => a().post('/api/v1/accounts/self/courses', { course: { name: 'C', storage_quota_mb: HUGE } }), 'storage_quota_mb'],
    ['POST course: time_zone past its column', () => a().post('/api/v1/accounts/self/courses', { course: { name: 'C', time_zone: 'Z'.repeat(65) } }), 'time_zone'],
    ['POST course: a word for the course hash', () => a().post('/api/v1/accounts/self/courses', { course: 'Biology' }), 'course'],
    ['GET courses: bad enrollment_state', () => s().get('/api/v1/courses?enrollment_state=sleeping'), 'enrollment_state'],
    ['GET course: malformed id', () => s().get('/api/v1/courses/abc'), null],
    ['PUT course: bad default_view', () => a().put(`/api/v1/courses/${w.course.id}`, { course: { default_view: 'dashboard' } }), 'default_view'],
    ['PUT course: bad event', () => a().put(`/api/v1/courses/${w.course.id}`, { course: { event: 'explode' } }), 'event'],
    ['POST section: bad start_at', () => a().post(`/api/v1/courses/${w.course.id}/sections`, { course_section: { name: 'S', start_at: 'next tuesday' } }), 'start_at'],
    ['GET sections: huge page', () => t().get(`/api/v1/courses/${w.course.id}/sections?page=${HUGE}`), 'page'],
    ['POST enrollment: malformed user_id', () => a().post(`/api/v1/courses/${w.course.id}/enrollments`, { enrollment: { user_id: 'someone' } }), 'user_id'],
    ['POST enrollment: non-boolean limit_privileges_to_course_section', () => a().post(`/api/v1/courses/${w.course.id}/enrollments`, { enrollment: { user_id: w.outsider.id, limit_privileges_to_course_section: 'y e s' } }), 'limit_privileges_to_course_section'],
    ['GET enrollments: bad type[]', () => t().get(`/api/v1/courses/${w.course.id}/enrollments?type[]=WizardEnrollment`), 'type[]'],
    ['GET enrollments: bad state[]', () => t().get(`/api/v1/courses/${w.course.id}/enrollments?state[]=asleep`), 'state[]'],
    ['POST user: locale past its column', () => a().post('/api/v1/accounts/self/users', { user: { name: 'L', locale: 'l'.repeat(17) }, pseudonym: { unique_id: 'long.locale@example.com' } }), 'locale'],
    ['POST user: hash for user[name]', () => a().post('/api/v1/accounts/self/users', 'user[name][x]=1&pseudonym[unique_id]=hash.name@example.com'), 'name'],
    ['GET account users: hash search_term', () => a().get('/api/v1/accounts/self/users?search_term[x]=1'), 'search_term'],
    ['GET user: malformed id', () => a().get('/api/v1/users/abc'), null],
    ['GET account: malformed id', () => a().get('/api/v1/accounts/abc'), null],
    ['POST error report: bad severity', () => server.as(null).post('/api/v1/error_reports', { error: { subject: 'x', user_perceived_severity: 'apocalyptic' } }), 'user_perceived_severity'],
    ['POST error report: hash for subject', () => server.as(null).post('/api/v1/error_reports', 'error[subject][x]=1'), 'subject'],
    ['POST error report: list for http_env', () => server.as(null).post('/api/v1/error_reports', { error: { subject: 'x', http_env: ['a', 'b'] } }, { json: true }), 'http_env'],
  ];

  it.each([
    ['groups', groupCases],
    ['discussions', discussionCases],
    ['planner', plannerCases],
    ['courses, users, accounts and error reports', platformCases],
  ] as const)('%s', async (_area, cases) => {
    for (const [what, call, field] of cases()) {
      try {
        await refused(call, field, field === null ? 404 : 400);
      } catch (e) {
        throw new Error(`${what}: ${(e as Error).message}`);
      }
    }
  });
});
