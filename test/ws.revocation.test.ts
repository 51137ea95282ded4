import type { Client } from 'graphql-ws';
import { startTestServer, TestServer } from './support/server';
import { World, WorldUser } from './support/world';
import { wsClient, wsRequest } from './support/ws';

/**
 * A graphql-ws socket re-checks its token (and user) before every operation and every subscription
 * event: revoking the token or deleting the user ends the socket, and nothing more reaches it.
 */
let server: TestServer;
let world: World;
const clients: Client[] = [];

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  await server.close();
});

/** A second token of the user, to act through REST while the socket's own token is revoked. */
async function secondToken(u: WorldUser): Promise<string> {
  const res = await u.api.post('/api/v1/users/self/tokens', { token: { purpose: 'socket' } });
  expect(res.status).toBe(200);
  return res.body.visible_token;
}

function connect(token: string) {
  const ws = wsClient(server.url, token);
  clients.push(ws.client);
  return ws;
}

const TODO = '2099-01-01T12:00:00Z';
const PLANNER_CHANGED = 'subscription { plannerChanged { change plannableType plannableId } }';

describe('graphql-ws after a token is revoked', () => {
  it('refuses the next operation and closes the socket with 4403', async () => {
    const u = await world.user('Ws Revoked Op');
    const socketToken = await secondToken(u);
    const { client, closed } = connect(socketToken);
    expect((await wsRequest(client, '{ viewer { _id } }')).data).toEqual({ viewer: { _id: String(u.id) } });

    const del = await u.api.delete(`/api/v1/users/self/tokens/${socketToken.slice(0, 5)}`);
    expect(del.status).toBe(200);
    await expect(wsRequest(client, '{ viewer { _id } }')).rejects.toBeDefined();
    expect(await closed).toBe(4403);
  });

  it('delivers no further subscription event: the socket closes on the first event after revocation', async () => {
    const u = await world.user('Ws Revoked Sub');
    const socketToken = await secondToken(u);
    const { client, closed } = connect(socketToken);
    const events: unknown[] = [];
    let first!: () => void;
    const gotFirst = new Promise<void>((resolve) => (first = resolve));
    client.subscribe({ query: PLANNER_CHANGED }, { next: (r) => (events.push(r.data), first()), error: () => undefined, complete: () => undefined });

    // The subscription is live once the first note's event arrives (retry until the subscribe landed).
    for (let i = 0; events.length === 0 && i < 50; i++) {
      expect((await u.api.post('/api/v1/planner_notes', { title: `before ${i}`, todo_date: TODO })).status).toBe(201);
      await Promise.race([gotFirst, new Promise((r) => setTimeout(r, 100))]);
    }
    expect(events.length).toBeGreaterThan(0);
    const seen = events.length;

    // Regenerating revokes the old secret just as deleting does.
    const regen = await u.api.put(`/api/v1/users/self/tokens/${socketToken.slice(0, 5)}`, { token: { regenerate: 'true' } });
    expect(regen.status).toBe(200);
    const note = await u.api.post('/api/v1/planner_notes', { title: 'after revocation', todo_date: TODO });
    expect(note.status).toBe(201);
    expect(await closed).toBe(4403);
    expect(events).toHaveLength(seen);
    expect(JSON.stringify(events)).not.toContain(String(note.body.id));
  });
});

describe('graphql-ws after the user is deleted', () => {
  it('refuses the next operation and closes the socket', async () => {
    const u = await world.user('Ws Deleted User');
    const { client, closed } = connect(u.token);
    expect((await wsRequest(client, '{ viewer { _id } }')).data).toEqual({ viewer: { _id: String(u.id) } });
    // No API deletes users yet; the row's state is what authentication reads.
    await server.app.ds.query("UPDATE users SET workflow_state = 'deleted' WHERE id = ?", [u.id]);
    await expect(wsRequest(client, '{ viewer { _id } }')).rejects.toBeDefined();
    expect(await closed).toBe(4403);
  });
});

describe('graphql-ws with a live token', () => {
  it('keeps serving operations and sees changes to the user at once', async () => {
    const u = await world.user('Ws Alive');
    const { client } = connect(u.token);
    expect((await wsRequest(client, '{ viewer { name } }')).data).toEqual({ viewer: { name: 'Ws Alive' } });
    await server.app.ds.query('UPDATE users SET name = ? WHERE id = ?', ['Ws Renamed', u.id]);
    expect((await wsRequest(client, '{ viewer { name } }')).data).toEqual({ viewer: { name: 'Ws Renamed' } });
  });
});
