import { startTestServer, TestServer } from './support/server';
import { World } from './support/world';

/** Argument validation (class-validator rules on argument types) holds on every door, lists included. */
let server: TestServer;
let world: World;

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
});
afterAll(() => server.close());

describe('connection arguments', () => {
  it('refuses a page size past 100 or below 0 with an argument validation error, and accepts one within', async () => {
    const u = await world.user('Args Checker');
    for (const first of [101, -1]) {
      const res = await u.api.graphql('query($first: Int) { viewer { coursesConnection(first: $first) { nodes { _id } } } }', { first });
      expect(res.status).toBe(200);
      expect(res.errors?.[0].message).toBe('Argument Validation Error');
      expect(res.data?.viewer?.coursesConnection ?? null).toBeNull();
    }
    const ok = await u.api.graphql('query($first: Int) { viewer { coursesConnection(first: $first) { nodes { _id } } } }', { first: 100 });
    expect(ok.errors).toBeUndefined();
    expect(ok.data.viewer.coursesConnection.nodes).toEqual([]);
  });
});
