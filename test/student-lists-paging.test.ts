import { sqlDate } from '../src/common/sql-dates';
import { statementCost } from './support/graph';
import { walkGraphql, walkRest } from './support/paging';
import { startTestServer, TestServer } from './support/server';
import { World, WorldUser } from './support/world';

/**
 * The lists of a course's students page in SQL by key set (GraphQL) or numbered page (REST): an
 * assignment's submissions, a quiz's submissions, a module's progressions (with its overrides' rule
 * in the WHERE) and a module's overrides. Deep pages, rows added and removed between pages, a student
 * enrolled twice (one key, two enrollment rows), totals when selected, and statements that do not grow
 * with the list.
 */
let server: TestServer;
let world: World;
let teacher: WorldUser;
let course: { id: number };
let section: { id: number };
let students: number[];
let assignment: number;
let quiz: number;
let mod: number;

const cid = () => course.id;
function expectOk<T extends { status: number; text?: string }>(res: T, what: string): T {
  if (res.status >= 300) throw new Error(`${what} failed: ${res.status} ${res.text}`);
  return res;
}
async function newStudent(name: string, sectionId?: number): Promise<number> {
  const u = expectOk(await server.admin.post('/api/v1/accounts/self/users', { user: { name }, pseudonym: { unique_id: `${name.replace(/\W/g, '')}.${Math.random().toString(36).slice(2)}@example.com` } }), 'user');
  await world.enroll(cid(), u.body.id, 'StudentEnrollment', { sectionId });
  return u.body.id as number;
}
const created = async (path: string, body: Record<string, unknown>) => expectOk(await teacher.api.post(path, body), path).body.id as number;

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
  teacher = await world.user('Tess Teacher');
  course = await world.course({ name: 'Paging' });
  section = await world.section(cid(), 'Section B');
  await world.enroll(cid(), teacher.id, 'TeacherEnrollment');
  students = [];
  for (let i = 0; i < 11; i++) students.push(await newStudent(`Student ${i}`, i % 3 === 0 ? section.id : undefined));
  // One student enrolled a second time (another section): two enrollment rows, one list entry.
  await world.enroll(cid(), students[4], 'StudentEnrollment', { sectionId: section.id });
  assignment = await created(`/api/v1/courses/${cid()}/assignments`, { assignment: { name: 'Essay', submission_types: ['online_text_entry'], published: true } });
  quiz = await created(`/api/v1/courses/${cid()}/quizzes`, { quiz: { title: 'Quiz', published: true } });
  mod = await created(`/api/v1/courses/${cid()}/modules`, { module: { name: 'Week 1' } });
  expectOk(await teacher.api.put(`/api/v1/courses/${cid()}/modules/${mod}`, { module: { published: true } }), 'publish');
}, 300_000);
afterAll(() => server?.close());

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const SUBS = `query($a: ID!, $c: ID!, $after: String, $first: Int) { assignment(id: $a, courseId: $c) { submissionsConnection(first: $first, after: $after) { totalCount nodes { _id userId } pageInfo { hasNextPage endCursor } } } }`;
const PROGS = `query($c: ID!, $m: ID!, $after: String, $first: Int) { module(courseId: $c, id: $m) { progressionsConnection(first: $first, after: $after) { totalCount nodes { _id: userId } pageInfo { hasNextPage endCursor } } } }`;

describe("an assignment's submissions", () => {
  it('walks every current student once, in student order, by key set (pages of 2) and by numbered pages', async () => {
    const ids = await walkGraphql(teacher.api, SUBS.replace('nodes { _id userId }', 'nodes { _id: userId }'), { a: String(assignment), c: String(cid()), first: 2 }, 'assignment.submissionsConnection');
    expect(ids.map(Number)).toEqual(sorted(students));
    const rest = await walkRest(teacher.api, server, `/api/v1/courses/${cid()}/assignments/${assignment}/submissions?per_page=3`);
    expect(rest.ids.length).toBe(students.length);
    const res = await teacher.api.graphql(SUBS, { a: String(assignment), c: String(cid()), first: 4 });
    expect(res.data.assignment.submissionsConnection.totalCount).toBe(students.length);
  });

  it('a student enrolled between pages shows up once, one removed between pages is not shown, none skipped', async () => {
    let added = 0;
    let removed = 0;
    const ids = await walkGraphql(teacher.api, SUBS.replace('nodes { _id userId }', 'nodes { _id: userId }'), { a: String(assignment), c: String(cid()), first: 3 }, 'assignment.submissionsConnection', async (page) => {
      if (page !== 1) return;
      added = await newStudent('Late Comer');
      removed = sorted(students)[students.length - 1];
      await server.app.ds.query("UPDATE enrollments SET workflow_state = 'deleted' WHERE user_id = ? AND course_id = ?", [removed, cid()]);
    });
    expect(ids.map(Number)).toEqual(sorted([...students.filter((s) => s !== removed), added]));
    await server.app.ds.query("UPDATE enrollments SET workflow_state = 'active' WHERE user_id = ? AND course_id = ?", [removed, cid()]);
    await server.app.ds.query("UPDATE enrollments SET workflow_state = 'deleted' WHERE user_id = ? AND course_id = ?", [added, cid()]);
  });

  it('filters by workflow state before the LIMIT (students without a row yet are unsubmitted)', async () => {
    const states = `query($a: ID!, $c: ID!, $s: [String!], $after: String) { assignment(id: $a, courseId: $c) { submissionsConnection(first: 2, after: $after, workflowStates: $s) { totalCount nodes { _id: userId } pageInfo { hasNextPage endCursor } } } }`;
    const vars = { a: String(assignment), c: String(cid()) };
    expect((await walkGraphql(teacher.api, states, { ...vars, s: ['submitted'] }, 'assignment.submissionsConnection')).length).toBe(0);
    expect((await walkGraphql(teacher.api, states, { ...vars, s: ['unsubmitted'] }, 'assignment.submissionsConnection')).map(Number)).toEqual(sorted(students));
  });

  it('costs the same statements for a page whatever the number of students', async () => {
    const run = (first: number) => () => teacher.api.graphql(SUBS.replace('totalCount ', ''), { a: String(assignment), c: String(cid()), first });
    const small = await statementCost(server, run(2));
    await newStudent('Extra A');
    await newStudent('Extra B');
    expect(await statementCost(server, run(2))).toBe(small);
    // A deep page (key set) costs what the first does.
    const first = await teacher.api.graphql(SUBS, { a: String(assignment), c: String(cid()), first: 5 });
    const after = first.data.assignment.submissionsConnection.pageInfo.endCursor;
    const deep = await statementCost(server, () => teacher.api.graphql(SUBS.replace('totalCount ', ''), { a: String(assignment), c: String(cid()), first: 2, after }));
    expect(deep).toBe(small);
  });

  it('reads a damaged cursor as the first page', async () => {
    const res = await teacher.api.graphql(SUBS, { a: String(assignment), c: String(cid()), first: 2, after: Buffer.from('key:["x"]').toString('base64url') });
    expect(res.errors).toBeUndefined();
    expect(res.data.assignment.submissionsConnection.nodes.length).toBe(2);
  });
});

describe("a quiz's submissions", () => {
  it('walks every student who has one, by key set and by numbered pages, totals when selected', async () => {
    const ds = server.app.ds;
    const now = sqlDate(new Date());
    const takers = students.slice(0, 7);
    for (const userId of takers) {
      await ds.query('INSERT INTO quiz_submissions (quiz_id, user_id, attempt, workflow_state, was_preview, created_at, updated_at) VALUES (?, ?, 1, ?, ?, ?, ?)', [quiz, userId, 'complete', 0, now, now]);
    }
    const q = `query($q: ID!, $after: String) { quiz(id: $q) { submissionsConnection(first: 2, after: $after) { totalCount nodes { _id: userId } pageInfo { hasNextPage endCursor } } } }`;
    const ids = await walkGraphql(teacher.api, q, { q: String(quiz) }, 'quiz.submissionsConnection');
    expect(ids.map(Number)).toEqual(sorted(takers));
    expect((await teacher.api.graphql(q, { q: String(quiz) })).data.quiz.submissionsConnection.totalCount).toBe(takers.length);
    // REST: numbered pages of the quiz_submissions envelope.
    const rest: number[] = [];
    for (let page = 1; page <= 5; page++) {
      const res = await teacher.api.get(`/api/v1/courses/${cid()}/quizzes/${quiz}/submissions?per_page=2&page=${page}`);
      rest.push(...res.body.quiz_submissions.map((s: { user_id: number }) => s.user_id));
    }
    expect(rest).toEqual(sorted(takers));
  });
});

describe("a module's progressions", () => {
  it('walks every student by key set, then only the students an override assigns (the rule before the LIMIT)', async () => {
    const vars = { c: String(cid()), m: String(mod), first: 2 };
    const active = (await server.app.ds.query("SELECT DISTINCT user_id FROM enrollments WHERE course_id = ? AND type = 'StudentEnrollment' AND workflow_state = 'active'", [cid()])).map((r: any) => Number(r.user_id));
    expect((await walkGraphql(teacher.api, PROGS, vars, 'module.progressionsConnection')).map(Number)).toEqual(sorted(active));
    // Section B's students, and one more by name.
    const inB = students.filter((_, i) => i % 3 === 0).concat(students[4]);
    const named = students[1];
    const put = await teacher.api.put(`/api/v1/courses/${cid()}/modules/${mod}/assignment_overrides`, { overrides: [{ course_section_id: section.id }, { student_ids: [named] }] }, { json: true });
    expect(put.status).toBe(204);
    const assigned = sorted([...new Set([...inB, named])]);
    expect((await walkGraphql(teacher.api, PROGS, vars, 'module.progressionsConnection')).map(Number)).toEqual(assigned);
    const res = await teacher.api.graphql(PROGS, vars);
    expect(res.data.module.progressionsConnection.totalCount).toBe(assigned.length);
  });

  it("pages the module's overrides by key set and numbered pages", async () => {
    const q = `query($c: ID!, $m: ID!, $after: String) { module(courseId: $c, id: $m) { assignmentOverrides(first: 1, after: $after) { totalCount nodes { _id } pageInfo { hasNextPage endCursor } } } }`;
    const ids = await walkGraphql(teacher.api, q, { c: String(cid()), m: String(mod) }, 'module.assignmentOverrides');
    expect(ids.length).toBe(2);
    expect(sorted(ids.map(Number))).toEqual(ids.map(Number));
    const rest = await walkRest(teacher.api, server, `/api/v1/courses/${cid()}/modules/${mod}/assignment_overrides?per_page=1`);
    expect(rest.ids).toEqual(ids.map(Number));
  });
});
