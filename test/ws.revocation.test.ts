import type { Client } from 'graphql-ws';
import { User } from '../src/users/user.entity';
import { startTestServer, TestServer } from './support/server';
import { World, WorldUser } from './support/world';
import { wsClient, wsRequest } from './support/ws';

/**
 * A graphql-ws socket re-checks its token (and user) before every operation, and is closed (4403) as
 * soon as a write to its token or user is announced (src/auth/live-sockets.ts): revoking the token or
 * deleting the user ends the socket, and nothing more reaches it. Events cost no token read.
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

/** A subscription to plannerChanged that is live (it has received an event of the user's note). */
async function liveFeed(client: Client, u: WorldUser) {
  const events: unknown[] = [];
  let wake: (() => void) | null = null;
  client.subscribe({ query: PLANNER_CHANGED }, { next: (r) => (events.push(r.data), wake?.()), error: () => undefined, complete: () => undefined });
  const next = (n: number) =>
    events.length >= n ? Promise.resolve() : new Promise<void>((resolve) => (wake = () => events.length >= n && resolve()));
  for (let i = 0; events.length === 0 && i < 50; i++) {
    expect((await u.api.post('/api/v1/planner_notes', { title: `live ${i}`, todo_date: TODO })).status).toBe(201);
    await Promise.race([next(1), new Promise((r) => setTimeout(r, 100))]);
  }
  expect(events.length).toBeGreaterThan(0);
  return { events, next };
}

describe('graphql-ws revocation is pushed, not read per event', () => {
  it('closes every socket of a revoked token at once, with no further event or operation', async () => {
    const u = await world.user('Ws Pushed Revoke');
    const socketToken = await secondToken(u);
    const a = connect(socketToken);
    const b = connect(socketToken);
    const other = connect(u.token);
    await liveFeed(a.client, u);
    expect((await wsRequest(b.client, '{ viewer { _id } }')).data).toEqual({ viewer: { _id: String(u.id) } });
    expect((await u.api.delete(`/api/v1/users/self/tokens/${socketToken.slice(0, 5)}`)).status).toBe(200);
    expect(await a.closed).toBe(4403);
    expect(await b.closed).toBe(4403);
    // The user's other token keeps its socket.
    expect((await wsRequest(other.client, '{ viewer { _id } }')).data).toEqual({ viewer: { _id: String(u.id) } });
  });

  it('closes the socket at once when the user is deleted through the service layer (an entity write)', async () => {
    const u = await world.user('Ws Pushed Delete');
    const { client, closed } = connect(u.token);
    expect((await wsRequest(client, '{ viewer { _id } }')).data).toEqual({ viewer: { _id: String(u.id) } });
    const repo = server.app.ds.getRepository(User);
    const row = (await repo.findOneBy({ id: u.id }))!;
    row.workflowState = 'deleted';
    await repo.save(row);
    expect(await closed).toBe(4403);
  });

  it('reads no token per delivered event: a write costs the same statements with three subscribed sockets as with none', async () => {
    const u = await world.user('Ws No Read Per Event');
    const write = async (title: string) => {
      const before = server.queryCount();
      expect((await u.api.post('/api/v1/planner_notes', { title, todo_date: TODO })).status).toBe(201);
      return () => server.queryCount() - before;
    };
    // Warm: the token's last_used_at is written on its first request.
    await write('warm');
    const alone = (await write('alone'))();
    const feeds = [];
    for (let i = 0; i < 3; i++) feeds.push(await liveFeed(connect(u.token).client, u));
    const counts = feeds.map((f) => f.events.length);
    const delta = await write('fan out');
    await Promise.all(feeds.map((f, i) => f.next(counts[i] + 1)));
    expect(delta()).toBe(alone);
  });
});

describe('graphql-ws re-verify timer and expiry', () => {
  let timed: TestServer;
  let timedWorld: World;
  beforeAll(async () => {
    timed = await startTestServer({ GRAPHQL_WS_REVERIFY_MS: '300' });
    timedWorld = new World(timed);
  });
  afterAll(() => timed.close());

  it('closes a socket whose token was revoked by raw SQL (no flush announces it) on the next re-verify', async () => {
    const u = await timedWorld.user('Ws Raw Revoke');
    const ws = wsClient(timed.url, u.token);
    clients.push(ws.client);
    expect((await wsRequest(ws.client, '{ viewer { _id } }')).data).toEqual({ viewer: { _id: String(u.id) } });
    await timed.app.ds.query("UPDATE access_tokens SET workflow_state = 'deleted' WHERE user_id = ?", [u.id]);
    expect(await ws.closed).toBe(4403);
  });
});

describe('graphql-ws at token expiry', () => {
  it('closes the socket when its token expires, with no further event or operation', async () => {
    const u = await world.user('Ws Expiring');
    const expiresAt = new Date(Date.now() + 3_000).toISOString();
    const res = await u.api.post('/api/v1/users/self/tokens', { token: { purpose: 'expiring', expires_at: expiresAt } });
    expect(res.status).toBe(200);
    const { client, closed } = connect(res.body.visible_token);
    expect((await wsRequest(client, '{ viewer { _id } }')).data).toEqual({ viewer: { _id: String(u.id) } });
    expect(await closed).toBe(4403);
  });
});
