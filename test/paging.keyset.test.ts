import { expectOk } from './support/groups';
import { pagingWorld, PagingWorld, walkGraphql, walkRest } from './support/paging';
import { startTestServer, TestServer } from './support/server';
import { World } from './support/world';

/**
 * Key set pages, walked to the end through REST Link headers and GraphQL cursors: every row once, in
 * order, with ties in the sort key (a third of the members share one name, half the groups one name),
 * and rows written between pages neither repeated nor skipped.
 */
const N = 125;
let server: TestServer;
let w: PagingWorld;

beforeAll(async () => {
  server = await startTestServer();
  w = await pagingWorld(server, N);
}, 600_000);
afterAll(() => server.close());

const noDuplicates = (ids: unknown[]) => expect(new Set(ids).size).toBe(ids.length);

describe('REST', () => {
  it('walks a course\'s enrollments by bookmark to the end, no total counted and no rel="last"', async () => {
    const { ids, links } = await walkRest(w.teacher.api, server, `/api/v1/courses/${w.course.id}/enrollments?per_page=20`);
    expect(ids).toHaveLength(N + 1);
    noDuplicates(ids);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(links.length).toBe(7);
    expect(links.every((l) => l.last === undefined)).toBe(true);
    expect(decodeURIComponent(links[1].current)).toContain('page=bookmark:');
  });

  it("walks a group's users by sortable name with ties, by numbered pages with rel=\"last\" as Canvas", async () => {
    const { ids, links } = await walkRest(w.teacher.api, server, `/api/v1/groups/${w.group.id}/users?per_page=30`);
    expect([...ids].sort((a, b) => a - b)).toEqual([...w.students].sort((a, b) => a - b));
    noDuplicates(ids);
    expect(links[0].last).toContain('page=5&per_page=30');
    expect(links[4].next).toBeUndefined();
    // Ties: the same-name members ("Same, Sam") come in id order, after the "0001, Student" names.
    const same = w.students.filter((_, i) => i % 3 === 0).sort((a, b) => a - b);
    expect(ids.slice(-same.length)).toEqual(same);
  });

  it("walks a category's groups and a course's groups (ties in the name) to the end", async () => {
    const cat = await walkRest(w.teacher.api, server, `/api/v1/group_categories/${w.category.id}/groups?per_page=40`);
    expect(cat.ids).toHaveLength(N);
    noDuplicates(cat.ids);
    const course = await walkRest(w.teacher.api, server, `/api/v1/courses/${w.course.id}/groups?per_page=40`);
    expect(course.ids).toEqual(cat.ids);
  });

  it("walks the user's planner notes to the end", async () => {
    const { ids } = await walkRest(w.teacher.api, server, '/api/v1/planner_notes?per_page=50');
    expect(ids).toEqual([...w.notes].sort((a, b) => a - b));
  });

  it('a bookmark walk sees a row added between pages once, at its place', async () => {
    const world = new World(server);
    let added = 0;
    const { ids } = await walkRest(w.teacher.api, server, `/api/v1/courses/${w.course.id}/enrollments?per_page=40`, async (page) => {
      if (page === 1) added = (await world.enroll(w.course.id, (await world.user('Late Comer')).id, 'StudentEnrollment')).id;
    });
    noDuplicates(ids);
    expect(ids[ids.length - 1]).toBe(added);
  });
});

describe('GraphQL', () => {
  const GROUP_USERS = `query($id: ID!, $after: String) { groupUsersConnection(groupId: $id, first: 17, after: $after) { nodes { _id } pageInfo { hasNextPage endCursor } } }`;
  const MEMBERSHIPS = `query($id: ID!, $after: String) { groupMembershipsConnection(groupId: $id, first: 23, after: $after) { nodes { _id } pageInfo { hasNextPage endCursor } } }`;

  it('walks group users by key set cursors; a member removed or added between pages shifts nothing', async () => {
    const all = await walkGraphql(w.teacher.api, GROUP_USERS, { id: String(w.group.id) }, 'groupUsersConnection');
    expect(all).toHaveLength(N);
    noDuplicates(all);
    let removed: string | null = null;
    const walked = await walkGraphql(w.teacher.api, GROUP_USERS, { id: String(w.group.id) }, 'groupUsersConnection', async (page) => {
      if (page !== 2) return;
      // A member seen on page 1 leaves: with offsets, the next page would skip one member.
      removed = all[0];
      expectOk(await w.teacher.api.request('DELETE', `/api/v1/groups/${w.group.id}/users/${removed}`), 'remove member');
    });
    expect(walked).toEqual(all);
    // Back in (a new membership row): it sorts first, before any cursor, so a walk already past it sees no change.
    expectOk(await w.teacher.api.post(`/api/v1/groups/${w.group.id}/memberships`, { user_id: removed }), 're-add member');
  });

  it('walks memberships by cursor with a membership added between pages seen once at the end', async () => {
    const before = await walkGraphql(w.teacher.api, MEMBERSHIPS, { id: String(w.group.id) }, 'groupMembershipsConnection');
    noDuplicates(before);
    let added: string | null = null;
    const walked = await walkGraphql(w.teacher.api, MEMBERSHIPS, { id: String(w.group.id) }, 'groupMembershipsConnection', async (page) => {
      if (page !== 1) return;
      added = String(expectOk(await server.admin.post(`/api/v1/groups/${w.group.id}/memberships`, { user_id: w.teacher.id }), 'join').body.id);
    });
    noDuplicates(walked);
    expect(walked).toEqual([...before, added]);
  });

  it('counts totalCount only when selected, and an offset cursor of old still pages', async () => {
    const q = `query($id: ID!, $after: String) { groupUsersConnection(groupId: $id, first: 5, after: $after) { totalCount nodes { _id } } }`;
    const res = await w.teacher.api.graphql(q, { id: String(w.group.id), after: Buffer.from('offset:9').toString('base64') });
    expect(res.errors).toBeUndefined();
    expect(res.data.groupUsersConnection.totalCount).toBeGreaterThanOrEqual(N);
    const all = await walkGraphql(w.teacher.api, GROUP_USERS, { id: String(w.group.id) }, 'groupUsersConnection');
    expect(res.data.groupUsersConnection.nodes.map((n: { _id: string }) => n._id)).toEqual(all.slice(10, 15));
  });
});

describe("a course's users", () => {
  const USERS = `query($id: ID!, $after: String, $order: String) { course(id: $id) { usersConnection(first: 17, after: $after, order: $order) {
    nodes { _id } pageInfo { hasNextPage endCursor } } } }`;
  const walk = async (order = 'asc', between?: (page: number) => Promise<void>) =>
    (await walkGraphql(w.teacher.api, USERS, { id: String(w.course.id), order }, 'course.usersConnection', between)).map(Number);
  const byId = (a: number, b: number) => a - b;
  let twice: number;

  beforeAll(async () => {
    // A student who is also a TA: two enrollments, one person.
    twice = w.students[2];
    await new World(server).enroll(w.course.id, twice, 'TaEnrollment');
  });

  it('walks REST pages by Link next (no rel="last") and GraphQL cursors alike: everyone once, ties in the name by id', async () => {
    const rest = await walkRest(w.teacher.api, server, `/api/v1/courses/${w.course.id}/users?per_page=20`);
    expect(rest.links.every((l) => l.last === undefined)).toBe(true);
    expect(rest.links.length).toBeGreaterThanOrEqual(7);
    noDuplicates(rest.ids);
    expect(rest.ids).toEqual(expect.arrayContaining([...w.students, w.teacher.id]));
    const gql = await walk();
    expect(gql).toEqual(rest.ids);
    // The same-name students ("Same, Sam") sit together, in id order, across several pages of 17.
    const same = w.students.filter((_, i) => i % 3 === 0).sort(byId);
    const at = gql.indexOf(same[0]);
    expect(gql.slice(at, at + same.length)).toEqual(same);
    expect(await walk('desc')).toEqual([...gql].reverse());
  });

  it('counts totalCount (people, not enrollments) only when asked; an offset cursor of old still pages', async () => {
    const all = await walk();
    const q = `query($id: ID!, $after: String) { course(id: $id) { usersConnection(first: 5, after: $after) { totalCount nodes { _id } } } }`;
    const res = await w.teacher.api.graphql(q, { id: String(w.course.id), after: Buffer.from('offset:9').toString('base64') });
    expect(res.errors).toBeUndefined();
    expect(res.data.course.usersConnection.totalCount).toBe(all.length);
    expect(res.data.course.usersConnection.nodes.map((n: { _id: string }) => Number(n._id))).toEqual(all.slice(10, 15));
  });

  it('a person removed or added between GraphQL pages shifts nothing: no one repeated or skipped', async () => {
    const world = new World(server);
    const all = await walk();
    const removed = all.slice(0, 17).find((id) => id !== twice && id !== w.teacher.id)!;
    let added = 0;
    const walked = await walk('asc', async (page) => {
      // Seen on page 1, then gone (inactive): with offsets, the next page would skip someone.
      if (page === 2) await world.enroll(w.course.id, removed, 'StudentEnrollment', { state: 'inactive' });
      // Sorts after everyone ("Zulu, Zed"): seen once, at the end.
      if (page === 3) await world.enroll(w.course.id, (added = (await world.user('Zed Zulu')).id), 'StudentEnrollment');
    });
    expect(walked).toEqual([...all, added]);
    expect(await walk()).toEqual([...all.filter((id) => id !== removed), added]);
    await world.enroll(w.course.id, removed, 'StudentEnrollment');
  });

  it('a person added between REST pages, sorting after the page read, is seen once at the end', async () => {
    const world = new World(server);
    let added = 0;
    const { ids } = await walkRest(w.teacher.api, server, `/api/v1/courses/${w.course.id}/users?per_page=30`, async (page) => {
      if (page === 1) await world.enroll(w.course.id, (added = (await world.user('Zoe Zz')).id), 'StudentEnrollment');
    });
    noDuplicates(ids);
    expect(ids[ids.length - 1]).toBe(added);
  });
});
