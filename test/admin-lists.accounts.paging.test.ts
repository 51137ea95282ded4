import { randomUUID } from 'node:crypto';
import { In } from 'typeorm';
import { cursorForOffset } from '../src/common/relay';
import { ToolProxy } from '../src/lti/tool-proxy.entity';
import { PlannerOverride } from '../src/planner/planner-override.entity';
import { parseLinks } from './support/api';
import { subAccount } from './support/lti';
import { captureStatements, walkGraphql, walkRest, idsOf as idsOfTable, num } from './support/paging';
import { startTestServer, TestServer } from './support/server';
import { World, WorldUser } from './support/world';

/**
 * The account and per-user lists paged by key (issue 23): an account's tool proxies, a user's planner
 * overrides (error reports and webhook deliveries: admin-lists.paging.test.ts). Each is walked to the end in
 * small pages (REST Link next, GraphQL cursors) and compared with the table read in the list's order;
 * rows added and removed between pages are neither repeated nor skipped; totalCount counts when asked
 * and only then; an `offset:N` cursor of old still pages. Every order ends in the id (ids are unique:
 * rows created in one second, which tie on created_at, still come in one order).
 */
let server: TestServer;
let world: World;
const ds = () => server.app.ds;
const idsOf = (table: string, where: string, params: unknown[], dir: 'ASC' | 'DESC') => idsOfTable(server, table, where, params, dir);

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
});
afterAll(() => server.close());

/** No COUNT on `table` ran while `fn` ran. */
async function noCount(table: string, fn: () => Promise<unknown>): Promise<void> {
  const seen = await captureStatements(server, fn);
  expect(seen.filter((s) => /COUNT\(/i.test(s.sql) && s.sql.includes(table)).map((s) => s.sql)).toEqual([]);
}

/** Proxies (active, and some deleted) straight into the table, fast. */
async function proxies(accountId: number, n: number, state = 'active'): Promise<void> {
  const rows = Array.from({ length: n }, (_, i) =>
    Object.assign(new ToolProxy(), {
      guid: randomUUID(),
      name: `Tool ${i}`,
      sharedSecretEncrypted: 'x',
      capabilities: '[]',
      contextType: 'Account',
      contextId: accountId,
      accountId,
      rootAccountId: 1,
      workflowState: state,
    }),
  );
  await ds().getRepository(ToolProxy).save(rows);
}

describe("an account's tool proxies (REST bookmarks and GraphQL cursors, oldest first)", () => {
  let faculty: number;
  let dept: number;
  let facultyAdmin: WorldUser;
  const Q = `query($account: ID!, $after: String) { toolProxiesConnection(accountId: $account, first: 3, after: $after) { nodes { _id } pageInfo { hasNextPage endCursor } } }`;
  const tree = () => idsOf('lti_tool_proxies', `account_id IN (${faculty}, ${dept}) AND workflow_state = 'active'`, [], 'ASC');
  const everyone = () => idsOf('lti_tool_proxies', "root_account_id = 1 AND workflow_state = 'active'", [], 'ASC');

  beforeAll(async () => {
    const f = await subAccount(server, world, 'Faculty');
    faculty = f.account.id;
    facultyAdmin = f.admin;
    dept = (await subAccount(server, world, 'Department', faculty)).account.id;
    const sibling = (await subAccount(server, world, 'Sibling')).account.id;
    for (let i = 0; i < 4; i++) {
      await proxies(faculty, 3);
      await proxies(dept, 2);
      await proxies(sibling, 2);
      await proxies(1, 1);
      await proxies(dept, 1, 'deleted');
    }
  });

  it('walks a sub-account tree and the root account by Link next (bookmarks, no rel="last"), deep pages included', async () => {
    const walked = await walkRest(facultyAdmin.api, server, `/api/v1/accounts/${faculty}/tool_proxies?per_page=3`);
    expect(walked.ids).toEqual(await tree());
    expect(walked.links[0].next).toMatch(/page=bookmark%3A[A-Za-z0-9_-]+&per_page=3/);
    expect(walked.links.every((l) => l.last === undefined)).toBe(true);
    expect((await walkRest(server.admin, server, '/api/v1/accounts/1/tool_proxies?per_page=4')).ids).toEqual(await everyone());
    // A page number still reads that page.
    const p2 = await facultyAdmin.api.get(`/api/v1/accounts/${faculty}/tool_proxies?per_page=3&page=2`);
    expect(p2.body.map((p: { id: number }) => p.id)).toEqual((await tree()).slice(3, 6));
    await noCount('lti_tool_proxies', () => facultyAdmin.api.get(`/api/v1/accounts/${faculty}/tool_proxies?per_page=3`));
  });

  it('a proxy added or removed between REST pages is seen once at its place, or not at all', async () => {
    const before = await tree();
    const gone = before[before.length - 2];
    const walked = await walkRest(facultyAdmin.api, server, `/api/v1/accounts/${faculty}/tool_proxies?per_page=3`, async (page) => {
      if (page !== 2) return;
      await proxies(dept, 1);
      await ds().getRepository(ToolProxy).update({ id: In([gone, before[0]]) }, { workflowState: 'deleted' });
    });
    // The one removed after being shown stays shown; the new one comes once at the end.
    const after = await tree();
    expect(walked.ids).toEqual([before[0], ...after]);
    expect(walked.ids).not.toContain(gone);
  });

  it('walks by GraphQL cursors; totalCount counts when selected; an offset cursor of old still pages', async () => {
    expect(num(await walkGraphql(facultyAdmin.api, Q, { account: String(faculty) }, 'toolProxiesConnection'))).toEqual(await tree());
    expect(num(await walkGraphql(server.admin, Q, { account: '1' }, 'toolProxiesConnection'))).toEqual(await everyone());
    for (const [account, expected] of [[String(faculty), await tree()], ['1', await everyone()]] as const) {
      const counted = await server.admin.graphql(`query($a: ID!) { toolProxiesConnection(accountId: $a, first: 1) { totalCount } }`, { a: account });
      expect(counted.data.toolProxiesConnection.totalCount).toBe(expected.length);
      const old = await server.admin.graphql(Q, { account, after: cursorForOffset(2) });
      expect(num(old.data.toolProxiesConnection.nodes.map((n: { _id: string }) => n._id))).toEqual(expected.slice(3, 6));
    }
  });
});

describe("a user's planner overrides (Canvas's numbered REST pages, GraphQL key cursors, by id)", () => {
  let u: WorldUser;
  let other: WorldUser;
  let next = 900_000;
  const Q = `query($after: String) { plannerOverrides(first: 4, after: $after) { nodes { _id } pageInfo { hasNextPage endCursor } } }`;
  const add = (userId: number, n: number, workflowState = 'active') =>
    ds()
      .getRepository(PlannerOverride)
      .save(Array.from({ length: n }, () => Object.assign(new PlannerOverride(), { userId, plannableType: 'assignment', plannableId: next++, markedComplete: false, dismissed: false, workflowState, deletedAt: null })));
  const mine = () => idsOf('planner_overrides', "user_id = ? AND workflow_state = 'active'", [u.id], 'ASC');

  beforeAll(async () => {
    [u, other] = [await world.user('Overrider'), await world.user('Other')];
    for (let i = 0; i < 6; i++) {
      await add(u.id, 5);
      await add(other.id, 2);
      await add(u.id, 1, 'deleted');
    }
  });

  it('walks by Link next (numbered, rel="last" as Canvas gives it) and by GraphQL cursors alike, deep pages included', async () => {
    const expected = await mine();
    const walked = await walkRest(u.api, server, '/api/v1/planner/overrides?per_page=4');
    expect(walked.ids).toEqual(expected);
    expect(walked.links.length).toBeGreaterThan(6);
    expect(walked.links.every((l) => l.last?.includes(`page=${Math.ceil(expected.length / 4)}&`))).toBe(true);
    expect(num(await walkGraphql(u.api, Q, {}, 'plannerOverrides'))).toEqual(expected);
    expect((await u.api.get('/api/v1/planner/overrides?per_page=4&page=3')).body.map((o: { id: number }) => o.id)).toEqual(expected.slice(8, 12));
  });

  it('an override made or deleted between pages is seen once at the end, or not at all', async () => {
    const before = await mine();
    const gone = before[before.length - 4];
    const seen = num(
      await walkGraphql(u.api, Q, {}, 'plannerOverrides', async (page) => {
        if (page !== 2) return;
        await add(u.id, 1);
        await u.api.delete(`/api/v1/planner/overrides/${gone}`);
        await u.api.delete(`/api/v1/planner/overrides/${before[1]}`);
      }),
    );
    // The one deleted after being shown stays shown (an offset would skip a row); the new one comes at the end.
    expect(seen).toEqual([before[0], before[1], ...(await mine()).slice(1)]);
    expect(seen).not.toContain(gone);
    expect(seen.length).toBe(before.length);
  });

  it('counts totalCount only when selected; an offset cursor of old still pages', async () => {
    const all = await mine();
    const counted = await u.api.graphql(`{ plannerOverrides(first: 1) { totalCount } }`);
    expect(counted.data.plannerOverrides.totalCount).toBe(all.length);
    await noCount('planner_overrides', () => u.api.graphql(Q));
    const old = await u.api.graphql(Q, { after: cursorForOffset(3) });
    expect(num(old.data.plannerOverrides.nodes.map((n: { _id: string }) => n._id))).toEqual(all.slice(4, 8));
    // A page that is not a number is refused by name, as on every numbered list.
    const bad = await u.api.get('/api/v1/planner/overrides?per_page=2&page=bookmark:garbage');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('page');
  });
});
