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

/** graphql-ws limits of issue 19 (item 7): caps, coalescing and per-event charges. */
const TODO = '2099-01-01T12:00:00Z';
const PLANNER_CHANGED = 'subscription { plannerChanged { change plannableId } }';
const NOTE_CHANGED = 'subscription($id: ID!) { plannerNoteChanged(id: $id) { change plannerNote { _id title } } }';

interface Feed {
  events: any[];
  errors: any[];
  /** Resolves once `n` events (or an error) have arrived. */
  until(n: number): Promise<void>;
  stop(): void;
}

function feed(client: import('graphql-ws').Client, query: string, variables: Record<string, unknown> = {}): Feed {
  const events: any[] = [];
  const errors: any[] = [];
  const waiters: (() => void)[] = [];
  const poke = () => waiters.splice(0).forEach((w) => w());
  const stop = client.subscribe(
    { query, variables },
    { next: (r) => (r.errors ? errors.push(...r.errors) : events.push(r.data), poke()), error: (e) => (errors.push(e), poke()), complete: poke },
  );
  const until = async (n: number) => {
    while (events.length < n && !errors.length) await new Promise<void>((r) => waiters.push(r));
  };
  return { events, errors, until, stop };
}

describe('graphql-ws caps', () => {
  let capped: TestServer;
  let cappedWorld: World;
  beforeAll(async () => ({ server: capped, world: cappedWorld } = await startWorld({ GRAPHQL_WS_MAX_SUBSCRIPTIONS: '2', GRAPHQL_WS_MAX_SOCKETS_PER_TOKEN: '2' })));
  afterAll(() => capped.close());

  it('refuses a subscription past GRAPHQL_WS_MAX_SUBSCRIPTIONS on one socket, and takes one again once another ends', async () => {
    const u = await cappedWorld.user('Ws Sub Cap');
    const note = await u.api.post('/api/v1/planner_notes', { title: 'followed', todo_date: TODO });
    const { client } = wsClient(capped.url, u.token);
    try {
      // Three at once: their checks may finish in any order, but exactly one is refused.
      const feeds = [feed(client, PLANNER_CHANGED), feed(client, NOTE_CHANGED, { id: String(note.body.id) }), feed(client, 'subscription { plannerChanged { change } }')];
      await Promise.race(feeds.map((f) => f.until(Number.MAX_SAFE_INTEGER)));
      const refused = feeds.filter((f) => JSON.stringify(f.errors).includes('TOO_MANY_SUBSCRIPTIONS'));
      expect(refused).toHaveLength(1);
      const kept = feeds.filter((f) => !refused.includes(f));
      // Queries are not subscriptions: still served.
      expect((await wsRequest(client, '{ viewer { _id } }')).data).toEqual({ viewer: { _id: String(u.id) } });
      kept[0].stop();
      const again = feed(client, 'subscription { plannerChanged { plannableType } }');
      for (let i = 0; again.events.length === 0 && !again.errors.length && i < 50; i++) {
        await u.api.post('/api/v1/planner_notes', { title: `after ${i}`, todo_date: TODO });
        await Promise.race([again.until(1), new Promise((r) => setTimeout(r, 100))]);
      }
      expect(again.errors).toEqual([]);
      expect(again.events.length).toBeGreaterThan(0);
      kept[1].stop();
      again.stop();
    } finally {
      await client.dispose();
    }
  });

  it('closes a socket past GRAPHQL_WS_MAX_SOCKETS_PER_TOKEN with 1008; other tokens are not affected', async () => {
    const u = await cappedWorld.user('Ws Socket Cap');
    const v = await cappedWorld.user('Ws Socket Cap Other');
    const open = [wsClient(capped.url, u.token), wsClient(capped.url, u.token)];
    try {
      for (const s of open) expect((await wsRequest(s.client, '{ viewer { _id } }')).data).toEqual({ viewer: { _id: String(u.id) } });
      const extra = wsClient(capped.url, u.token);
      open.push(extra);
      expect(await extra.closed).toBe(1008);
      const other = wsClient(capped.url, v.token);
      open.push(other);
      expect((await wsRequest(other.client, '{ viewer { _id } }')).data).toEqual({ viewer: { _id: String(v.id) } });
      // A closed socket frees its place.
      await open[0].client.dispose();
      await open[0].closed;
      const replacement = wsClient(capped.url, u.token);
      open.push(replacement);
      expect((await wsRequest(replacement.client, '{ viewer { _id } }')).data).toEqual({ viewer: { _id: String(u.id) } });
    } finally {
      await Promise.all(open.map((s) => s.client.dispose()));
    }
  });
});

describe('graphql-ws coalescing', () => {
  it('serves identical subscriptions of one socket from one source: each gets every event, resolved once', async () => {
    const u = await world.user('Ws Coalesced');
    const note = await u.api.post('/api/v1/planner_notes', { title: 'v0', todo_date: TODO });
    const id = String(note.body.id);
    const { client } = wsClient(server.url, u.token);
    try {
      const one = feed(client, NOTE_CHANGED, { id });
      // Live once an update reaches it.
      for (let i = 1; one.events.length === 0 && i < 50; i++) {
        await u.api.put(`/api/v1/planner_notes/${id}`, { title: `warm ${i}` });
        await Promise.race([one.until(1), new Promise((r) => setTimeout(r, 100))]);
      }
      // Statements of one update with one subscription: the write, and one read of the note for the event.
      let before = server.queryCount();
      await u.api.put(`/api/v1/planner_notes/${id}`, { title: 'single' });
      await one.until(one.events.length + 1);
      const single = server.queryCount() - before;

      const twin = feed(client, NOTE_CHANGED, { id });
      const seen = one.events.length;
      for (let i = 0; twin.events.length === 0 && i < 50; i++) {
        await u.api.put(`/api/v1/planner_notes/${id}`, { title: `twin ${i}` });
        await Promise.race([twin.until(1), new Promise((r) => setTimeout(r, 100))]);
      }
      await one.until(seen + twin.events.length);
      before = server.queryCount();
      await u.api.put(`/api/v1/planner_notes/${id}`, { title: 'shared' });
      await Promise.all([one.until(one.events.length + 1), twin.until(twin.events.length + 1)]);
      // Without coalescing the second subscription would read the note again for the same event.
      expect(server.queryCount() - before).toBe(single);
      expect(one.events.at(-1)).toEqual(twin.events.at(-1));
      expect(twin.events.at(-1).plannerNoteChanged.plannerNote.title).toBe('shared');

      // Ending one leaves the other live.
      twin.stop();
      await u.api.put(`/api/v1/planner_notes/${id}`, { title: 'after twin' });
      await one.until(one.events.length + 1);
      expect(one.events.at(-1).plannerNoteChanged.plannerNote.title).toBe('after twin');
      one.stop();
    } finally {
      await client.dispose();
    }
  });
});

describe('graphql-ws delivered events are charged', () => {
  let throttled: TestServer;
  let throttledWorld: World;
  // Each event costs more than the high-water mark: the first fills the subscriber's bucket.
  beforeAll(async () => ({ server: throttled, world: throttledWorld } = await startWorld({ RATE_LIMIT: 'on', GRAPHQL_WS_EVENT_COST: '100', RATE_LIMIT_HWM: '150', RATE_LIMIT_MAX: '200' })));
  afterAll(() => throttled.close());

  it("fills the subscriber's bucket: the subscription ends with Rate Limit Exceeded, and its token's requests are throttled", async () => {
    const u = await throttledWorld.user('Ws Charged');
    const writerRes = await u.api.post('/api/v1/users/self/tokens', { token: { purpose: 'writer' } });
    const writer = throttled.as(writerRes.body.visible_token);
    const { client } = wsClient(throttled.url, u.token);
    try {
      const f = feed(client, PLANNER_CHANGED);
      for (let i = 0; !f.errors.length && i < 60; i++) {
        expect((await writer.post('/api/v1/planner_notes', { title: `n${i}`, todo_date: TODO })).status).toBe(201);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(f.events.length).toBeGreaterThan(0);
      expect(JSON.stringify(f.errors)).toContain('Rate Limit Exceeded');
      const res = await u.api.get('/api/v1/users/self');
      expect(res.status).not.toBe(200);
      expect(res.text).toContain('Rate Limit Exceeded');
    } finally {
      await client.dispose();
    }
  });
});
