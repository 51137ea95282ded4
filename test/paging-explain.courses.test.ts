import { parseLinks } from './support/api';
import { courseListsWorld, CourseListsWorld } from './support/paging-lists';
import { ExplainHarness } from './support/explain';
import type { PagingWorld } from './support/paging';
import type { TestServer } from './support/server';

/**
 * Course, account user, discussion entry and activity stream lists read their pages from an index (the
 * checks and how the tables are grown: test/support/explain.ts).
 */
const h = new ExplainHarness(['enrollments', 'courses', 'pseudonyms', 'discussion_entries', 'discussion_topics']);
let server: TestServer;
let w: PagingWorld;
let lists: CourseListsWorld;
const { grow, explainPages, clean } = h;

beforeAll(async () => {
  ({ server, w } = await h.start());
  await grow('enrollments', 'course_id', 40);
  lists = await courseListsWorld(server, w);
  await grow('courses', 'root_account_id', 40);
  await grow('pseudonyms', 'account_id', 40);
  await grow('discussion_entries', 'discussion_topic_id', 40);
  await grow('discussion_topics', 'context_id', 40);
  await h.analyze();
}, 600_000);
afterAll(() => h.close());

describe('course, account user, discussion entry and activity stream lists', () => {
  const topicPath = () => `/api/v1/courses/${w.course.id}/discussion_topics/${lists.topic.id}`;

  it.each([
    ['enrollments', "the viewer's courses", () => '/api/v1/courses?per_page=2'],
    ['pseudonyms', "an account's users", () => '/api/v1/accounts/self/users?per_page=10'],
    ['pseudonyms', "an account's users by id (bookmarks)", () => '/api/v1/accounts/self/users?per_page=10&sort=id'],
    ['pseudonyms', "an account's users by id, descending", () => '/api/v1/accounts/self/users?per_page=10&sort=id&order=desc'],
    ['pseudonyms', "an account's users by name, descending", () => '/api/v1/accounts/self/users?per_page=10&order=desc'],
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
