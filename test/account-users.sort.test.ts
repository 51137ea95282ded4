import { randomBytes } from 'node:crypto';
import { walkGraphql, walkRest } from './support/paging';
import type { TestServer } from './support/server';
import { startWorld } from './support/world';

/**
 * GET /api/v1/accounts/:id/users with Canvas's `sort` (username, the default, or id) and `order` (asc,
 * desc), and account.usersConnection(sort, order). By id, REST pages are bookmarks, as Canvas pages
 * sort=id for clients reading every page in bulk: no rel="last", and a user added between pages shows
 * up once, at its place. Other values are a 400 naming what is accepted.
 */
let server: TestServer;
beforeAll(async () => {
  ({ server } = await startWorld());
  // Names out of id order, so the two sorts differ.
  for (const name of ['Zed Zulu', 'Amy Alpha', 'Mia Mike', 'Bob Bravo', 'Kim Kilo', 'Cy Charlie']) {
    const login = `${name.split(' ')[0].toLowerCase()}.${randomBytes(3).toString('hex')}@example.com`;
    const res = await server.admin.post('/api/v1/accounts/self/users', { user: { name }, pseudonym: { unique_id: login } });
    if (res.status !== 200) throw new Error(`user: ${res.status} ${res.text}`);
  }
});
afterAll(() => server.close());

const USERS = `query($after: String, $sort: String, $order: String) {
  account(id: "self") { usersConnection(first: 2, after: $after, sort: $sort, order: $order) { nodes { _id } pageInfo { hasNextPage endCursor } } } }`;

/** Every user of the account as the default list gives them (by sortable name, then id). */
async function byName(): Promise<{ id: number; sortable_name: string }[]> {
  const res = await server.admin.get('/api/v1/accounts/self/users?per_page=100');
  expect(res.status).toBe(200);
  return res.body;
}

describe('the account users list, sorted', () => {
  it('sort=id reads every user in id order through bookmark pages, REST and GraphQL alike', async () => {
    const all = (await byName()).map((u) => u.id);
    const ascending = [...all].sort((a, b) => a - b);
    expect(ascending).not.toEqual(all);
    const rest = await walkRest(server.admin, server, '/api/v1/accounts/self/users?sort=id&per_page=2');
    expect(rest.ids).toEqual(ascending);
    for (const links of rest.links) {
      expect(links.last).toBeUndefined();
      if (links.next) expect(new URL(links.next).searchParams.get('page')).toMatch(/^bookmark:/);
    }
    expect(await walkGraphql(server.admin, USERS, { sort: 'id' }, 'account.usersConnection')).toEqual(ascending.map(String));
    const descending = await walkRest(server.admin, server, '/api/v1/accounts/self/users?sort=id&order=desc&per_page=2');
    expect(descending.ids).toEqual([...ascending].reverse());
    expect(await walkGraphql(server.admin, USERS, { sort: 'id', order: 'desc' }, 'account.usersConnection')).toEqual([...ascending].reverse().map(String));
  });

  it('a user added between bookmark pages appears once, in its place', async () => {
    let added = 0;
    const walked = await walkRest(server.admin, server, '/api/v1/accounts/self/users?sort=id&per_page=2', async (page) => {
      if (page !== 1) return;
      const res = await server.admin.post('/api/v1/accounts/self/users', { user: { name: 'Late Comer' }, pseudonym: { unique_id: `late.${randomBytes(3).toString('hex')}@example.com` } });
      added = res.body.id;
    });
    expect(walked.ids.filter((id) => id === added)).toHaveLength(1);
    expect(walked.ids).toEqual([...walked.ids].sort((a, b) => a - b));
    expect(walked.ids).toEqual((await byName()).map((u) => u.id).sort((a, b) => a - b));
  });

  it('order=desc reverses the default order by sortable name; numbered pages still', async () => {
    const names = await byName();
    const res = await server.admin.get('/api/v1/accounts/self/users?order=desc&per_page=3');
    expect(res.status).toBe(200);
    expect(res.body.map((u: { id: number }) => u.id)).toEqual([...names].reverse().slice(0, 3).map((u) => u.id));
    expect(new URL(res.headers.get('link')!.match(/<([^>]+)>; rel="next"/)![1]).searchParams.get('page')).toBe('2');
    const walked = await walkRest(server.admin, server, '/api/v1/accounts/self/users?order=desc&sort=username&per_page=3');
    expect(walked.ids).toEqual([...names].reverse().map((u) => u.id));
    expect(await walkGraphql(server.admin, USERS, { order: 'desc' }, 'account.usersConnection')).toEqual([...names].reverse().map((u) => String(u.id)));
  });

  it('refuses a sort or order outside Canvas’s accepted ones with a 400 naming them', async () => {
    for (const q of ['sort=email', 'sort=ID', 'order=up']) {
      const res = await server.admin.get(`/api/v1/accounts/self/users?${q}`);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(JSON.stringify(res.body)).toMatch(q.startsWith('sort') ? /sort/ : /order/);
    }
    const g = await server.admin.graphql(USERS, { sort: 'email' });
    expect(g.errors?.[0]?.message).toMatch(/sort must be one of username, id/);
  });
});
