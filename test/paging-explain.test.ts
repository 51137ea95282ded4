import { QuizSubmission } from '../src/content/quizzes/quiz-submission.entity';
import { parseLinks } from './support/api';
import { captureStatements, pagingWorld, PagingWorld } from './support/paging';
import { startTestServer, TestServer } from './support/server';

/**
 * Each converted list's page statement, captured as the server runs it, explained by the engine: it
 * must read its page from an index (SQLite: SEARCH, never SCAN of a big table nor a temp B-tree for
 * ORDER BY or GROUP BY; MariaDB: no type=ALL or full index scan of a big table, no filesort, no
 * temporary table). The tables are made big with rows of other parents (copies of the seeded rows)
 * and the statistics refreshed, so the planners choose as they would in production.
 */
const BIG = ['enrollments', 'group_memberships', 'groups', 'planner_notes', 'calendar_events', 'assignments', 'quiz_submissions'];
let server: TestServer;
let w: PagingWorld;
const mysql = () => server.db.kind === 'mysql';

/** Copies every row of `table` `times` times over, each copy under another parent (`parent` + k·10⁶). */
async function grow(table: string, parent: string, times: number): Promise<void> {
  const ds = server.app.ds;
  const cols = ds.getMetadata(table).columns.map((c) => c.databaseName).filter((c) => c !== 'id');
  const list = cols.map((c) => ds.driver.escape(c)).join(', ');
  for (let k = 1; k <= times; k++) {
    const select = cols.map((c) => (c === parent ? `${ds.driver.escape(c)} + ${k * 1_000_000}` : ds.driver.escape(c))).join(', ');
    await ds.query(`INSERT INTO ${ds.driver.escape(table)} (${list}) SELECT ${select} FROM ${ds.driver.escape(table)} WHERE ${ds.driver.escape(parent)} < 1000000`);
  }
}

beforeAll(async () => {
  server = await startTestServer();
  w = await pagingWorld(server, 60);
  await grow('enrollments', 'course_id', 40);
  await grow('group_memberships', 'group_id', 40);
  await grow('groups', 'context_id', 40);
  await grow('planner_notes', 'user_id', 40);
  if (mysql()) await server.app.ds.query(`ANALYZE TABLE ${BIG.join(', ')}`);
  else await server.app.ds.query('ANALYZE');
}, 600_000);
afterAll(() => server.close());

/** The big tables a statement reads, by the names the plans give them (their aliases). */
function bigAliases(sql: string): Set<string> {
  const out = new Set<string>(BIG);
  for (const m of sql.matchAll(/(?:FROM|JOIN)\s+[`"]?(\w+)[`"]?\s+(?:AS\s+)?[`"]?(\w+)[`"]?/gi)) if (BIG.includes(m[1])) out.add(m[2]);
  return out;
}

/** The plan's problems: scans of big tables and sorts of whole parent sets. */
async function problems(sql: string, params: readonly unknown[]): Promise<string[]> {
  const out: string[] = [];
  const big = bigAliases(sql);
  if (mysql()) {
    const rows: { table: string | null; type: string | null; Extra: string | null; key: string | null }[] = await server.app.ds.query(`EXPLAIN ${sql}`, [...params]);
    for (const r of rows) {
      if (big.has(String(r.table)) && (r.type === 'ALL' || r.type === 'index')) out.push(`full scan of ${r.table} (type=${r.type})`);
      if (/filesort/i.test(r.Extra ?? '')) out.push(`filesort on ${r.table}`);
      // A temporary table (DISTINCT, GROUP BY) holds every row of the parent before the LIMIT applies.
      if (/Using temporary/i.test(r.Extra ?? '')) out.push(`temporary table on ${r.table}`);
    }
  } else {
    const rows: { detail: string }[] = await server.app.ds.query(`EXPLAIN QUERY PLAN ${sql}`, [...params]);
    for (const { detail } of rows) {
      const scan = /^SCAN (\w+)/.exec(detail);
      if (scan && big.has(scan[1])) out.push(`scan: ${detail}`);
      if (/USE TEMP B-TREE FOR (ORDER|GROUP) BY/.test(detail)) out.push(`sort: ${detail}`);
    }
  }
  return out;
}

/** The page statements (they end in LIMIT) on `table` that a request ran, each with its plan's problems. */
async function explainPages(table: string, request: () => Promise<unknown>): Promise<Record<string, string[]>> {
  const statements = await captureStatements(server, request);
  const pages = statements.filter((s) => /\bLIMIT\b/i.test(s.sql) && new RegExp(`\\b${table}\\b`).test(s.sql));
  expect(pages.length).toBeGreaterThan(0);
  const out: Record<string, string[]> = {};
  for (const s of pages) out[s.sql] = await problems(s.sql, s.params);
  return out;
}

const clean = (plans: Record<string, string[]>) => expect(Object.fromEntries(Object.entries(plans).filter(([, p]) => p.length))).toEqual({});

/** The first page and the next one (by Link next, a bookmark or page 2) of a REST list. */
async function firstAndNext(path: string): Promise<(() => Promise<unknown>)[]> {
  const first = await w.teacher.api.get(path);
  const next = parseLinks(first.headers.get('link')).next.replace(server.url, '');
  return [() => w.teacher.api.get(path), () => w.teacher.api.get(next)];
}

it.each([
  ['enrollments', 'a course\'s enrollments (bookmarks)', () => `/api/v1/courses/${w.course.id}/enrollments?per_page=10`],
  ['enrollments', 'a course\'s users', () => `/api/v1/courses/${w.course.id}/users?per_page=10`],
  ['enrollments', 'a course\'s users, descending, students only', () => `/api/v1/courses/${w.course.id}/users?per_page=10&order=desc&enrollment_type[]=student`],
  ['group_memberships', 'a group\'s users', () => `/api/v1/groups/${w.group.id}/users?per_page=10`],
  ['group_memberships', 'a group\'s memberships', () => `/api/v1/groups/${w.group.id}/memberships?per_page=10`],
  ['groups', 'a course\'s groups', () => `/api/v1/courses/${w.course.id}/groups?per_page=10`],
  ['groups', 'a category\'s groups', () => `/api/v1/group_categories/${w.category.id}/groups?per_page=10`],
  ['planner_notes', 'planner notes', () => '/api/v1/planner_notes?per_page=10'],
])('%s: %s reads its pages from an index', async (table, _label, path) => {
  for (const request of await firstAndNext(path())) clean(await explainPages(table, request));
});

it('GraphQL key set pages (a deep cursor) read from an index too', async () => {
  const q = `query($id: ID!, $after: String) { groupUsersConnection(groupId: $id, first: 10, after: $after) { nodes { _id } pageInfo { endCursor } } }`;
  const first = await w.teacher.api.graphql(q, { id: String(w.group.id) });
  const after = first.data.groupUsersConnection.pageInfo.endCursor;
  clean(await explainPages('group_memberships', () => w.teacher.api.graphql(q, { id: String(w.group.id), after })));
});

it.each(['asc', 'desc'])('GraphQL course users by key set cursor (%s, a deep cursor) read from the enrollments index', async (order) => {
  const q = `query($id: ID!, $after: String, $order: String) { course(id: $id) { usersConnection(first: 10, after: $after, order: $order) { nodes { _id } pageInfo { endCursor } } } }`;
  const vars = { id: String(w.course.id), order };
  const first = await w.teacher.api.graphql(q, vars);
  const second = await w.teacher.api.graphql(q, { ...vars, after: first.data.course.usersConnection.pageInfo.endCursor });
  const after = second.data.course.usersConnection.pageInfo.endCursor;
  clean(await explainPages('enrollments', () => w.teacher.api.graphql(q, { ...vars, after })));
});

describe('calendar lists', () => {
  const base = '/api/v1/calendar_events?per_page=10';
  const course = () => `context_codes[]=course_${w.course.id}`;

  /** Copies of the course's events under other contexts (codes and ids), as grow() does by a number. */
  async function growEvents(times: number): Promise<void> {
    const ds = server.app.ds;
    const cols = ds.getMetadata('calendar_events').columns.map((c) => c.databaseName).filter((c) => c !== 'id');
    const cat = (c: string, k: number) => (mysql() ? `CONCAT(${c}, '_${k}')` : `${c} || '_${k}'`);
    const select = (k: number) =>
      cols.map((c) => (c === 'context_id' ? `context_id + ${k * 1_000_000}` : c === 'context_code' || c === 'effective_context_code' ? cat(c, k) : ds.driver.escape(c))).join(', ');
    for (let k = 1; k <= times; k++) {
      await ds.query(`INSERT INTO calendar_events (${cols.map((c) => ds.driver.escape(c)).join(', ')}) SELECT ${select(k)} FROM calendar_events WHERE context_id < 1000000`);
    }
  }

  beforeAll(async () => {
    const api = w.teacher.api;
    const at = (i: number) => (i % 7 === 3 ? undefined : `2026-0${1 + (i % 6)}-1${i % 10}T10:00:00Z`);
    for (let i = 0; i < 60; i += 6) {
      await Promise.all(
        Array.from({ length: 6 }, async (_, j) => {
          const start = at(i + j);
          const event = await api.post('/api/v1/calendar_events', { calendar_event: { context_code: `course_${w.course.id}`, title: `E${i + j}`, ...(start ? { start_at: start, end_at: start } : {}) } });
          const mine = await api.post('/api/v1/calendar_events', { calendar_event: { context_code: `user_${w.teacher.id}`, title: `U${i + j}`, ...(start ? { start_at: start } : {}) } });
          const assignment = await api.post(`/api/v1/courses/${w.course.id}/assignments`, { assignment: { name: `A${i + j}`, due_at: start, published: (i + j) % 3 !== 0, submission_types: ['online_text_entry'] } });
          if (event.status !== 201 || mine.status !== 201 || assignment.status >= 300) throw new Error(`seed: ${event.status} ${mine.status} ${assignment.status}`);
        }),
      );
    }
    await growEvents(40);
    await grow('assignments', 'course_id', 40);
    if (mysql()) await server.app.ds.query('ANALYZE TABLE calendar_events, assignments');
    else await server.app.ds.query('ANALYZE');
  }, 600_000);

  it.each([
    ['calendar_events', "a course's events (all sections: by effective context)", () => `${base}&${course()}&all_events=1`],
    ['calendar_events', "a course's and a user's events (a union of index reads)", () => `${base}&${course()}&context_codes[]=user_${w.teacher.id}&all_events=1`],
    ['calendar_events', "a user's undated events", () => `/api/v1/calendar_events?per_page=3&context_codes[]=user_${w.teacher.id}&undated=1`],
    ['calendar_events', "a course's events in a date window", () => `${base}&${course()}&start_date=2026-01-01&end_date=2026-12-31`],
    ['assignments', "a course's assignment events (numbered pages)", () => `${base}&type=assignment&${course()}&all_events=1`],
    ['assignments', "a course's assignment events in a date window", () => `${base}&type=assignment&${course()}&start_date=2026-01-01&end_date=2026-12-31`],
  ])('%s: %s reads its pages from an index', async (table, _label, path) => {
    for (const request of await firstAndNext(path())) clean(await explainPages(table, request));
  });

  it('GraphQL assignment events by a deep key cursor read from the index', async () => {
    const q = `query($c: [String!], $after: String) { assignmentEvents(contextCodes: $c, allEvents: true, first: 10, after: $after) { nodes { id } pageInfo { endCursor } } }`;
    const vars = { c: [`course_${w.course.id}`] };
    const first = await w.teacher.api.graphql(q, vars);
    const second = await w.teacher.api.graphql(q, { ...vars, after: first.data.assignmentEvents.pageInfo.endCursor });
    const after = second.data.assignmentEvents.pageInfo.endCursor;
    clean(await explainPages('assignments', () => w.teacher.api.graphql(q, { ...vars, after })));
  });
});

// ---- lists of a course's students: submissions, quiz submissions, module progressions ------------------

describe('student lists', () => {
  let assignment: number;
  let quiz: number;
  let mod: number;
  beforeAll(async () => {
    const api = w.teacher.api;
    const cid = w.course.id;
    const created = async (path: string, body: Record<string, unknown>) => {
      const res = await api.post(path, body);
      if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.id as number;
    };
    assignment = await created(`/api/v1/courses/${cid}/assignments`, { assignment: { name: 'Essay', submission_types: ['online_text_entry'], published: true } });
    quiz = await created(`/api/v1/courses/${cid}/quizzes`, { quiz: { title: 'Quiz', published: true } });
    mod = await created(`/api/v1/courses/${cid}/modules`, { module: { name: 'Week 1' } });
    await api.put(`/api/v1/courses/${cid}/modules/${mod}`, { module: { published: true } });
    // Every student's quiz submission, written directly (the list reads them; taking the quiz is another test's).
    const ds = server.app.ds;
    const now = new Date();
    await ds.getRepository(QuizSubmission).insert(w.students.map((userId) => ({ quizId: quiz, userId, attempt: 1, workflowState: 'complete', wasPreview: false, createdAt: now, updatedAt: now }) as never));
    await grow('quiz_submissions', 'quiz_id', 40);
    if (mysql()) await ds.query('ANALYZE TABLE enrollments, quiz_submissions');
    else await ds.query('ANALYZE');
  }, 300_000);

  it.each([
    ['enrollments', 'an assignment\'s submissions', () => `/api/v1/courses/${w.course.id}/assignments/${assignment}/submissions?per_page=10`],
    ['quiz_submissions', 'a quiz\'s submissions', () => `/api/v1/courses/${w.course.id}/quizzes/${quiz}/submissions?per_page=10`],
  ])('%s: %s reads its pages from an index', async (table, _label, path) => {
    for (const request of await firstAndNext(path())) clean(await explainPages(table, request));
  });

  it.each([
    ['enrollments', 'assignment', () => `query($after: String) { assignment(id: "${assignment}", courseId: "${w.course.id}") { submissionsConnection(first: 10, after: $after) { nodes { _id } pageInfo { endCursor } } } }`, 'assignment.submissionsConnection'],
    ['enrollments', 'module', () => `query($after: String) { module(courseId: "${w.course.id}", id: "${mod}") { progressionsConnection(first: 10, after: $after) { nodes { userId } pageInfo { endCursor } } } }`, 'module.progressionsConnection'],
  ])('%s: GraphQL %s list by key set cursor (a deep cursor) reads from an index', async (table, _label, query, root) => {
    const at = (res: any) => root.split('.').reduce((o: any, k) => o?.[k], res.data);
    const first = await w.teacher.api.graphql(query());
    const second = await w.teacher.api.graphql(query(), { after: at(first).pageInfo.endCursor });
    const after = at(second).pageInfo.endCursor;
    expect(after).toBeTruthy();
    clean(await explainPages(table, () => w.teacher.api.graphql(query(), { after })));
  });
});
