import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from 'graphql-ws';
import { OutboxMessage } from '../src/webhooks/outbox.entity';
import { testDatabase, TestDatabase } from './support/db';
import { runServiceToExit } from './support/process';
import { collect, Feed, Instance, sharedDatabase, SharedDatabase, startInstance, untilEveryFeedHears } from './support/instances';
import { ONE_REPORT_BUCKET } from './support/throttle';
import { essaySubscription, fastDeliveryEnv, HttpsReceiver, testCertificate, waitFor } from './support/webhooks';
import { World } from './support/world';
import { wsClient } from './support/ws';

// Timing-sensitive (real processes, sockets and timers on a shared 2-core machine): a failure is retried
// twice before it counts, and every failed try is logged. A consistent failure still fails.
jest.retryTimes(2, { logErrorsBeforeRetry: true });

/**
 * WEB_CONCURRENCY=2 as a real process (the compiled service): a primary and two workers sharing one
 * port, without Redis, on a SQLite file (or the MariaDB database of DATABASE_URL). Requests are sent
 * with `Connection: close` so each opens a new connection, which node:cluster hands to the workers in
 * turn: consecutive requests land on different workers.
 */
const PLANNER_CHANGED = `subscription { plannerChanged { change plannableType plannableId } }`;
const ADMIN_TOKEN = 'cluster-test-admin-token-0123456789';
const SECRET = 'cluster-test-secret-key-0123456789abcdef';

let tmp: string;
let db: TestDatabase;
let cluster: Instance;
let shared: SharedDatabase;
let receiver: HttpsReceiver;
let caFile: string;
const clients: Client[] = [];

const fresh = (api: { with(h: Record<string, string>): any }) => api.with({ Connection: 'close' });
const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lms-cluster-'));
  db = testDatabase();
  await db.ready?.();
  const DATABASE_URL = db.kind === 'mysql' ? db.url : `sqlite:${path.join(tmp, 'lms.sqlite')}`;
  const tls = await testCertificate();
  caFile = tls.caFile;
  receiver = await new HttpsReceiver(tls).up();
  cluster = await startInstance(
    {
      DATABASE_URL,
      WEB_CONCURRENCY: '2',
      LMS_SECRET_KEY: SECRET,
      // Deliveries are woken only by commits (the relay's nudge), never by a poll, within a test's time.
      ...fastDeliveryEnv(caFile, { WEBHOOK_POLL_MS: '3600000' }),
      // Long enough that only a flush, never the expiry, can make a worker forget a token during the test.
      TOKEN_CACHE_MS: '60000',
      // Small limits for the throttle test: a request to an expensive route costs 60, a bucket refuses at 100.
      ...ONE_REPORT_BUCKET,
    },
    ADMIN_TOKEN,
  );
  shared = await sharedDatabase(DATABASE_URL, SECRET);
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  await cluster?.stop('SIGKILL');
  await shared?.close();
  await receiver?.down();
  await db?.drop();
  fs.rmSync(tmp, { recursive: true, force: true });
  if (caFile) fs.rmSync(caFile, { force: true });
});

describe('WEB_CONCURRENCY=2', () => {
  it('serves from two worker processes, and runs one webhook dispatcher, in the primary', async () => {
    for (let i = 0; i < 6; i++) expect((await fresh(cluster.admin).get('/api/v1/users/self')).status).toBe(200);
    const servedBy = new Set(cluster.logLines().filter((l) => l.msg === 'request' && l.path === '/api/v1/users/self').map((l) => l.pid));
    expect(servedBy.size).toBe(2);
    expect(servedBy.has(cluster.child.pid)).toBe(false);
    const dispatchers = cluster.logLines().filter((l) => l.msg === 'webhook dispatcher started');
    expect(dispatchers.map((l) => l.pid)).toEqual([cluster.child.pid]);
  });

  it('takes concurrent writes through both workers on one database, all of them', async () => {
    const titles = Array.from({ length: 30 }, (_, i) => `Concurrent ${i}`);
    const results = await Promise.all(titles.map((title) => fresh(cluster.admin).post('/api/v1/planner_notes', { title, todo_date: tomorrow() })));
    expect(results.map((r) => r.status)).toEqual(titles.map(() => 201));
    for (const r of results) expect((await cluster.admin.get(`/api/v1/planner_notes/${r.body.id}`)).body.title).toBe(r.body.title);
  });

  it('tells subscribers on every worker of a write made through any of them (the primary relays events)', async () => {
    // Sockets opened one after another go to the workers in turn, so these subscribers sit on both.
    const feeds: Feed[] = [];
    for (let i = 0; i < 6; i++) {
      const { client } = wsClient(cluster.url, ADMIN_TOKEN);
      clients.push(client);
      feeds.push(collect(client, PLANNER_CHANGED));
    }
    const note = (title: string) => fresh(cluster.admin).post('/api/v1/planner_notes', { title, todo_date: tomorrow() });
    await untilEveryFeedHears(feeds, () => note('Warm-up'));
    // One write, through one worker: every subscriber hears of it, those on the other worker too.
    const created = await note('Heard everywhere');
    expect(created.status).toBe(201);
    await waitFor('every subscriber to hear of the note', () =>
      feeds.every((f) => f.events.some((e) => e.plannerChanged.plannableId === String(created.body.id))),
    );
    for (const f of feeds) expect(f.errors).toEqual([]);
    feeds.forEach((f) => f.close());
  });

  it('forgets a revoked token on every worker at once (token cache flushes go through the primary)', async () => {
    const user = await new World(shared.serverFor(cluster)).user('Soon Revoked');
    // Requests on new connections alternate between the workers: both now hold the token in their caches.
    for (let i = 0; i < 4; i++) expect((await fresh(user.api).get('/api/v1/users/self')).status).toBe(200);
    const revoked = await fresh(cluster.admin).delete(`/api/v1/users/${user.id}/tokens/${user.token.slice(0, 5)}`);
    expect(revoked.status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await fresh(user.api).get('/api/v1/users/self')).status).toBe(401);
  });

  it('charges one throttle bucket per client across the workers', async () => {
    const user = await new World(shared.serverFor(cluster)).user('Reporter');
    const statuses: number[] = [];
    // 60 each: the first fills the bucket to 60, the second (on the other worker) would take it past 100.
    for (let i = 0; i < 4; i++) statuses.push((await fresh(user.api).post('/api/v1/error_reports', { error: { subject: `Report ${i}` } })).status);
    expect(statuses[0]).toBeLessThan(300);
    expect(statuses.slice(1)).toEqual([429, 429, 429]);
  });

  it("delivers a webhook caused through a worker from the primary's dispatcher, once, woken by the commit", async () => {
    const { room: { course, student }, assignmentId, sub } = await essaySubscription(shared.serverFor(cluster), receiver.url('/cluster'));
    const submitted = await fresh(student.api).post(`/api/v1/courses/${course.id}/assignments/${assignmentId}/submissions`, {
      submission: { submission_type: 'online_text_entry', body: 'essay' },
    });
    expect(submitted.status).toBe(201);
    await waitFor('the delivery', async () => (await shared.ds.getRepository(OutboxMessage).findBy({ subscriptionId: sub.id })).some((m) => m.status === 'delivered'));
    expect(receiver.all('/cluster')).toHaveLength(1);
  });

  it('on SIGTERM drains every worker and exits 0', async () => {
    const inFlight = Array.from({ length: 10 }, () => fresh(cluster.admin).get('/api/v1/users/self').then((r: { status: number }) => r.status));
    const settled = Promise.allSettled(inFlight);
    await new Promise((r) => setTimeout(r, 5));
    expect(await cluster.stop('SIGTERM')).toBe(0);
    // Every request a worker took was answered in full (one still in the primary's hands may be reset).
    const served = (await settled).filter((s) => s.status === 'fulfilled').map((s) => (s as PromiseFulfilledResult<number>).value);
    expect(served.every((s) => s === 200)).toBe(true);
    const stopped = cluster.logLines().filter((l) => l.msg === 'stopped');
    // Both workers and the primary, which reports that they stopped cleanly.
    expect(stopped).toHaveLength(3);
    expect(stopped.find((l) => l.pid === cluster.child.pid)).toMatchObject({ clean: true });
  });
});

describe('WEB_CONCURRENCY refusals', () => {
  it('refuses a value that is not a count or auto, and an in-memory database it cannot share, naming the variable', async () => {
    for (const env of [
      { WEB_CONCURRENCY: 'lots', DATABASE_URL: `sqlite:${path.join(os.tmpdir(), 'never-created.sqlite')}` },
      { WEB_CONCURRENCY: '2', DATABASE_URL: 'sqlite::memory:' },
    ]) {
      const { code, output } = await runServiceToExit(env);
      expect(code).toBe(1);
      expect(output).toContain('WEB_CONCURRENCY');
      expect(output).not.toMatch(/\n\s+at /);
    }
  });
});
