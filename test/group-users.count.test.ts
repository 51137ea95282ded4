import { parseLinks } from './support/api';
import { ExplainHarness } from './support/explain';
import { addMembers, createCategory, createGroup, expectOk, groupsWorld } from './support/groups';
import { captureStatements, walkRest } from './support/paging';
import { startTestServer, TestServer } from './support/server';
import { World, WorldUser } from './support/world';

/**
 * A group's users total (REST Link rel="last", GraphQL totalCount), as Canvas's Group#users counts it:
 * accepted members whose user is not deleted. While no user is deleted it is counted from the
 * memberships alone, without a join to users for every member; once one is, the join counts. Either
 * way the total matches the rows the pages list, and a deep numbered page, read from the end of the
 * list with that total, shows the right members.
 */
let server: TestServer;
let w: Awaited<ReturnType<typeof groupsWorld>>;
let groupId: number;
let members: WorldUser[];

beforeAll(async () => {
  server = await startTestServer();
  const world = new World(server);
  w = await groupsWorld(world);
  members = [];
  for (const name of ['Ann Able', 'Ben Baker', 'Cat Cole', 'Dan Dunn', 'Eve Eaton']) {
    const u = await world.user(name);
    await world.enroll(w.course.id, u.id, 'StudentEnrollment');
    members.push(u);
  }
  const cat = await createCategory(w.teacher.api, w.course.id);
  groupId = (await createGroup(w.teacher.api, cat.id)).id;
  await addMembers(w.teacher.api, groupId, members);
});
afterAll(() => server.close());

const usersPath = (q: string) => `/api/v1/groups/${groupId}/users?${q}`;
const TOTAL = `query($id: ID!) { groupUsersConnection(groupId: $id, first: 2) { totalCount nodes { _id } } }`;

async function graphqlTotal(): Promise<number> {
  const res = await w.teacher.api.request('POST', '/graphql', { query: TOTAL, variables: { id: String(groupId) } }, { json: true });
  expectOk(res, 'groupUsersConnection');
  expect(res.body.errors).toBeUndefined();
  return res.body.data.groupUsersConnection.totalCount;
}

const lastPage = (link: string | null) => Number(new URL(parseLinks(link).last).searchParams.get('page'));
/** The COUNT statements a request ran (the page's rows are read with LIMIT, not counted). */
const counts = (seen: { sql: string }[]) => seen.map((s) => s.sql).filter((sql) => /\bCOUNT\(/i.test(sql));

describe('a group users total', () => {
  it('counts the accepted memberships alone while no user is deleted, REST and GraphQL', async () => {
    let res: Awaited<ReturnType<typeof w.teacher.api.get>> | undefined;
    const seen = await captureStatements(server, async () => {
      res = await w.teacher.api.get(usersPath('per_page=2'));
    });
    expectOk(res!, 'group users');
    expect(lastPage(res!.headers.get('link'))).toBe(3);
    const counted = counts(seen);
    expect(counted.length).toBe(1);
    expect(counted[0]).toMatch(/group_memberships/);
    expect(counted[0]).not.toMatch(/\busers\b/);
    expect(await graphqlTotal()).toBe(5);
    const all = await walkRest(w.teacher.api, server, usersPath('per_page=2'));
    expect(all.ids).toEqual(members.map((u) => u.id));
  });

  it('asks whether any user is deleted with one probe of the users (workflow_state) index, not a scan of users', async () => {
    const seen = await captureStatements(server, () => w.teacher.api.get(usersPath('per_page=2')));
    const probes = seen.filter((s) => /\bFROM users\b/.test(s.sql) && /workflow_state = 'deleted'/.test(s.sql));
    expect(probes.length).toBe(1);
    const h = new ExplainHarness(['users']);
    h.server = server;
    expect(await h.problems(probes[0].sql, probes[0].params)).toEqual([]);
  });

  it('once a user is deleted, leaves them out of the pages and the total, counted through users', async () => {
    const gone = members[1];
    // No route deletes a user; imported data can hold one. Set the state as Canvas's User#destroy does.
    await server.app.ds.query(`UPDATE users SET workflow_state = 'deleted' WHERE id = ?`, [gone.id]);
    try {
      const live = members.filter((u) => u !== gone).map((u) => u.id);
      let res: Awaited<ReturnType<typeof w.teacher.api.get>> | undefined;
      const seen = await captureStatements(server, async () => {
        res = await w.teacher.api.get(usersPath('per_page=2'));
      });
      expect(lastPage(res!.headers.get('link'))).toBe(2);
      expect(counts(seen).some((sql) => /\busers\b/.test(sql))).toBe(true);
      expect(await graphqlTotal()).toBe(4);
      // The last page is read from the end of the list with the total: a total that still counted the
      // deleted member would start it one row early and repeat a member of page 1.
      const last = await w.teacher.api.get(usersPath('page=2&per_page=2'));
      expectOk(last, 'last page');
      expect(last.body.map((u: { id: number }) => u.id)).toEqual(live.slice(2));
      expect((await walkRest(w.teacher.api, server, usersPath('per_page=2'))).ids).toEqual(live);
    } finally {
      await server.app.ds.query(`UPDATE users SET workflow_state = 'registered' WHERE id = ?`, [gone.id]);
    }
  });
});
