import { parseLinks } from './support/api';
import { ExplainHarness } from './support/explain';
import { captureStatements, type PagingWorld } from './support/paging';
import type { TestServer } from './support/server';

/**
 * Core lists' pages read from an index: a course's enrollments and people, a group's users and
 * memberships, a course's and a category's groups, planner notes (the checks and how the tables are grown:
 * test/support/explain.ts).
 */
const h = new ExplainHarness(['enrollments', 'group_memberships', 'groups', 'planner_notes']);
let server: TestServer;
let w: PagingWorld;
const { grow, explainPages, clean, firstAndNext } = h;

beforeAll(async () => {
  ({ server, w } = await h.start());
  await grow('enrollments', 'course_id', 40);
  await grow('group_memberships', 'group_id', 40);
  await grow('groups', 'context_id', 40);
  await grow('planner_notes', 'user_id', 40);
  await h.analyze();
}, 600_000);
afterAll(() => h.close());

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

it('planner notes: the total (rel="last") is counted from an index, not from a row read per note', async () => {
  const seen = await captureStatements(server, () => w.teacher.api.get('/api/v1/planner_notes?per_page=10'));
  const counts = seen.filter((st) => /\bCOUNT\(/i.test(st.sql) && /\bplanner_notes\b/.test(st.sql));
  expect(counts.length).toBe(1);
  expect(await h.notIndexOnly(counts[0].sql, counts[0].params, 'planner_notes')).toEqual([]);
});
