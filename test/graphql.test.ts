import { randomBytes } from 'node:crypto';
import { Api } from './support/api';
import { startTestServer, TestServer } from './support/server';
import { World, WorldUser } from './support/world';

let server: TestServer;
let world: World;
let room: Awaited<ReturnType<World['classroom']>>;

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
  room = await world.classroom();
});
afterAll(() => server.close());

const uniq = () => randomBytes(4).toString('hex');
const globalId = (type: string, id: number | string) => Buffer.from(`${type}-${id}`).toString('base64');

async function count(table: string, where = '1=1', params: unknown[] = []): Promise<number> {
  const rows = await server.app.ds.query(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`, params);
  return Number(rows[0].n);
}

/** Runs a query that must succeed and returns its data. */
async function gql<T = any>(api: Api, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await api.graphql<T>(query, variables);
  expect(res.status).toBe(200);
  expect(res.errors).toBeUndefined();
  return res.data;
}

/**
 * Compares a REST object with the GraphQL object for the same thing, key by key through `map`
 * (REST key → GraphQL field). REST ids are numbers and GraphQL IDs strings; REST leaves out some
 * null fields that GraphQL reports as null. Every REST key must be either mapped or listed in
 * `restOnly`, so a field added on one side only is noticed.
 */
function expectSameData(rest: Record<string, unknown>, graph: Record<string, unknown>, map: Record<string, string>, restOnly: string[] = []) {
  for (const key of Object.keys(rest)) {
    if (!restOnly.includes(key)) expect({ key, mapped: key in map }).toEqual({ key, mapped: true });
  }
  for (const [restKey, gqlKey] of Object.entries(map)) {
    const r = rest[restKey] ?? null;
    const g = graph[gqlKey] ?? null;
    const normalized = typeof r === 'number' && typeof g === 'string' && /_?id$|Id$/.test(gqlKey) ? String(r) : r;
    expect({ field: restKey, value: g }).toEqual({ field: restKey, value: normalized });
  }
}

const COURSE_FIELDS = `_id id name courseCode workflowState accountId rootAccountId uuid startAt endAt createdAt
  sisCourseId integrationId storageQuotaMb timeZone defaultView license isPublic publicDescription
  restrictEnrollmentsToCourseDates masteryPathsEnabled concluded`;
const COURSE_MAP = {
  id: '_id',
  name: 'name',
  account_id: 'accountId',
  root_account_id: 'rootAccountId',
  uuid: 'uuid',
  start_at: 'startAt',
  end_at: 'endAt',
  course_code: 'courseCode',
  default_view: 'defaultView',
  license: 'license',
  is_public: 'isPublic',
  public_description: 'publicDescription',
  storage_quota_mb: 'storageQuotaMb',
  created_at: 'createdAt',
  time_zone: 'timeZone',
  workflow_state: 'workflowState',
  restrict_enrollments_to_course_dates: 'restrictEnrollmentsToCourseDates',
  conditional_release: 'masteryPathsEnabled',
  sis_course_id: 'sisCourseId',
  integration_id: 'integrationId',
};
const COURSE_REST_ONLY = [
  'enrollment_term_id',
  'grading_standard_id',
  'is_public_to_auth_users',
  'public_syllabus',
  'public_syllabus_to_auth',
  'blueprint',
  'hide_final_grades',
  'apply_assignment_group_weights',
  'calendar',
  'enrollments',
];

const USER_FIELDS = `_id id name shortName sortableName firstName lastName createdAt uuid locale timeZone avatarUrl
  loginId sisUserId integrationId email`;
const USER_MAP = {
  id: '_id',
  name: 'name',
  short_name: 'shortName',
  sortable_name: 'sortableName',
  first_name: 'firstName',
  last_name: 'lastName',
  created_at: 'createdAt',
  uuid: 'uuid',
  locale: 'locale',
  time_zone: 'timeZone',
  avatar_url: 'avatarUrl',
  login_id: 'loginId',
  sis_user_id: 'sisUserId',
  integration_id: 'integrationId',
  email: 'email',
};

const ENROLLMENT_FIELDS = `_id id courseId courseSectionId rootAccountId userId type role state associatedUserId
  limitPrivilegesToCourseSection createdAt updatedAt startAt endAt lastActivityAt
  user { _id name sortableName shortName loginId }`;
const ENROLLMENT_MAP = {
  id: '_id',
  course_id: 'courseId',
  course_section_id: 'courseSectionId',
  root_account_id: 'rootAccountId',
  user_id: 'userId',
  type: 'type',
  role: 'role',
  enrollment_state: 'state',
  associated_user_id: 'associatedUserId',
  limit_privileges_to_course_section: 'limitPrivilegesToCourseSection',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
  start_at: 'startAt',
  end_at: 'endAt',
  last_activity_at: 'lastActivityAt',
};
const ENROLLMENT_USER_MAP = { id: '_id', name: 'name', sortable_name: 'sortableName', short_name: 'shortName', login_id: 'loginId' };

describe('GraphQL and REST present the same data', () => {
  it('for a course, to a teacher and to an admin', async () => {
    const sis = `GQL-${uniq()}`;
    const created = await server.admin.post('/api/v1/accounts/self/courses', {
      course: { name: 'Parity', course_code: 'PAR', sis_course_id: sis, start_at: '2030-01-01', end_at: '2030-05-01', storage_quota_mb: 500, license: 'private' },
      offer: true,
    });
    await world.enroll(created.body.id, room.teacher.id, 'TeacherEnrollment');
    for (const api of [room.teacher.api, server.admin]) {
      const rest = (await api.get(`/api/v1/courses/${created.body.id}`)).body;
      const data = await gql(api, `query($id: ID!) { course(id: $id) { ${COURSE_FIELDS} } }`, { id: String(created.body.id) });
      expectSameData(rest, data.course, COURSE_MAP, COURSE_REST_ONLY);
      expect(data.course.id).toBe(globalId('Course', created.body.id));
      expect(data.course.concluded).toBe(false);
    }
    // The values really are there (the comparison is not of two empty objects).
    const data = await gql(server.admin, `query($id: ID!) { course(id: $id) { sisCourseId startAt storageQuotaMb } }`, { id: String(created.body.id) });
    expect(data.course).toEqual({ sisCourseId: sis, startAt: '2030-01-01T00:00:00Z', storageQuotaMb: 500 });
  });

  it("for the caller's course list with their own enrollments", async () => {
    const rest = (await room.student.api.get('/api/v1/courses?per_page=50')).body;
    const data = await gql(
      room.student.api,
      `{ coursesConnection(first: 50) { totalCount nodes { ${COURSE_FIELDS} viewerEnrollments { type role userId state limitPrivilegesToCourseSection } } } }`,
    );
    expect(data.coursesConnection.totalCount).toBe(rest.length);
    expect(rest.length).toBeGreaterThan(0);
    rest.forEach((r: Record<string, any>, i: number) => {
      const g = data.coursesConnection.nodes[i];
      expectSameData(r, g, COURSE_MAP, COURSE_REST_ONLY);
      const short: Record<string, string> = { StudentEnrollment: 'student', TeacherEnrollment: 'teacher', ObserverEnrollment: 'observer', TaEnrollment: 'ta', DesignerEnrollment: 'designer' };
      expect(r.enrollments).toEqual(
        g.viewerEnrollments.map((e: any) => ({
          type: short[e.type],
          role: e.role,
          user_id: Number(e.userId),
          enrollment_state: e.state,
          limit_privileges_to_course_section: e.limitPrivilegesToCourseSection,
        })),
      );
    });
  });

  it("for a course's enrollments, as the teacher sees them", async () => {
    const rest = (await room.teacher.api.get(`/api/v1/courses/${room.course.id}/enrollments?per_page=50`)).body;
    const data = await gql(
      room.teacher.api,
      `query($id: ID!) { course(id: $id) { enrollmentsConnection(first: 50) { totalCount nodes { ${ENROLLMENT_FIELDS} } } } }`,
      { id: String(room.course.id) },
    );
    const nodes = data.course.enrollmentsConnection.nodes;
    expect(rest.length).toBe(4);
    expect(nodes).toHaveLength(rest.length);
    rest.forEach((r: Record<string, any>, i: number) => {
      expectSameData(r, nodes[i], ENROLLMENT_MAP, ['html_url', 'grades', 'user']);
      expectSameData(r.user, nodes[i].user, ENROLLMENT_USER_MAP);
    });
    const observer = nodes.find((n: any) => n.type === 'ObserverEnrollment');
    expect(observer.associatedUserId).toBe(String(room.student.id));
  });

  it('for a user, with login details only where REST shows them', async () => {
    for (const [viewer, target] of [
      [room.teacher.api, room.student],
      [server.admin, room.student],
      [room.student.api, room.student],
    ] as [Api, WorldUser][]) {
      const rest = (await viewer.get(`/api/v1/users/${target.id}`)).body;
      const data = await gql(viewer, `query($id: ID!) { user(id: $id) { ${USER_FIELDS} } }`, { id: String(target.id) });
      expectSameData(rest, data.user, USER_MAP);
    }
    const asTeacher = await gql(room.teacher.api, `query($id: ID!) { user(id: $id) { loginId email sisUserId } }`, { id: String(room.student.id) });
    expect(asTeacher.user).toEqual({ loginId: null, email: null, sisUserId: null });
    const self = await gql(room.student.api, `{ viewer { _id loginId } }`);
    expect(self.viewer).toEqual({ _id: String(room.student.id), loginId: room.student.login });
  });

  it("for a course's sections", async () => {
    await world.section(room.course.id, 'Parity Section');
    const rest = (await room.teacher.api.get(`/api/v1/courses/${room.course.id}/sections?per_page=50`)).body;
    const data = await gql(
      room.teacher.api,
      `query($id: ID!) { course(id: $id) { sectionsConnection(first: 50) { nodes { _id name courseId sisSectionId integrationId startAt endAt restrictEnrollmentsToSectionDates createdAt defaultSection } } } }`,
      { id: String(room.course.id) },
    );
    const nodes = data.course.sectionsConnection.nodes;
    expect(nodes.map((n: any) => n.defaultSection)).toEqual([true, false]);
    rest.forEach((r: Record<string, any>, i: number) =>
      expectSameData(
        r,
        nodes[i],
        {
          id: '_id',
          name: 'name',
          course_id: 'courseId',
          sis_section_id: 'sisSectionId',
          integration_id: 'integrationId',
          start_at: 'startAt',
          end_at: 'endAt',
          restrict_enrollments_to_section_dates: 'restrictEnrollmentsToSectionDates',
          created_at: 'createdAt',
        },
        ['sis_import_id', 'nonxlist_course_id'],
      ),
    );
  });
});

describe('object lookup', () => {
  const NODE = `query($id: ID!) { node(id: $id) { __typename id ... on Course { _id name } } }`;
  const LEGACY = `query($id: ID!) { legacyNode(type: Course, _id: $id) { __typename id ... on Course { _id name } } }`;

  it('resolves a course through node(id:) and legacyNode(type:, _id:)', async () => {
    const gid = globalId('Course', room.course.id);
    const byNode = await gql(room.student.api, NODE, { id: gid });
    expect(byNode.node).toEqual({ __typename: 'Course', id: gid, _id: String(room.course.id), name: 'Biology 101' });
    const byLegacy = await gql(room.student.api, LEGACY, { id: String(room.course.id) });
    expect(byLegacy.legacyNode).toEqual(byNode.node);
  });

  it('resolves other node types too', async () => {
    const user = await gql(room.teacher.api, `query($id: ID!) { node(id: $id) { __typename ... on User { _id name } } }`, { id: globalId('User', room.student.id) });
    expect(user.node).toEqual({ __typename: 'User', _id: String(room.student.id), name: 'Sam Student' });
    const acct = await gql(server.admin, `{ legacyNode(type: Account, _id: "1") { __typename ... on Account { _id name } } }`);
    expect(acct.legacyNode).toEqual({ __typename: 'Account', _id: '1', name: 'Site Admin' });
  });

  it('course(id:) accepts the numeric id and the global id', async () => {
    const q = `query($id: ID!) { course(id: $id) { _id name } }`;
    const numeric = await gql(room.teacher.api, q, { id: String(room.course.id) });
    const global = await gql(room.teacher.api, q, { id: globalId('Course', room.course.id) });
    expect(numeric.course).toEqual({ _id: String(room.course.id), name: 'Biology 101' });
    expect(global.course).toEqual(numeric.course);
    // A global id of another type does not name a course.
    const wrong = await room.teacher.api.graphql(q, { id: globalId('User', room.course.id) });
    expect(wrong.errors?.[0].extensions.code).toBe('NOT_FOUND');
  });

  it('user(id:) accepts the numeric id, the global id and self', async () => {
    const q = `query($id: ID!) { user(id: $id) { _id name } }`;
    const expected = { _id: String(room.student.id), name: 'Sam Student' };
    expect((await gql(room.teacher.api, q, { id: String(room.student.id) })).user).toEqual(expected);
    expect((await gql(room.teacher.api, q, { id: globalId('User', room.student.id) })).user).toEqual(expected);
    expect((await gql(room.student.api, q, { id: 'self' })).user).toEqual(expected);
  });

  it('hides invisible objects: null from node(), FORBIDDEN from course(id:)', async () => {
    const gid = globalId('Course', room.course.id);
    expect((await gql(room.outsider.api, NODE, { id: gid })).node).toBeNull();
    expect((await gql(room.outsider.api, LEGACY, { id: String(room.course.id) })).legacyNode).toBeNull();
    const res = await room.outsider.api.graphql(`query($id: ID!) { course(id: $id) { _id name } }`, { id: gid });
    expect(res.status).toBe(200);
    expect(res.data).toBeNull();
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0].extensions.code).toBe('FORBIDDEN');
    expect(res.errors![0].path).toEqual(['course']);
    expect(JSON.stringify(res.errors)).not.toContain('Biology');

    // A student of an unpublished course: same.
    const draft = await world.course({ name: 'Secret Draft', published: false });
    await world.enroll(draft.id, room.student.id, 'StudentEnrollment');
    expect((await gql(room.student.api, NODE, { id: globalId('Course', draft.id) })).node).toBeNull();
    const forbidden = await room.student.api.graphql(`query($id: ID!) { course(id: $id) { name } }`, { id: String(draft.id) });
    expect(forbidden.errors![0].extensions.code).toBe('FORBIDDEN');
  });

  it('reports missing objects as null from node() and NOT_FOUND from course(id:)', async () => {
    expect((await gql(room.teacher.api, NODE, { id: globalId('Course', 98765432) })).node).toBeNull();
    expect((await gql(room.teacher.api, NODE, { id: 'not-a-global-id' })).node).toBeNull();
    expect((await gql(room.teacher.api, LEGACY, { id: 'abc' })).legacyNode).toBeNull();
    const res = await room.teacher.api.graphql(`{ course(id: "98765432") { _id } }`);
    expect(res.errors![0].extensions.code).toBe('NOT_FOUND');
  });
});

describe('mutations', () => {
  it('createCourse creates, and reports validation problems in the payload storing nothing', async () => {
    const ok = await gql(
      server.admin,
      `mutation($input: CreateCourseInput!) { createCourse(input: $input) { course { _id name workflowState courseCode } errors { attribute message } } }`,
      { input: { accountId: 'self', name: 'GraphQL Course', offer: true } },
    );
    expect(ok.createCourse.errors).toBeNull();
    expect(ok.createCourse.course).toMatchObject({ name: 'GraphQL Course', workflowState: 'available', courseCode: 'GraphQL Course' });
    const rest = await server.admin.get(`/api/v1/courses/${ok.createCourse.course._id}`);
    expect(rest.body).toMatchObject({ name: 'GraphQL Course', workflow_state: 'available' });

    const before = await count('courses');
    const bad = await gql(
      server.admin,
      `mutation($input: CreateCourseInput!) { createCourse(input: $input) { course { _id } errors { attribute type message } } }`,
      { input: { accountId: 'self', name: 'Backwards', startAt: '2030-05-01', endAt: '2030-01-01' } },
    );
    expect(bad.createCourse.course).toBeNull();
    expect(bad.createCourse.errors).toEqual([{ attribute: 'conclude_at', type: 'invalid', message: expect.any(String) }]);
    expect(await count('courses')).toBe(before);
  });

  it('createCourse accepts the global id of the account', async () => {
    const acct = await gql(server.admin, `{ account(id: "self") { id } }`);
    const res = await gql(
      server.admin,
      `mutation($input: CreateCourseInput!) { createCourse(input: $input) { course { accountId } errors { message } } }`,
      { input: { accountId: acct.account.id, name: 'Global Account Id' } },
    );
    expect(res.createCourse).toEqual({ course: { accountId: '1' }, errors: null });
  });

  it('updateCourse renames and reports a bad event in the payload', async () => {
    const c = await world.course({ name: 'To Update' });
    await world.enroll(c.id, room.teacher.id, 'TeacherEnrollment');
    const M = `mutation($input: UpdateCourseInput!) { updateCourse(input: $input) { course { name workflowState } errors { attribute message } } }`;
    const ok = await gql(room.teacher.api, M, { input: { id: globalId('Course', c.id), name: 'Updated', event: 'conclude' } });
    expect(ok.updateCourse).toEqual({ course: { name: 'Updated', workflowState: 'completed' }, errors: null });
    const bad = await gql(room.teacher.api, M, { input: { id: String(c.id), event: 'explode' } });
    expect(bad.updateCourse.course).toBeNull();
    expect(bad.updateCourse.errors[0].attribute).toBe('event');
    const denied = await room.student.api.graphql(M, { input: { id: String(room.course.id), name: 'Nope' } });
    expect(denied.errors![0].extensions.code).toBe('FORBIDDEN');
  });

  it('createSection creates, and reports a blank name in the payload storing nothing', async () => {
    const M = `mutation($input: CreateSectionInput!) { createSection(input: $input) { section { _id name courseId defaultSection } errors { attribute message } } }`;
    const ok = await gql(room.teacher.api, M, { input: { courseId: globalId('Course', room.course.id), name: 'GQL Section' } });
    expect(ok.createSection).toEqual({
      section: { _id: expect.any(String), name: 'GQL Section', courseId: String(room.course.id), defaultSection: false },
      errors: null,
    });
    const before = await count('course_sections');
    const bad = await gql(room.teacher.api, M, { input: { courseId: String(room.course.id), name: '' } });
    expect(bad.createSection).toEqual({ section: null, errors: [{ attribute: 'name', message: "can't be blank" }] });
    expect(await count('course_sections')).toBe(before);
    const denied = await room.student.api.graphql(M, { input: { courseId: String(room.course.id), name: 'x' } });
    expect(denied.errors![0].extensions.code).toBe('FORBIDDEN');
  });

  it('createEnrollment enrolls, and reports validation problems in the payload storing nothing', async () => {
    const u = await world.user('GQL Enrollee');
    const M = `mutation($input: CreateEnrollmentInput!) { createEnrollment(input: $input) {
      enrollment { _id type state userId user { name } section { defaultSection } } errors { attribute message } } }`;
    const ok = await gql(room.teacher.api, M, { input: { courseId: String(room.course.id), userId: String(u.id), enrollmentState: 'active' } });
    expect(ok.createEnrollment).toEqual({
      enrollment: { _id: expect.any(String), type: 'StudentEnrollment', state: 'active', userId: String(u.id), user: { name: 'GQL Enrollee' }, section: { defaultSection: true } },
      errors: null,
    });

    const before = await count('enrollments');
    const badType = await gql(room.teacher.api, M, { input: { courseId: String(room.course.id), userId: String(u.id), type: 'WizardEnrollment' } });
    expect(badType.createEnrollment).toEqual({ enrollment: null, errors: [{ attribute: 'type', message: 'Invalid type' }] });
    const noUser = await gql(room.teacher.api, M, { input: { courseId: String(room.course.id), type: 'StudentEnrollment' } });
    expect(noUser.createEnrollment.errors).toEqual([{ attribute: 'user_id', message: expect.stringContaining("Can't create an enrollment without a user") }]);
    const badObservee = await gql(server.admin, M, {
      input: { courseId: String(room.course.id), userId: String(u.id), type: 'ObserverEnrollment', associatedUserId: String(room.teacher.id) },
    });
    expect(badObservee.createEnrollment.errors).toEqual([{ attribute: 'associated_user_id', message: expect.any(String) }]);
    expect(await count('enrollments')).toBe(before);

    const denied = await room.student.api.graphql(M, { input: { courseId: String(room.course.id), userId: String(u.id) } });
    expect(denied.errors![0].extensions.code).toBe('FORBIDDEN');
    const unknown = await server.admin.graphql(M, { input: { courseId: String(room.course.id), userId: '999999999' } });
    expect(unknown.errors![0].extensions.code).toBe('NOT_FOUND');
  });

  it('createUser creates, and reports a taken login in the payload storing nothing', async () => {
    const login = `gql.${uniq()}@example.com`;
    const M = `mutation($input: CreateUserInput!) { createUser(input: $input) { user { _id name sortableName loginId } errors { attribute type message } } }`;
    const ok = await gql(server.admin, M, { input: { accountId: 'self', name: 'Graph Q. Lee', uniqueId: login } });
    expect(ok.createUser).toEqual({ user: { _id: expect.any(String), name: 'Graph Q. Lee', sortableName: 'Lee, Graph Q.', loginId: login }, errors: null });
    const before = await count('users');
    const dup = await gql(server.admin, M, { input: { accountId: '1', name: 'Again', uniqueId: login } });
    expect(dup.createUser.user).toBeNull();
    expect(dup.createUser.errors).toEqual([{ attribute: 'unique_id', type: 'taken', message: 'ID already in use for this account and authentication provider' }]);
    const blank = await gql(server.admin, M, { input: { accountId: 'self', name: 'No Login' } });
    expect(blank.createUser.errors).toEqual([{ attribute: 'unique_id', type: 'blank', message: "can't be blank" }]);
    expect(await count('users')).toBe(before);
    const denied = await room.student.api.graphql(M, { input: { accountId: 'self', uniqueId: `x.${uniq()}` } });
    expect(denied.errors![0].extensions.code).toBe('FORBIDDEN');
    expect(await count('users')).toBe(before);
  });

  it('createAccessToken issues a usable token, and reports a missing purpose in the payload', async () => {
    const u = await world.user('GQL Token');
    const M = `mutation($input: CreateAccessTokenInput!) { createAccessToken(input: $input) {
      accessToken { _id userId purpose workflowState visibleToken tokenHint } errors { attribute message } } }`;
    const ok = await gql(u.api, M, { input: { userId: 'self', purpose: 'graphql script' } });
    const t = ok.createAccessToken.accessToken;
    expect(ok.createAccessToken.errors).toBeNull();
    expect(t).toMatchObject({ userId: String(u.id), purpose: 'graphql script', workflowState: 'active' });
    expect(t.visibleToken).toHaveLength(64);
    expect(t.tokenHint).toBe(t.visibleToken.slice(0, 5));
    const me = await gql(server.as(t.visibleToken), `{ viewer { _id } }`);
    expect(me.viewer._id).toBe(String(u.id));

    const byAdmin = await gql(server.admin, M, { input: { userId: globalId('User', u.id), purpose: 'for them' } });
    expect(byAdmin.createAccessToken.accessToken.userId).toBe(String(u.id));

    const before = await count('access_tokens');
    const bad = await gql(u.api, M, { input: { userId: 'self', purpose: '  ' } });
    expect(bad.createAccessToken).toEqual({ accessToken: null, errors: [{ attribute: 'purpose', message: expect.any(String) }] });
    expect(await count('access_tokens')).toBe(before);
    // REST keeps Canvas's body for the same problem.
    const rest = await u.api.post('/api/v1/users/self/tokens', { token: { purpose: '' } });
    expect(rest.status).toBe(400);
    expect(rest.body).toEqual([{ message: 'token[purpose] is missing' }]);

    const denied = await u.api.graphql(M, { input: { userId: String(room.teacher.id), purpose: 'steal' } });
    expect(denied.errors![0].extensions.code).toMatch(/FORBIDDEN|NOT_FOUND/);
    expect(await count('access_tokens')).toBe(before);
  });
});

describe('authentication on /graphql', () => {
  it('answers an invalid bearer token with HTTP 401', async () => {
    const res = await server.as('definitely-not-a-token').graphql(`{ viewer { _id } }`);
    expect(res.status).toBe(401);
    expect(res.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('treats a request without a token as anonymous', async () => {
    const anon = server.as(null);
    expect((await gql(anon, `{ viewer { _id } }`)).viewer).toBeNull();
    const res = await anon.graphql(`query($id: ID!) { course(id: $id) { _id } }`, { id: String(room.course.id) });
    expect(res.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
    expect((await gql(anon, `query($id: ID!) { node(id: $id) { id } }`, { id: globalId('Course', room.course.id) })).node).toBeNull();
  });
});

describe('statement counts do not grow with the roster', () => {
  const QUERY = `query($id: ID!) { course(id: $id) { enrollmentsConnection(first: 50) { nodes { user { name loginId } section { name } } } } }`;
  let small: { id: number };
  let large: { id: number };

  async function rosterCourse(name: string, students: number) {
    const c = await world.course({ name });
    const sections = [(await world.section(c.id, `${name} A`)).id, (await world.section(c.id, `${name} B`)).id];
    const teacher = await world.user(`${name} Teacher`);
    await world.enroll(c.id, teacher.id, 'TeacherEnrollment');
    for (let i = 0; i < students; i++) {
      const s = await world.user(`${name} Student ${i}`);
      await world.enroll(c.id, s.id, 'StudentEnrollment', { sectionId: sections[i % 2] });
    }
    return { ...c, teacher };
  }

  let smallTeacher: WorldUser;
  let largeTeacher: WorldUser;
  beforeAll(async () => {
    const s = await rosterCourse('Small', 3);
    const l = await rosterCourse('Large', 12);
    small = s;
    large = l;
    smallTeacher = s.teacher;
    largeTeacher = l.teacher;
    // A token's first use records last_used_at; do that before measuring.
    await smallTeacher.api.get('/api/v1/users/self');
    await largeTeacher.api.get('/api/v1/users/self');
  });

  async function statements(fn: () => Promise<unknown>): Promise<number> {
    const before = server.queryCount();
    await fn();
    return server.queryCount() - before;
  }

  it('for the GraphQL enrollments connection with users and sections', async () => {
    for (const [api3, api12] of [
      [server.admin, server.admin],
      [smallTeacher.api, largeTeacher.api],
    ] as [Api, Api][]) {
      const run = async (api: Api, id: number, n: number) => {
        const res = await api.graphql(QUERY, { id: String(id) });
        expect(res.errors).toBeUndefined();
        const nodes = res.data.course.enrollmentsConnection.nodes;
        expect(nodes).toHaveLength(n + 1);
        expect(nodes.every((x: any) => x.user.name && x.section.name)).toBe(true);
        return nodes;
      };
      const n3 = await statements(() => run(api3, small.id, 3));
      const n12 = await statements(() => run(api12, large.id, 12));
      expect(n12).toBe(n3);
      expect(n3).toBeGreaterThan(0);
      expect(n3).toBeLessThan(25);
    }
    // Login ids resolve for the admin (so that branch is measured too).
    const adminNodes = (await server.admin.graphql(QUERY, { id: String(large.id) })).data.course.enrollmentsConnection.nodes;
    expect(adminNodes.every((x: any) => typeof x.user.loginId === 'string')).toBe(true);
  });

  it("for the caller's course list (REST GET /api/v1/courses and coursesConnection)", async () => {
    const [few, many] = await Promise.all([world.user('Few Courses'), world.user('Many Courses')]);
    const c0 = await world.course({ name: 'Only' });
    await world.enroll(c0.id, few.id, 'StudentEnrollment');
    for (let i = 0; i < 5; i++) {
      const c = await world.course({ name: `Many ${i}`, published: i !== 4 });
      await world.enroll(c.id, many.id, i % 2 ? 'TeacherEnrollment' : 'StudentEnrollment');
    }
    await world.enroll(c0.id, many.id, 'ObserverEnrollment');
    await few.api.get('/api/v1/users/self');
    await many.api.get('/api/v1/users/self');
    const restFew = await statements(async () => expect((await few.api.get('/api/v1/courses?per_page=50')).body).toHaveLength(1));
    const restMany = await statements(async () => expect((await many.api.get('/api/v1/courses?per_page=50')).body).toHaveLength(5));
    expect(restMany).toBe(restFew);
    const Q = `{ coursesConnection(first: 50) { nodes { _id name sisCourseId viewerEnrollments { type state } } } }`;
    const gFew = await statements(async () => expect((await gql(few.api, Q)).coursesConnection.nodes).toHaveLength(1));
    const gMany = await statements(async () => expect((await gql(many.api, Q)).coursesConnection.nodes).toHaveLength(5));
    expect(gMany).toBe(gFew);
  });

  it('for REST GET /api/v1/courses/:id/enrollments', async () => {
    for (const [api3, api12] of [
      [server.admin, server.admin],
      [smallTeacher.api, largeTeacher.api],
    ] as [Api, Api][]) {
      const get = async (api: Api, id: number, n: number) => {
        const res = await api.get(`/api/v1/courses/${id}/enrollments?per_page=50`);
        expect(res.status).toBe(200);
        expect(res.body).toHaveLength(n + 1);
      };
      const n3 = await statements(() => get(api3, small.id, 3));
      const n12 = await statements(() => get(api12, large.id, 12));
      expect(n12).toBe(n3);
      expect(n3).toBeLessThan(25);
    }
  });
});
