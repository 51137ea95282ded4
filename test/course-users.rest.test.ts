import { parseLinks } from './support/api';
import { expectFlatCost, statementCost } from './support/graph';
import { startWorld } from './support/world';
import type { TestServer } from './support/server';
import type { World, WorldUser } from './support/world';

/**
 * People in a course (issue 22 item 5): GET /courses/:id/users, /search_users and /users/:id through
 * REST and GraphQL (Course.usersConnection, Course.user), with Canvas's filters, includes, sorting,
 * paging, section limits and refusals as the enrollments list applies them.
 */
let server: TestServer;
let world: World;
let course: { id: number };
let other: { id: number };
let secA: number;
let secB: number;
const p: Record<string, WorldUser> = {};

beforeAll(async () => {
  ({ server, world } = await startWorld());
  course = await world.course({ name: 'People' });
  other = await world.course({ name: 'Elsewhere' });
  secA = (await world.section(course.id, 'Section A')).id;
  secB = (await world.section(course.id, 'Section B')).id;
  const names: [string, string][] = [
    ['teach', 'Teresa Zeller'],
    ['limitedTa', 'Larry Young'],
    ['alice', 'Alice Anders'],
    ['bob', 'Bob Brown'],
    ['carol', 'Carol Cole'],
    ['dropped', 'Dora Drop'],
    ['watcher', 'Walt Watcher'],
    ['design', 'Dina Designer'],
    ['stranger', 'Stan Stranger'],
  ];
  for (const [k, n] of names) p[k] = await world.user(n);
  await world.enroll(course.id, p.teach.id, 'TeacherEnrollment');
  await world.enroll(course.id, p.limitedTa.id, 'TaEnrollment', { sectionId: secA, limitToSection: true });
  await world.enroll(course.id, p.alice.id, 'StudentEnrollment', { sectionId: secA });
  await world.enroll(course.id, p.bob.id, 'StudentEnrollment', { sectionId: secB });
  await world.enroll(course.id, p.carol.id, 'StudentEnrollment', { sectionId: secB, state: 'invited' });
  await world.enroll(course.id, p.dropped.id, 'StudentEnrollment', { sectionId: secA, state: 'inactive' });
  await world.enroll(course.id, p.watcher.id, 'ObserverEnrollment', { sectionId: secA, associatedUserId: p.alice.id });
  await world.enroll(course.id, p.design.id, 'DesignerEnrollment');
  await world.enroll(other.id, p.stranger.id, 'StudentEnrollment');
});
afterAll(() => server.close());

const names = (body: { name: string }[]) => body.map((u) => u.name);
const path = (q = '') => `/api/v1/courses/${course.id}/users${q}`;

describe('GET /api/v1/courses/:course_id/users', () => {
  it('lists current people by sortable name in Canvas user JSON', async () => {
    const res = await p.teach.api.get(path('?per_page=50'));
    expect(res.status).toBe(200);
    expect(names(res.body)).toEqual(['Alice Anders', 'Bob Brown', 'Carol Cole', 'Dina Designer', 'Walt Watcher', 'Larry Young', 'Teresa Zeller']);
    const alice = res.body[0];
    expect(alice).toMatchObject({ id: p.alice.id, name: 'Alice Anders', sortable_name: 'Anders, Alice', short_name: 'Alice Anders', created_at: expect.any(String) });
    expect(alice).not.toHaveProperty('enrollments');
    expect(alice).not.toHaveProperty('avatar_url');
    // The login is the user's own (and their admins') to see, as everywhere else.
    expect(alice).not.toHaveProperty('login_id');
    const admin = await server.admin.get(path('?search_term=alice'));
    expect(admin.body[0]).toMatchObject({ login_id: p.alice.login, email: p.alice.login });
  });

  it('pages with Canvas Link headers', async () => {
    const first = await p.teach.api.get(path('?per_page=3'));
    expect(names(first.body)).toEqual(['Alice Anders', 'Bob Brown', 'Carol Cole']);
    const links = parseLinks(first.headers.get('link'));
    // The next link is a bookmark (the page's last key): following it never skips rows with an offset.
    expect(links.next).toMatch(/page=bookmark%3A[A-Za-z0-9_-]+&per_page=3/);
    // Canvas counts no total for this list (total_entries: nil): no rel="last".
    expect(links.last).toBeUndefined();
    const second = await p.teach.api.get(links.next.replace(server.url, ''));
    expect(names(second.body)).toEqual(['Dina Designer', 'Walt Watcher', 'Larry Young']);
    // A page number, as clients of Canvas's numbered pages build it, still reads that page.
    expect(names((await p.teach.api.get(path('?per_page=3&page=2'))).body)).toEqual(['Dina Designer', 'Walt Watcher', 'Larry Young']);
  });

  it('filters by enrollment_type[], enrollment_role_id, enrollment_state[] and user_ids[]', async () => {
    expect(names((await p.teach.api.get(path('?enrollment_type[]=student'))).body)).toEqual(['Alice Anders', 'Bob Brown', 'Carol Cole']);
    expect(names((await p.teach.api.get(path('?enrollment_type[]=teacher&enrollment_type[]=ta'))).body)).toEqual(['Larry Young', 'Teresa Zeller']);
    expect(names((await p.teach.api.get(path('?enrollment_type=observer'))).body)).toEqual(['Walt Watcher']);
    expect((await p.teach.api.get(path('?enrollment_type[]=student_view'))).body).toEqual([]);
    expect(names((await p.teach.api.get(path('?enrollment_role_id=6'))).body)).toEqual(['Dina Designer']);
    expect(names((await p.teach.api.get(path('?enrollment_state[]=inactive'))).body)).toEqual(['Dora Drop']);
    expect(names((await p.teach.api.get(path('?enrollment_type[]=student&enrollment_state[]=active&enrollment_state[]=inactive'))).body)).toEqual(['Alice Anders', 'Bob Brown', 'Dora Drop']);
    expect(names((await p.teach.api.get(path(`?user_ids[]=${p.bob.id}&user_ids[]=${p.stranger.id}`))).body)).toEqual(['Bob Brown']);
  });

  it('searches by name (2 characters or more) and sorts', async () => {
    expect(names((await p.teach.api.get(path('?search_term=BR'))).body)).toEqual(['Bob Brown']);
    const search = await p.teach.api.get(`/api/v1/courses/${course.id}/search_users?search_term=wa&enrollment_type[]=observer`);
    expect(names(search.body)).toEqual(['Walt Watcher']);
    const desc = await p.teach.api.get(path('?sort=username&order=desc&enrollment_type[]=student'));
    expect(names(desc.body)).toEqual(['Carol Cole', 'Bob Brown', 'Alice Anders']);
    // Logins are the user's and their admins' to see, so only an admin finds people by them.
    const loginPart = p.alice.login.split('@')[0].slice(-6);
    expect((await p.teach.api.get(path(`?search_term=${loginPart}`))).body).toEqual([]);
    expect(names((await server.admin.get(path(`?search_term=${loginPart}`))).body)).toEqual(['Alice Anders']);
    const byEmail = await server.admin.get(path('?sort=email&enrollment_type[]=student'));
    expect(byEmail.status).toBe(200);
    expect(names(byEmail.body).sort()).toEqual(['Alice Anders', 'Bob Brown', 'Carol Cole']);
  });

  it('refuses a one-character search_term, a bad enrollment_type, state or sort with 400', async () => {
    const short = await p.teach.api.get(path('?search_term=a'));
    expect(short.status).toBe(400);
    expect(short.body).toEqual({ errors: [{ field: 'search_term', code: 'invalid', message: '2 or more characters is required' }] });
    for (const q of ['?enrollment_type[]=wizard', '?enrollment_state[]=deleted', '?sort=shoe_size', '?user_ids[]=abc', '?enrollment_role_id=x']) {
      const res = await p.teach.api.get(path(q));
      expect([q, res.status]).toEqual([q, 400]);
    }
  });

  it('includes enrollments, sections and avatar_url when asked', async () => {
    const res = await p.teach.api.get(path(`?user_ids[]=${p.alice.id}&include[]=enrollments&include[]=sections&include[]=avatar_url&include[]=bio`));
    const [alice] = res.body;
    expect(alice.avatar_url).toEqual(expect.stringContaining('avatar'));
    expect(alice.bio).toBeNull();
    expect(alice.enrollments).toEqual([
      expect.objectContaining({ user_id: p.alice.id, course_id: course.id, course_section_id: secA, type: 'StudentEnrollment', role: 'StudentEnrollment', role_id: 3, enrollment_state: 'active' }),
    ]);
    expect(alice.enrollments[0]).not.toHaveProperty('user');
    expect(alice.sections).toEqual([expect.objectContaining({ id: secA, name: 'Section A' })]);
  });

  it('shows a section-limited TA only the people of their section', async () => {
    const res = await p.limitedTa.api.get(path('?per_page=50'));
    expect(res.status).toBe(200);
    expect(names(res.body)).toEqual(['Alice Anders', 'Walt Watcher', 'Larry Young']);
    expect((await p.limitedTa.api.get(`/api/v1/courses/${course.id}/users/${p.bob.id}`)).status).toBe(404);
    expect((await p.limitedTa.api.get(`/api/v1/courses/${course.id}/users/${p.alice.id}`)).status).toBe(200);
  });

  it('lets a student list classmates but refuses an observer, outsiders and anonymous callers as the enrollments list does', async () => {
    expect((await p.alice.api.get(path())).status).toBe(200);
    for (const caller of [p.watcher, p.stranger]) {
      const people = await caller.api.get(path());
      const enrollments = await caller.api.get(`/api/v1/courses/${course.id}/enrollments`);
      expect(people.status).toBe(enrollments.status);
      expect(people.status).toBe(403);
      expect(JSON.stringify(people.body)).not.toContain('Alice');
    }
    expect((await p.alice.api.get(`/api/v1/courses/${other.id}/users`)).status).toBe(403);
    expect((await server.as(null).get(path())).status).toBe(401);
    expect((await p.teach.api.get('/api/v1/courses/987654321/users')).status).toBe(404);
  });
});

describe('GET /api/v1/courses/:course_id/users/:id', () => {
  it('answers a person of the course, with enrollments when asked', async () => {
    const res = await p.alice.api.get(`/api/v1/courses/${course.id}/users/${p.bob.id}?include[]=enrollments`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: p.bob.id, name: 'Bob Brown', enrollments: [expect.objectContaining({ course_section_id: secB })] });
  });

  it('answers 404 for a user not in the course', async () => {
    const res = await p.teach.api.get(`/api/v1/courses/${course.id}/users/${p.stranger.id}`);
    expect(res.status).toBe(404);
    expect(JSON.stringify(res.body)).not.toContain('Stan');
    expect((await p.teach.api.get(`/api/v1/courses/${course.id}/users/987654321`)).status).toBe(404);
  });
});

describe('GraphQL Course.usersConnection and Course.user', () => {
  it('answers what REST answers, with the same filters and refusals', async () => {
    const q = `query($id: ID!, $types: [String!], $term: String) { course(id: $id) {
      usersConnection(first: 50, enrollmentTypes: $types, searchTerm: $term) { totalCount nodes { _id name } }
      user(id: "${p.bob.id}") { name } } }`;
    const r = await p.teach.api.graphql(q, { id: String(course.id), types: ['student'] });
    expect(r.errors).toBeUndefined();
    expect(r.data.course.usersConnection.totalCount).toBe(3);
    expect(r.data.course.usersConnection.nodes.map((n: { name: string }) => n.name)).toEqual(['Alice Anders', 'Bob Brown', 'Carol Cole']);
    expect(r.data.course.user.name).toBe('Bob Brown');

    const limited = await p.limitedTa.api.graphql(q, { id: String(course.id) });
    expect(limited.data?.course?.usersConnection.nodes.map((n: { name: string }) => n.name)).toEqual(['Alice Anders', 'Walt Watcher', 'Larry Young']);
    expect(limited.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect(JSON.stringify(limited)).not.toContain('Bob');

    const short = await p.teach.api.graphql(q, { id: String(course.id), term: 'x' });
    expect(short.errors?.[0]?.message).toContain('search_term');
    const bad = await p.teach.api.graphql(q, { id: String(course.id), types: ['wizard'] });
    expect(bad.errors?.[0]?.message).toContain('enrollment_type');
  });
});

describe('Course.usersConnection by login (an offset page): a page with no one after it ends the list', () => {
  const Q = (first: number, total: boolean) => `query($id: ID!) { course(id: $id) { usersConnection(first: ${first}, sort: "email", enrollmentTypes: ["student"]) { ${total ? 'totalCount ' : ''}nodes { name } } } }`;
  const ask = (first: number, total: boolean) => server.admin.graphql(Q(first, total), { id: String(course.id) });

  it('totalCount of a partial page is its rows, read no more than without it; a full page counts', async () => {
    const all = (await ask(50, true)).data.course.usersConnection;
    expect(all.nodes.map((n: { name: string }) => n.name).sort()).toEqual(['Alice Anders', 'Bob Brown', 'Carol Cole']);
    expect(all.totalCount).toBe(3);
    expect((await ask(2, true)).data.course.usersConnection.totalCount).toBe(3);
    const cost = (first: number, total: boolean) => statementCost(server, async () => expect((await ask(first, total)).errors).toBeUndefined());
    expect(await cost(50, true)).toBe(await cost(50, false));
    expect(await cost(2, true)).toBe((await cost(2, false)) + 1);
  });
});

describe('Course.usersConnection over several courses', () => {
  const PEOPLE = `query($n: Int, $term: String, $order: String) { account(id: "self") { coursesConnection(first: $n) { nodes { _id
    usersConnection(first: 3, searchTerm: $term, order: $order) { totalCount pageInfo { hasNextPage endCursor } nodes { _id name } } } } } }`;
  let courses: number;

  beforeAll(async () => {
    // Five courses or more, each with a few people (two of them in every course).
    for (let i = 0; i < 4; i++) {
      const c = await world.course({ name: `Extra ${i}` });
      for (const u of [p.alice, p.bob, await world.user(`Extra Person ${i}`)]) await world.enroll(c.id, u.id, 'StudentEnrollment');
    }
    courses = (await server.admin.graphql('{ account(id: "self") { coursesConnection(first: 50) { nodes { _id } } } }')).data.account.coursesConnection.nodes.length;
  });

  it('costs the same statements for one course as for five, whatever the filters', async () => {
    expect(courses).toBeGreaterThanOrEqual(6);
    for (const vars of [{}, { term: 'an', order: 'desc' }]) {
      const run = (n: number) => async () => {
        const res = await server.admin.graphql(PEOPLE, { n, ...vars });
        expect({ errors: res.errors, n: res.data.account.coursesConnection.nodes.length }).toEqual({ errors: undefined, n });
      };
      await expectFlatCost(server, JSON.stringify(vars), run(5), run(1));
    }
  });

  it('answers each course as course(id:) and REST answer it', async () => {
    const res = await server.admin.graphql(PEOPLE, { n: 6 });
    const single = `query($id: ID!) { course(id: $id) { usersConnection(first: 3) { totalCount pageInfo { hasNextPage endCursor } nodes { _id name } } } }`;
    for (const c of res.data.account.coursesConnection.nodes) {
      expect(c.usersConnection).toEqual((await server.admin.graphql(single, { id: c._id })).data.course.usersConnection);
      const rest = await server.admin.get(`/api/v1/courses/${c._id}/users?per_page=3`);
      expect(c.usersConnection.nodes.map((n: { name: string }) => n.name)).toEqual(names(rest.body));
    }
  });
});
