import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from 'graphql-ws';
import { Redis } from 'ioredis';
import { contentRoom, ContentRoom } from './support/content';
import { requireRedis, subscriberCount, TEST_REDIS_URL as REDIS_URL } from './support/redis';
import { startTestServer, TestServer } from './support/server';
import { World, WorldUser } from './support/world';
import { wsClient } from './support/ws';
import { at, Content } from './planner.support';

const PLANNER_CHANGED = `subscription { plannerChanged { change plannableType plannableId courseId reason occurredAt } }`;
const NOTE_CHANGED = `subscription($id: ID!) { plannerNoteChanged(id: $id) { change plannerNote { _id title details workflowState } } }`;

/** A live subscription collecting what it receives; `next()` waits for the next event. */
interface Feed {
  events: any[];
  errors: unknown[];
  next(timeoutMs?: number): Promise<any>;
  /** Resolves once the server has set the subscription up (its first ping round trip). */
  ready: Promise<void>;
  close(): void;
}

function subscribe(client: Client, query: string, variables: Record<string, unknown> = {}): Feed {
  const events: any[] = [];
  const errors: unknown[] = [];
  let waiting: ((v: any) => void) | null = null;
  let taken = 0;
  const unsubscribe = client.subscribe(
    { query, variables },
    {
      next: (r) => {
        if (r.errors) errors.push(...r.errors);
        else events.push(r.data);
        if (waiting && events.length > taken) {
          const w = waiting;
          waiting = null;
          w(events[taken++]);
        }
      },
      error: (e) => errors.push(e),
      complete: () => undefined,
    },
  );
  return {
    events,
    errors,
    next(timeoutMs = 10_000) {
      if (events.length > taken) return Promise.resolve(events[taken++]);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no event within ${timeoutMs} ms (errors: ${JSON.stringify(errors)})`)), timeoutMs);
        waiting = (v) => {
          clearTimeout(t);
          resolve(v);
        };
      });
    },
    // The subscribe message is handled before any later message on the socket; a short pause lets the
    // server finish its (async) subscribe before the test makes changes.
    ready: new Promise((resolve) => setTimeout(resolve, 500)),
    close: unsubscribe,
  };
}

const settle = (ms = 400) => new Promise((r) => setTimeout(r, ms));

describe('planner subscriptions on one instance (in-process pubsub)', () => {
  let server: TestServer;
  let world: World;
  let room: ContentRoom;
  let content: Content;
  const clients: Client[] = [];
  const connect = (u: WorldUser) => {
    const { client } = wsClient(server.url, u.token);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    server = await startTestServer();
    world = new World(server);
    room = await contentRoom(world);
    content = new Content(room.teacher.api, room.course.id);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await server.close();
  });

  it('uses the in-process pubsub without REDIS_URL', () => {
    expect(server.app.pubsub.kind).toBe('memory');
  });

  it("tells a student of their own note writes, after the commit, and nobody else", async () => {
    const mine = subscribe(connect(room.student), PLANNER_CHANGED);
    const theirs = subscribe(connect(room.student2), PLANNER_CHANGED);
    await Promise.all([mine.ready, theirs.ready]);
    const created = await room.student.api.post('/api/v1/planner_notes', { title: 'Call lab partner', todo_date: at(1) });
    const event = await mine.next();
    expect(event.plannerChanged).toMatchObject({ change: 'created', plannableType: 'planner_note', plannableId: String(created.body.id), courseId: null, reason: 'note' });
    // Published after the commit: the note is there for anyone who refetches on the event.
    expect((await room.student.api.get(`/api/v1/planner_notes/${created.body.id}`)).status).toBe(200);
    await room.student.api.put(`/api/v1/planner_notes/${created.body.id}`, { title: 'Call lab partner today' });
    expect((await mine.next()).plannerChanged).toMatchObject({ change: 'updated', plannableId: String(created.body.id) });
    // A refused write publishes nothing.
    await room.student2.api.put(`/api/v1/planner_notes/${created.body.id}`, { title: 'nope' });
    await room.student.api.post('/api/v1/planner_notes', { details: 'no title' });
    // student2 hears only about their own note, not the student's.
    const own = await room.student2.api.post('/api/v1/planner_notes', { title: 'Mine', todo_date: at(1) });
    expect((await theirs.next()).plannerChanged).toMatchObject({ plannableType: 'planner_note', plannableId: String(own.body.id) });
    await settle();
    expect(theirs.events).toHaveLength(1);
    expect(mine.events).toHaveLength(2);
    mine.close();
    theirs.close();
  });

  it('tells the course’s students when an assignment or quiz is created, moved or unpublished, and not outsiders', async () => {
    const student = subscribe(connect(room.student), PLANNER_CHANGED);
    const outsider = subscribe(connect(room.outsider), PLANNER_CHANGED);
    await Promise.all([student.ready, outsider.ready]);
    const a = await content.assignment('Poster', at(3));
    expect((await student.next()).plannerChanged).toMatchObject({ change: 'created', plannableType: 'assignment', plannableId: String(a.id), courseId: String(room.course.id), reason: 'content' });
    await room.teacher.api.put(`/api/v1/courses/${room.course.id}/assignments/${a.id}`, { assignment: { due_at: at(4) } });
    expect((await student.next()).plannerChanged).toMatchObject({ change: 'updated', plannableType: 'assignment', plannableId: String(a.id) });
    await room.teacher.api.put(`/api/v1/courses/${room.course.id}/assignments/${a.id}`, { assignment: { published: false } });
    expect((await student.next()).plannerChanged).toMatchObject({ change: 'updated', plannableId: String(a.id) });
    const q = await content.quiz('Check-in', at(2), { quizType: 'practice_quiz' });
    const quizEvent = (await student.next()).plannerChanged;
    expect(quizEvent).toMatchObject({ change: 'created', plannableType: 'quiz', plannableId: String(q.id) });
    await settle();
    expect(outsider.events).toHaveLength(0);
    student.close();
    outsider.close();
  });

  it('tells a student when a submission or grade changes their submissions object, and when they write an override', async () => {
    const a = await content.assignment('Graded work', at(2));
    const feed = subscribe(connect(room.student), PLANNER_CHANGED);
    const other = subscribe(connect(room.student2), PLANNER_CHANGED);
    await Promise.all([feed.ready, other.ready]);
    await room.student.api.post(`/api/v1/courses/${room.course.id}/assignments/${a.id}/submissions`, { submission: { submission_type: 'online_text_entry', body: 'mine' } });
    expect((await feed.next()).plannerChanged).toMatchObject({ change: 'updated', plannableType: 'assignment', plannableId: String(a.id), reason: 'submission' });
    await room.teacher.api.put(`/api/v1/courses/${room.course.id}/assignments/${a.id}/submissions/${room.student.id}`, { submission: { posted_grade: '8' } });
    expect((await feed.next()).plannerChanged).toMatchObject({ reason: 'submission', plannableId: String(a.id) });
    const o = await room.student.api.post('/api/v1/planner/overrides', { plannable_type: 'assignment', plannable_id: a.id, marked_complete: true });
    expect((await feed.next()).plannerChanged).toMatchObject({ change: 'created', plannableType: 'assignment', plannableId: String(a.id), reason: 'override', courseId: String(room.course.id) });
    await room.student.api.delete(`/api/v1/planner/overrides/${o.body.id}`);
    expect((await feed.next()).plannerChanged).toMatchObject({ change: 'deleted', reason: 'override' });
    await settle();
    expect(other.events).toHaveLength(0);
    feed.close();
    other.close();
  });

  it('plannerNoteChanged follows one of the viewer’s notes; another user’s note cannot be followed', async () => {
    const note = (await room.student.api.post('/api/v1/planner_notes', { title: 'Watch me', todo_date: at(2) })).body;
    const feed = subscribe(connect(room.student), NOTE_CHANGED, { id: String(note.id) });
    const spy = subscribe(connect(room.student2), NOTE_CHANGED, { id: String(note.id) });
    await Promise.all([feed.ready, spy.ready]);
    await room.student.api.put(`/api/v1/planner_notes/${note.id}`, { details: 'with details' });
    expect((await feed.next()).plannerNoteChanged).toEqual({ change: 'updated', plannerNote: { _id: String(note.id), title: 'Watch me', details: 'with details', workflowState: 'active' } });
    // Another note of the same user is another subscription's business.
    await room.student.api.post('/api/v1/planner_notes', { title: 'Other', todo_date: at(2) });
    await room.student.api.delete(`/api/v1/planner_notes/${note.id}`);
    expect((await feed.next()).plannerNoteChanged).toMatchObject({ change: 'deleted', plannerNote: { workflowState: 'deleted' } });
    await settle();
    expect(feed.events).toHaveLength(2);
    expect(spy.events).toHaveLength(0);
    expect(JSON.stringify(spy.errors)).toMatch(/does not exist|NOT_FOUND/);
    feed.close();
  });
});

describe('planner subscriptions across two instances over Redis', () => {
  /** Waits until `n` connections listen on the channel of a user's (or note's) planner topic. */
  async function listening(server: TestServer, topic: string, id: number, n = 1): Promise<void> {
    const [{ value: ns }] = await server.app.ds.query("SELECT value FROM settings WHERE name = 'planner_channel_namespace'");
    const redis = new Redis(REDIS_URL);
    try {
      for (let i = 0; i < 100; i++) {
        if ((await subscriberCount(redis, `${topic}:${ns}:${id}`)) >= n) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`nobody listens on ${topic} for ${id}`);
    } finally {
      redis.disconnect();
    }
  }
  let a: TestServer;
  let b: TestServer;
  let dir: string | null = null;
  const clients: Client[] = [];

  beforeAll(async () => {
    await requireRedis();
    // Both instances open one database: a temporary SQLite file, or the first instance's MariaDB database.
    let shared: string;
    if (process.env.DATABASE_URL?.startsWith('mysql://')) {
      a = await startTestServer({ REDIS_URL });
      shared = a.db.url;
    } else {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lms-planner-'));
      shared = `sqlite:${path.join(dir, 'lms.sqlite')}`;
      a = await startTestServer({ REDIS_URL, DATABASE_URL: shared });
    }
    b = await startTestServer({ REDIS_URL, DATABASE_URL: shared });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    // The second instance first: for MariaDB the first one drops the shared database.
    await b?.close();
    await a?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('delivers an event committed on one instance to a subscriber connected to the other, and only to its user', async () => {
    expect(a.app.pubsub.kind).toBe('redis');
    expect(b.app.pubsub.kind).toBe('redis');
    const world = new World(a);
    const room = await contentRoom(world);
    // Tokens are in the shared database, so B accepts them.
    const subscriberOnB = wsClient(b.url, room.student.token).client;
    const otherOnB = wsClient(b.url, room.student2.token).client;
    clients.push(subscriberOnB, otherOnB);
    // Both at once: the first subscriptions of an instance race its lazy Redis connection.
    const feed = subscribe(subscriberOnB, PLANNER_CHANGED);
    const other = subscribe(otherOnB, PLANNER_CHANGED);
    await Promise.all([feed.ready, other.ready]);
    await listening(b, 'PLANNER_CHANGED', room.student.id);
    await listening(b, 'PLANNER_CHANGED', room.student2.id);

    const note = await room.student.api.post('/api/v1/planner_notes', { title: 'Across instances', todo_date: at(1) });
    expect(note.status).toBe(201);
    expect((await feed.next()).plannerChanged).toMatchObject({ change: 'created', plannableType: 'planner_note', plannableId: String(note.body.id), reason: 'note' });

    const assignment = await new Content(room.teacher.api, room.course.id).assignment('Shared', at(2));
    expect((await feed.next()).plannerChanged).toMatchObject({ change: 'created', plannableType: 'assignment', plannableId: String(assignment.id) });
    // student2 is in the course too: they hear of the assignment, never of the student's note.
    expect((await other.next()).plannerChanged).toMatchObject({ plannableType: 'assignment', plannableId: String(assignment.id) });

    // And the other way round: a note subscription on A hears a write made through B.
    const onA = wsClient(a.url, room.student.token).client;
    clients.push(onA);
    const noteFeed = subscribe(onA, NOTE_CHANGED, { id: String(note.body.id) });
    await noteFeed.ready;
    await listening(a, 'PLANNER_NOTE_CHANGED', note.body.id);
    await b.as(room.student.token).put(`/api/v1/planner_notes/${note.body.id}`, { title: 'Renamed on B' });
    expect((await noteFeed.next()).plannerNoteChanged).toMatchObject({ change: 'updated', plannerNote: { title: 'Renamed on B' } });
    noteFeed.close();

    await settle();
    expect(other.events).toHaveLength(1);
    feed.close();
    other.close();
  });

  it('closes at once a socket on one instance whose token is revoked on the other (the flush carries the token over Redis)', async () => {
    const world = new World(a);
    const u = await world.user('Revoked Across Instances');
    const issued = await u.api.post('/api/v1/users/self/tokens', { token: { purpose: 'socket on b' } });
    expect(issued.status).toBe(200);
    const onB = wsClient(b.url, issued.body.visible_token);
    const keptOnB = wsClient(b.url, u.token);
    clients.push(onB.client, keptOnB.client);
    const feed = subscribe(onB.client, PLANNER_CHANGED);
    await feed.ready;
    await listening(b, 'PLANNER_CHANGED', u.id);
    expect((await u.api.delete(`/api/v1/users/self/tokens/${issued.body.id}`)).status).toBe(200);
    // No event and no operation on the socket: only the pushed flush can close it.
    expect(await onB.closed).toBe(4403);
    expect(feed.events).toEqual([]);
    // The user's other token keeps its socket on b.
    const kept = subscribe(keptOnB.client, PLANNER_CHANGED);
    await kept.ready;
    await listening(b, 'PLANNER_CHANGED', u.id);
    const note = await u.api.post('/api/v1/planner_notes', { title: 'still heard', todo_date: at(1) });
    expect((await kept.next()).plannerChanged).toMatchObject({ plannableId: String(note.body.id) });
  });
});
