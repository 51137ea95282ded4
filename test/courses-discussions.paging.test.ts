import { parseLinks } from './support/api';
import { walkGraphql, walkRest } from './support/paging';
import { entry, makeGroup, ok, topic } from './discussions.support';
import type { TestServer } from './support/server';
import { startWorld, World, WorldUser } from './support/world';

/**
 * The viewer's and an account's courses, an account's users, a topic's entries and replies and a
 * course's activity stream, paged in SQL: GraphQL key set cursors walked to the end (rows added or
 * removed between pages neither repeated nor skipped, ties in the sort key kept in order), Canvas's
 * numbered REST pages read deep, and totals right when asked for.
 */
let server: TestServer;
let world: World;
let teacher: WorldUser;
let course: { id: number };
let topicId: number;
let rootEntry: number;
const tag = `pg${Date.now().toString(36)}`;
const COURSES = 13;
const ENTRIES = 26;
const REPLIES = 17;
const TOPICS = 19;
const SAME = 7;

const noDuplicates = (ids: unknown[]) => expect(new Set(ids).size).toBe(ids.length);
const numbers = (ids: string[]) => ids.map(Number);
const ids = async (sql: string, params: unknown[] = []) => ((await server.app.ds.query(sql, params)) as { id: unknown }[]).map((r) => Number(r.id));

beforeAll(async () => {
  ({ server, world } = await startWorld());
  teacher = await world.user('Tess Teacher');
  for (let i = 0; i < COURSES; i++) {
    const c = await world.course({ name: `Course ${i}`, published: i % 4 !== 1 });
    await world.enroll(c.id, teacher.id, 'TeacherEnrollment');
    if (i === 0) course = c;
  }
  const base = `/api/v1/courses/${course.id}`;
  for (let i = 0; i < TOPICS; i++) {
    const t = await topic(teacher.api, base, { title: `Topic ${i}` });
    if (i === 0) topicId = t.id;
  }
  for (let i = 0; i < ENTRIES; i++) await entry(teacher.api, base, topicId, `Entry ${i}`);
  rootEntry = (await entry(teacher.api, base, topicId, 'The thread')).id;
  for (let i = 0; i < REPLIES; i++) ok(await teacher.api.post(`${base}/discussion_topics/${topicId}/entries/${rootEntry}/replies`, { message: `Reply ${i}` }), 'reply');
  // Users of one search term, several with one name (ties in the sortable name).
  for (let i = 0; i < 12; i++) await world.user(i < SAME ? `${tag} Same` : `${tag} Person${String.fromCharCode(65 + i)}`);
}, 600_000);
afterAll(() => server.close());

describe("the viewer's courses", () => {
  const Q = `query($after: String) { coursesConnection(first: 4, after: $after) { totalCount nodes { _id } pageInfo { hasNextPage endCursor } } }`;
  const mine = () => ids(`SELECT DISTINCT e.course_id AS id FROM enrollments e JOIN courses c ON c.id = e.course_id WHERE e.user_id = ? AND c.workflow_state <> 'deleted' ORDER BY e.course_id`, [teacher.id]);

  it('REST: numbered pages read deep, with rel="last" counted as Canvas', async () => {
    const { ids: walked, links } = await walkRest(teacher.api, server, '/api/v1/courses?per_page=3');
    expect(walked).toEqual(await mine());
    expect(links[0].last).toContain(`page=${Math.ceil(COURSES / 3)}&per_page=3`);
    const deep = await teacher.api.get(`/api/v1/courses?per_page=3&page=4`);
    expect(deep.body.map((c: { id: number }) => c.id)).toEqual((await mine()).slice(9, 12));
  });

  it('GraphQL: key set cursors; a course removed and one added between pages shift nothing; totalCount', async () => {
    const before = await mine();
    let removed = 0;
    let added = 0;
    const walked = numbers(
      await walkGraphql(teacher.api, Q, {}, 'coursesConnection', async (page) => {
        if (page !== 1) return;
        removed = before[1];
        ok(await server.admin.request('PUT', `/api/v1/courses/${removed}`, { course: { event: 'delete' } }), 'delete course');
        const c = await world.course({ name: 'Late course' });
        await world.enroll(c.id, teacher.id, 'TeacherEnrollment');
        added = c.id;
      }),
    );
    noDuplicates(walked);
    // The removed course was on page 1 (shown); every other course comes once, the new one last.
    expect(walked).toEqual([...before, added]);
    const res = await teacher.api.graphql(Q, {});
    expect(res.data.coursesConnection.totalCount).toBe(before.length);
  });
});

it("an account's courses by key set cursor, with totalCount", async () => {
  const Q = `query($after: String) { account(id: "self") { coursesConnection(first: 5, after: $after) { totalCount nodes { _id } pageInfo { hasNextPage endCursor } } } }`;
  const walked = numbers(await walkGraphql(server.admin, Q, {}, 'account.coursesConnection'));
  const root: number = (await server.admin.get('/api/v1/accounts/self')).body.id;
  const all = await ids("SELECT id FROM courses WHERE root_account_id = ? AND workflow_state <> 'deleted' ORDER BY id", [root]);
  expect(walked).toEqual(all);
  expect((await server.admin.graphql(Q, {})).data.account.coursesConnection.totalCount).toBe(all.length);
});

describe("an account's users", () => {
  const Q = `query($after: String, $term: String) { account(id: "self") { usersConnection(first: 3, after: $after, searchTerm: $term) { totalCount nodes { _id name } pageInfo { hasNextPage endCursor } } } }`;
  const tagged = () => ids(`SELECT u.id FROM users u WHERE u.name LIKE ? ORDER BY u.sortable_name, u.id`, [`${tag} %`]);

  it('REST: numbered pages by sortable name (ties by id), no total counted and no rel="last"', async () => {
    const { ids: walked, links } = await walkRest(server.admin, server, `/api/v1/accounts/self/users?search_term=${tag}&per_page=4`);
    expect(walked).toEqual(await tagged());
    expect(links.every((l) => l.last === undefined)).toBe(true);
  });

  it('GraphQL: key set cursors through the tied names; users added between pages before and after the cursor', async () => {
    const before = await tagged();
    let late = 0;
    const walked = numbers(
      await walkGraphql(server.admin, Q, { term: tag }, 'account.usersConnection', async (page) => {
        if (page !== 2) return;
        // Page 2 ends inside the run of "Same, …" names: one sorting before the cursor is not shown, one after is.
        await world.user(`${tag} Aaron`);
        late = (await world.user(`${tag} Zed`)).id;
      }),
    );
    noDuplicates(walked);
    expect(walked).toEqual([...before, late]);
    expect((await server.admin.graphql(Q, { term: tag })).data.account.usersConnection.totalCount).toBe(before.length + 2);
  });

  it('the whole account pages without a search term', async () => {
    const all = await ids(`SELECT DISTINCT u.id, u.sortable_name FROM users u JOIN pseudonyms p ON p.user_id = u.id WHERE p.workflow_state = 'active' AND u.workflow_state <> 'deleted' ORDER BY u.sortable_name, u.id`);
    const walked = numbers(await walkGraphql(server.admin, Q.replace('first: 3', 'first: 9'), {}, 'account.usersConnection'));
    expect(walked).toEqual(all);
  });
});

describe("a topic's entries and an entry's replies", () => {
  const base = () => `/api/v1/courses/${course.id}/discussion_topics/${topicId}`;
  const ENTRIES_Q = `query($id: ID!, $after: String) { discussionTopic(id: $id) { entriesConnection(first: 5, after: $after) { totalCount nodes { _id } pageInfo { hasNextPage endCursor } } } }`;
  const REPLIES_Q = `query($id: ID!, $entry: ID!, $after: String) { discussionTopic(id: $id) { entry(id: $entry) { repliesConnection(first: 4, after: $after) { totalCount nodes { _id } pageInfo { hasNextPage endCursor } } } } }`;
  const roots = () => ids("SELECT id FROM discussion_entries WHERE discussion_topic_id = ? AND parent_id IS NULL AND workflow_state = 'active' ORDER BY id DESC", [topicId]);
  const replies = () => ids("SELECT id FROM discussion_entries WHERE root_entry_id = ? AND workflow_state = 'active' ORDER BY id DESC", [rootEntry]);

  it('REST: numbered pages, newest first, deep pages and rel="last"', async () => {
    const { ids: walked, links } = await walkRest(teacher.api, server, `${base()}/entries?per_page=4`);
    expect(walked).toEqual(await roots());
    expect(links[0].last).toContain(`page=${Math.ceil((ENTRIES + 1) / 4)}&per_page=4`);
    const deep = await teacher.api.get(`${base()}/entries?per_page=4&page=5`);
    expect(deep.body.map((e: { id: number }) => e.id)).toEqual((await roots()).slice(16, 20));
    const r = await walkRest(teacher.api, server, `${base()}/entries/${rootEntry}/replies?per_page=5`);
    expect(r.ids).toEqual(await replies());
    expect(r.links[0].last).toContain(`page=${Math.ceil(REPLIES / 5)}&per_page=5`);
  });

  it('GraphQL: entries by key set cursor; an entry posted and one removed between pages shift nothing', async () => {
    const before = await roots();
    const walked = numbers(
      await walkGraphql(teacher.api, ENTRIES_Q, { id: String(topicId) }, 'discussionTopic.entriesConnection', async (page) => {
        if (page !== 1) return;
        // A newer entry sorts before the cursor (not shown); an entry shown on page 1 goes away.
        await entry(teacher.api, `/api/v1/courses/${course.id}`, topicId, 'Late entry');
        await server.app.ds.query("UPDATE discussion_entries SET workflow_state = 'deleted' WHERE id = ?", [before[2]]);
      }),
    );
    expect(walked).toEqual(before);
    expect((await teacher.api.graphql(ENTRIES_Q, { id: String(topicId) })).data.discussionTopic.entriesConnection.totalCount).toBe(before.length);
  });

  it('GraphQL: replies by key set cursor, with totalCount', async () => {
    const walked = numbers(await walkGraphql(teacher.api, REPLIES_Q, { id: String(topicId), entry: String(rootEntry) }, 'discussionTopic.entry.repliesConnection'));
    expect(walked).toEqual(await replies());
    const res = await teacher.api.graphql(REPLIES_Q, { id: String(topicId), entry: String(rootEntry) });
    expect(res.data.discussionTopic.entry.repliesConnection.totalCount).toBe(REPLIES);
  });

  it('a forged cursor reads as the first page, an old offset cursor as its offset', async () => {
    const forged = Buffer.from('key:["x"]').toString('base64url');
    const res = await teacher.api.graphql(ENTRIES_Q, { id: String(topicId), after: forged });
    expect(res.errors).toBeUndefined();
    expect(numbers(res.data.discussionTopic.entriesConnection.nodes.map((n: { _id: string }) => n._id))).toEqual((await roots()).slice(0, 5));
    const offset = Buffer.from('offset:4').toString('base64');
    const old = await teacher.api.graphql(ENTRIES_Q, { id: String(topicId), after: offset });
    expect(numbers(old.data.discussionTopic.entriesConnection.nodes.map((n: { _id: string }) => n._id))).toEqual((await roots()).slice(5, 10));
  });
});

describe("a course's activity stream", () => {
  const Q = `query($id: ID!, $after: String) { courseActivityStream(courseId: $id, first: 4, after: $after) { totalCount nodes { _id } pageInfo { hasNextPage endCursor } } }`;
  // Topics posted within one second tie on activity_at: activity_seq, then the id, order them.
  const stream = () =>
    ids("SELECT id FROM discussion_topics WHERE context_type = 'Course' AND context_id = ? AND workflow_state = 'active' ORDER BY activity_at DESC, activity_seq DESC, id DESC", [course.id]);

  it('REST: numbered pages of 21 by default, deep pages and rel="last"', async () => {
    const { ids: walked, links } = await walkRest(teacher.api, server, `/api/v1/courses/${course.id}/activity_stream?per_page=5`);
    expect(walked).toEqual(await stream());
    expect(links[0].last).toContain(`page=${Math.ceil(TOPICS / 5)}&per_page=5`);
    const deep = await teacher.api.get(`/api/v1/courses/${course.id}/activity_stream?per_page=5&page=3`);
    expect(deep.body.map((t: { id: number }) => t.id)).toEqual((await stream()).slice(10, 15));
  });

  it('GraphQL: key set cursors; a topic posted, one bumped and one deleted between pages shift nothing', async () => {
    const before = await stream();
    const walked = numbers(
      await walkGraphql(teacher.api, Q, { id: String(course.id) }, 'courseActivityStream', async (page) => {
        if (page !== 1) return;
        await topic(teacher.api, `/api/v1/courses/${course.id}`, { title: 'Late topic' });
        ok(await teacher.api.request('DELETE', `/api/v1/courses/${course.id}/discussion_topics/${before[0]}`), 'delete topic');
        // A new entry brings a topic not yet shown to the top: the walk has passed the top, so it is not shown again.
        await entry(teacher.api, `/api/v1/courses/${course.id}`, before[before.length - 1], 'Bump');
      }),
    );
    noDuplicates(walked);
    expect(walked).toEqual(before.slice(0, -1));
    expect((await teacher.api.graphql(Q, { id: String(course.id) })).data.courseActivityStream.totalCount).toBe(before.length);
  });

  it("the viewer's own stream pages by key set cursor across their courses and groups", async () => {
    const student = await world.user('Stu Student');
    await world.enroll(course.id, student.id, 'StudentEnrollment');
    const group = await makeGroup(teacher.api, course.id, [student]);
    for (let i = 0; i < 6; i++) await topic(teacher.api, `/api/v1/groups/${group.id}`, { title: `Group topic ${i}` });
    const expected = await ids(
      `SELECT id FROM discussion_topics WHERE ((context_type = 'Course' AND context_id = ?) OR (context_type = 'Group' AND context_id = ?)) AND workflow_state = 'active'
        ORDER BY activity_at DESC, activity_seq DESC, id DESC`,
      [course.id, group.id],
    );
    const VQ = `query($after: String) { viewerActivityStream(first: 5, after: $after) { totalCount nodes { _id } pageInfo { hasNextPage endCursor } } }`;
    const walked = await walkGraphql(student.api, VQ, {}, 'viewerActivityStream');
    expect(numbers(walked)).toEqual(expected);
    expect((await student.api.graphql(VQ, {})).data.viewerActivityStream.totalCount).toBe(expected.length);
    const { ids: rest, links } = await walkRest(student.api, server, '/api/v1/users/self/activity_stream?per_page=4');
    expect(rest).toEqual(expected);
    expect(links[0].last).toContain(`page=${Math.ceil(expected.length / 4)}&per_page=4`);
  });
});

it('REST Link next of a numbered list keeps the query', async () => {
  const res = await teacher.api.get('/api/v1/courses?per_page=2&enrollment_type=teacher');
  expect(parseLinks(res.headers.get('link')).next).toContain('enrollment_type=teacher&page=2&per_page=2');
});
