import { QuizSubmission } from '../src/content/quizzes/quiz-submission.entity';
import { parseLinks } from './support/api';
import { captureStatements, pagingWorld, PagingWorld } from './support/paging';
import { startTestServer, TestServer } from './support/server';
import { courseListsWorld, CourseListsWorld } from './support/paging-lists';
import { randomUUID } from 'node:crypto';
import { ErrorReport } from '../src/error-reports/error-report.entity';
import { ToolProxy } from '../src/lti/tool-proxy.entity';
import { PlannerOverride } from '../src/planner/planner-override.entity';
import { OutboxMessage } from '../src/webhooks/outbox.entity';
import { WebhookSubscription } from '../src/webhooks/webhook-subscription.entity';
import { subAccount } from './support/lti';
import { World, WorldUser } from './support/world';

/**
 * Each converted list's page statement, captured as the server runs it, explained by the engine: it
 * must read its page from an index (SQLite: SEARCH, never SCAN of a big table nor a temp B-tree for
 * ORDER BY or GROUP BY; MariaDB: no type=ALL or full index scan of a big table, no filesort, no
 * temporary table). The tables are made big with rows of other parents (copies of the seeded rows)
 * and the statistics refreshed, so the planners choose as they would in production.
 */
const BIG = ['enrollments', 'group_memberships', 'groups', 'planner_notes', 'calendar_events', 'assignments', 'courses', 'pseudonyms', 'discussion_entries', 'discussion_topics', 'quiz_submissions'];
let server: TestServer;
let w: PagingWorld;
let lists: CourseListsWorld;
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
  lists = await courseListsWorld(server, w);
  await grow('courses', 'root_account_id', 40);
  await grow('pseudonyms', 'account_id', 40);
  await grow('discussion_entries', 'discussion_topic_id', 40);
  await grow('discussion_topics', 'context_id', 40);
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

describe('course, account user, discussion entry and activity stream lists', () => {
  const topicPath = () => `/api/v1/courses/${w.course.id}/discussion_topics/${lists.topic.id}`;

  it.each([
    ['enrollments', "the viewer's courses", () => '/api/v1/courses?per_page=2'],
    ['pseudonyms', "an account's users", () => '/api/v1/accounts/self/users?per_page=10'],
    ['discussion_entries', "a topic's entries", () => `${topicPath()}/entries?per_page=2`],
    ['discussion_entries', "an entry's replies", () => `${topicPath()}/entries/${lists.thread.id}/replies?per_page=2`],
    ['discussion_topics', "a course's activity stream", () => `/api/v1/courses/${w.course.id}/activity_stream?per_page=2`],
    ['discussion_topics', "the viewer's activity stream", () => '/api/v1/users/self/activity_stream?per_page=2'],
  ])('%s: %s reads its REST pages from an index', async (table, _label, path) => {
    // The account's users are for admins: the paging world's teacher reads the others.
    const api = table === 'pseudonyms' ? server.admin : w.teacher.api;
    const first = await api.get(path());
    const next = parseLinks(first.headers.get('link')).next.replace(server.url, '');
    for (const request of [() => api.get(path()), () => api.get(next)]) clean(await explainPages(table, request));
  });

  it.each([
    ['enrollments', "the viewer's courses", 'coursesConnection', '', () => ({})],
    ['courses', "an account's courses", 'account.coursesConnection', 'account(id: "self") {', () => ({})],
    ['pseudonyms', "an account's users", 'account.usersConnection', 'account(id: "self") {', () => ({})],
    ['discussion_entries', "a topic's entries", 'discussionTopic.entriesConnection', 'discussionTopic(id: $id) {', () => ({ id: String(lists.topic.id) })],
    ['discussion_topics', "a course's activity stream", 'courseActivityStream', '', () => ({ id: String(w.course.id) })],
    ['discussion_topics', "the viewer's activity stream", 'viewerActivityStream', '', () => ({})],
  ])('%s: %s by a deep GraphQL cursor reads from an index', async (table, _label, root, open, vars) => {
    const field = root.split('.').pop()!;
    const args = field === 'courseActivityStream' ? 'courseId: $id, ' : '';
    const decl = Object.keys(vars()).length ? '$id: ID!, ' : '';
    const q = `query(${decl}$after: String) { ${open} ${field}(${args}first: 2, after: $after) { nodes { __typename } pageInfo { endCursor } } ${open ? '}' : ''} }`;
    const api = root.startsWith('account.') ? server.admin : w.teacher.api;
    const conn = (res: { data: any }) => root.split('.').reduce((o: any, k) => o?.[k], res.data);
    const first = await api.graphql(q, vars());
    const after = conn(await api.graphql(q, { ...vars(), after: conn(first).pageInfo.endCursor })).pageInfo.endCursor;
    expect(after).toBeTruthy();
    clean(await explainPages(table, () => api.graphql(q, { ...vars(), after })));
  });
});

// ---- admin and per-user lists (issue 23): planner overrides, tool proxies, webhook deliveries, error reports ----
describe('admin and per-user lists', () => {
  BIG.push('planner_overrides', 'lti_tool_proxies', 'outbox_messages', 'error_reports');
  let facultyAdmin: WorldUser;
  let facultyId: number;
  let subId: string;

  /** Rows of `entity` saved in chunks (unique columns need fresh values, so not copies in SQL). */
  const save = async <T extends object>(entity: new () => T, n: number, fields: (i: number) => Partial<T>) =>
    server.app.ds.getRepository(entity).save(Array.from({ length: n }, (_, i) => Object.assign(new entity(), fields(i))), { chunk: 200 });

  beforeAll(async () => {
    const ds = server.app.ds;
    // The teacher's overrides, grown under other users like the notes.
    await save(PlannerOverride, 60, (i) => ({ userId: w.teacher.id, plannableType: 'assignment', plannableId: 800_000 + i, markedComplete: false, dismissed: false, workflowState: i % 7 ? ('active' as const) : ('deleted' as const), deletedAt: null }));
    await grow('planner_overrides', 'user_id', 40);
    // Tool proxies: the root account's own, a sub-account tree's, and 40 other roots' as many.
    const faculty = await subAccount(server, new World(server), 'Faculty');
    facultyAdmin = faculty.admin;
    facultyId = faculty.account.id;
    const dept = (await subAccount(server, new World(server), 'Department', facultyId)).account.id;
    const proxy = (accountId: number, rootAccountId: number) => (i: number) =>
      ({ guid: randomUUID(), name: `Tool ${i}`, sharedSecretEncrypted: 'x', capabilities: '[]', contextType: 'Account' as const, contextId: accountId, accountId, rootAccountId, workflowState: i % 9 ? ('active' as const) : ('deleted' as const) });
    for (const a of [1, facultyId, dept]) await save(ToolProxy, 30, proxy(a, 1));
    for (let k = 1; k <= 40; k++) await save(ToolProxy, 60, proxy(1_000_000 + k, 1_000_000 + k));
    // One subscription's deliveries among 40 others' as many.
    const draft = () =>
      WebhookSubscription.draft({ toolProxyId: 1, contextType: 'root_account', contextId: '1', matchType: 'Account', matchId: 1, rootAccountId: 1, eventTypes: '[]', format: 'live-event', transportType: 'https', transportUrl: 'https://receiver.invalid/h', developerKey: 'dk' });
    const now = new Date();
    const message = (subscriptionId: string) => (i: number) =>
      ({ messageId: randomUUID(), subscriptionId, toolProxyId: 1, eventName: 'grade_change', format: 'live-event', payload: '{}', status: i % 3 ? 'delivered' : 'dead', attempts: 1, nextAttemptAt: now, retryUntil: now, createdAt: now, updatedAt: now }) as never;
    for (let k = 0; k <= 40; k++) {
      const sub = await ds.getRepository(WebhookSubscription).save(draft());
      // The listed subscription's messages come last: the newest ids, with every other's below its cursor.
      if (k === 40) subId = sub.id;
      await save(OutboxMessage, 60, message(sub.id));
    }
    // Error reports: the list is the whole table (or one severity of it).
    await save(ErrorReport, 2400, (i) => ({ subject: `Report ${i}`, userPerceivedSeverity: i % 2 ? ('just_a_comment' as const) : null }));
    if (mysql()) await ds.query('ANALYZE TABLE planner_overrides, lti_tool_proxies, outbox_messages, error_reports');
    else await ds.query('ANALYZE');
  }, 600_000);

  /** The first page and the next one (Link next) of a REST list as `api` sees it. */
  async function restPages(api: typeof w.teacher.api, path: string): Promise<(() => Promise<unknown>)[]> {
    const next = parseLinks((await api.get(path)).headers.get('link')).next.replace(server.url, '');
    return [() => api.get(path), () => api.get(next)];
  }

  /** The first page and the next one (by endCursor) of a GraphQL connection at `root`. */
  async function graphqlPages(api: typeof w.teacher.api, q: string, vars: Record<string, unknown>, root: string): Promise<(() => Promise<unknown>)[]> {
    const after = (await api.graphql(q, vars)).data[root].pageInfo.endCursor;
    return [() => api.graphql(q, vars), () => api.graphql(q, { ...vars, after })];
  }

  it("planner_overrides: a user's overrides read their pages from the (user, state, id) index", async () => {
    for (const request of await restPages(w.teacher.api, '/api/v1/planner/overrides?per_page=10')) clean(await explainPages('planner_overrides', request));
  });

  it("lti_tool_proxies: the root account's proxies (root, state, id) and a sub-account tree's (account, state, id, one read per account)", async () => {
    for (const request of await restPages(server.admin, '/api/v1/accounts/1/tool_proxies?per_page=10')) clean(await explainPages('lti_tool_proxies', request));
    for (const request of await restPages(facultyAdmin.api, `/api/v1/accounts/${facultyId}/tool_proxies?per_page=10`)) {
      const plans = await explainPages('lti_tool_proxies', request);
      // The tree's accounts are read apart and merged: only the merge of their first + 1 rows each
      // (a bounded set) may sort, never a read of a parent's rows.
      clean(Object.fromEntries(Object.entries(plans).map(([sql, p]) => [sql, /UNION ALL/.test(sql) ? p.filter((x) => !/TEMP B-TREE FOR ORDER BY|filesort on <union|temporary table on <union/i.test(x)) : p])));
    }
  });

  it("outbox_messages: a subscription's deliveries read their pages from the (subscription, id) index", async () => {
    const q = `query($id: String!, $after: String) { webhookDeliveries(subscriptionId: $id, first: 10, after: $after) { nodes { messageId } pageInfo { endCursor } } }`;
    for (const request of await graphqlPages(server.admin, q, { id: subId }, 'webhookDeliveries')) clean(await explainPages('outbox_messages', request));
  });

  it('error_reports: one severity from the (severity, id) index; all of them backwards from the primary key, never sorted', async () => {
    const q = `query($severity: String, $after: String) { errorReportsConnection(severity: $severity, first: 10, after: $after) { nodes { _id } pageInfo { endCursor } } }`;
    for (const request of await graphqlPages(server.admin, q, { severity: 'just_a_comment' }, 'errorReportsConnection')) clean(await explainPages('error_reports', request));
    for (const request of await graphqlPages(server.admin, q, {}, 'errorReportsConnection')) {
      // Without a severity the list is the table: its first page walks the primary key from the newest
      // end and stops after first + 1 rows (a "scan" to the planner), and must not sort.
      const plans = await explainPages('error_reports', request);
      clean(Object.fromEntries(Object.entries(plans).map(([sql, p]) => [sql, p.filter((x) => !/^scan: SCAN r\b|full scan of r \(type=index\)/.test(x))])));
    }
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
