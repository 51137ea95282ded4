import type { TestServer } from './support/server';
import { startWorld, World } from './support/world';
import { wsClient, wsRequest } from './support/ws';

let server: TestServer;
let world: World;

beforeAll(async () => ({ server, world } = await startWorld()));
afterAll(() => server.close());

describe('graphql-ws on /graphql', () => {
  it('authenticates in connection_init and runs operations as that user', async () => {
    const u = await world.user('Socket User');
    const { client } = wsClient(server.url, u.token);
    try {
      const res = await wsRequest(client, '{ viewer { _id name } }');
      expect(res.data).toEqual({ viewer: { _id: String(u.id), name: 'Socket User' } });
    } finally {
      await client.dispose();
    }
  });

  it('refuses a bad token with close code 4403', async () => {
    const { client, closed } = wsClient(server.url, 'bogus-token');
    await expect(wsRequest(client, '{ viewer { _id } }')).rejects.toBeDefined();
    expect(await closed).toBe(4403);
    await client.dispose();
  });

  it('refuses a connection without a token', async () => {
    const { client, closed } = wsClient(server.url, null);
    await expect(wsRequest(client, '{ viewer { _id } }')).rejects.toBeDefined();
    expect(await closed).toBe(4403);
    await client.dispose();
  });

  it('applies the same permissions as HTTP', async () => {
    const { course, outsider } = await world.classroom();
    const { client } = wsClient(server.url, outsider.token);
    try {
      const res = await wsRequest(client, 'query($id: ID!) { course(id: $id) { name } }', { id: String(course.id) });
      expect(res.data?.course ?? null).toBeNull();
      expect((res.errors as { extensions: { code: string } }[])[0].extensions.code).toBe('FORBIDDEN');
    } finally {
      await client.dispose();
    }
  });
});
