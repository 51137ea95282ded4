/**
 * graphql-ws fan-out (issue 19): identical subscriptions of one token, on any of its sockets, share
 * one source, so an event is resolved once however many sockets hold it; sockets of another token
 * (even the same user's) have their own, and a revoke closes exactly the revoked token's sockets.
 */
import type { Client } from 'graphql-ws';
import type { TestServer } from './support/server';
import { startWorld, World } from './support/world';
import { wsClient } from './support/ws';

let server: TestServer;
let world: World;
const clients: Client[] = [];

beforeAll(async () => ({ server, world } = await startWorld()));
afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  await server.close();
});

const TODO = '2099-01-01T12:00:00Z';
const NOTE_CHANGED = 'subscription($id: ID!) { plannerNoteChanged(id: $id) { change plannerNote { _id title } } }';

function connect(token: string) {
  const ws = wsClient(server.url, token);
  clients.push(ws.client);
  return ws;
}

function feed(client: Client, query: string, variables: Record<string, unknown>) {
  const events: any[] = [];
  const errors: unknown[] = [];
  let poke = () => undefined as void;
  client.subscribe({ query, variables }, { next: (r) => (r.errors ? errors.push(...r.errors) : events.push(r.data), poke()), error: (e) => (errors.push(e), poke()), complete: () => poke() });
  const until = async (n: number) => {
    while (events.length < n && !errors.length) await new Promise<void>((r) => (poke = r));
  };
  return { events, errors, until };
}

describe('graphql-ws fan-out across sockets', () => {
  it('resolves an event once for every socket of one token, and separately per token', async () => {
    const u = await world.user('Ws Fan Out');
    const other = (await u.api.post('/api/v1/users/self/tokens', { token: { purpose: 'second socket' } })).body.visible_token as string;
    const note = await u.api.post('/api/v1/planner_notes', { title: 'v0', todo_date: TODO });
    const id = String(note.body.id);
    const update = (title: string) => u.api.put(`/api/v1/planner_notes/${id}`, { title });

    const a = feed(connect(u.token).client, NOTE_CHANGED, { id });
    // Live once an update reaches it (a subscribe has no acknowledgement).
    for (let i = 0; a.events.length === 0 && i < 50; i++) {
      await update(`warm a ${i}`);
      await Promise.race([a.until(1), new Promise((r) => setTimeout(r, 100))]);
    }
    let before = server.queryCount();
    await update('one socket');
    await a.until(a.events.length + 1);
    const single = server.queryCount() - before;

    const b = feed(connect(u.token).client, NOTE_CHANGED, { id });
    const c = feed(connect(u.token).client, NOTE_CHANGED, { id });
    for (let i = 0; (b.events.length === 0 || c.events.length === 0) && i < 50; i++) {
      await update(`warm bc ${i}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await a.until(a.events.length);
    before = server.queryCount();
    const seen = [a, b, c].map((f) => f.events.length);
    await update('three sockets');
    await Promise.all([a, b, c].map((f, i) => f.until(seen[i] + 1)));
    // Without sharing, each further socket would read the note again for the same event.
    expect(server.queryCount() - before).toBe(single);
    for (const f of [a, b, c]) expect(f.events.at(-1).plannerNoteChanged.plannerNote.title).toBe('three sockets');

    // The same user's other token has its own source: one more read, and the same answer.
    const d = feed(connect(other).client, NOTE_CHANGED, { id });
    for (let i = 0; d.events.length === 0 && i < 50; i++) {
      await update(`warm d ${i}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await Promise.all([a, b, c].map((f) => f.until(f.events.length)));
    before = server.queryCount();
    const seen2 = [a, b, c, d].map((f) => f.events.length);
    await update('two tokens');
    await Promise.all([a, b, c, d].map((f, i) => f.until(seen2[i] + 1)));
    expect(server.queryCount() - before).toBe(single + 1);
    expect(d.events.at(-1).plannerNoteChanged.plannerNote.title).toBe('two tokens');
  });

  it("closes every socket of a revoked token with 4403, and the same user's other token keeps receiving", async () => {
    const u = await world.user('Ws Fan Out Revoke');
    const revoked = (await u.api.post('/api/v1/users/self/tokens', { token: { purpose: 'revoked' } })).body.visible_token as string;
    const note = await u.api.post('/api/v1/planner_notes', { title: 'v0', todo_date: TODO });
    const id = String(note.body.id);
    const update = (title: string) => u.api.put(`/api/v1/planner_notes/${id}`, { title });

    // The revoked token's socket subscribes first, so the shared source would be its own.
    const gone = [connect(revoked), connect(revoked)];
    const goneFeeds = gone.map((s) => feed(s.client, NOTE_CHANGED, { id }));
    const kept = feed(connect(u.token).client, NOTE_CHANGED, { id });
    for (let i = 0; [...goneFeeds, kept].some((f) => f.events.length === 0) && i < 50; i++) {
      await update(`warm ${i}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect([...goneFeeds, kept].every((f) => f.events.length > 0)).toBe(true);

    expect((await u.api.delete(`/api/v1/users/self/tokens/${revoked.slice(0, 5)}`)).status).toBe(200);
    expect(await Promise.all(gone.map((s) => s.closed))).toEqual([4403, 4403]);
    const counts = goneFeeds.map((f) => f.events.length);
    const seen = kept.events.length;
    await update('after the revoke');
    await kept.until(seen + 1);
    expect(kept.events.at(-1).plannerNoteChanged.plannerNote.title).toBe('after the revoke');
    expect(goneFeeds.map((f) => f.events.length)).toEqual(counts);
  });
});
