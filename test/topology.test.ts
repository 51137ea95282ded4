import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { Client } from 'graphql-ws';
import { OutboxMessage } from '../src/webhooks/outbox.entity';
import { testDatabase, TestDatabase } from './support/db';
import { CliWorker, collect, Instance, sharedDatabase, SharedDatabase, startDispatchWorker, startInstance, untilEveryFeedHears } from './support/instances';
import { requireRedis, TEST_REDIS_URL as REDIS_URL } from './support/redis';
import { ONE_REPORT_BUCKET } from './support/throttle';
import { essaySubscription, fastDeliveryEnv, HttpsReceiver, sleep, testCertificate, waitFor } from './support/webhooks';
import { World } from './support/world';
import { wsClient } from './support/ws';

// Timing-sensitive (real processes, sockets and timers on a shared 2-core machine): a failure is retried
// twice before it counts, and every failed try is logged. A consistent failure still fails.
jest.retryTimes(2, { logErrorsBeforeRetry: true });

/**
 * The scale-out topology of the README, as real processes: two server instances (A and B, their own
 * ports) on one MariaDB database and Redis, and one `cli dispatch` worker delivering webhooks while
 * the instances' own dispatchers are off. SQLite is one machine's database (WEB_CONCURRENCY covers
 * that: test/cluster.process.test.ts), so this file needs DATABASE_URL=mysql://…; CI runs the suite
 * on MariaDB, where it always runs.
 */
const MYSQL = process.env.DATABASE_URL?.startsWith('mysql://') ?? false;
const PLANNER_CHANGED = `subscription { plannerChanged { change plannableType plannableId } }`;
const ADMIN_TOKEN = `topology-admin-${randomBytes(12).toString('hex')}`;
// Fresh per run: throttle buckets in Redis are named with it, so no run inherits another's.
const SECRET = randomBytes(32).toString('hex');

const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

if (!MYSQL) {
  it.skip('topology: skipped because DATABASE_URL is not mysql://… (instances of one deployment share MySQL/MariaDB; CI runs this on MariaDB)', () => undefined);
}

(MYSQL ? describe : describe.skip)('two instances on one MariaDB database and Redis, with a dispatch worker', () => {
  let db: TestDatabase;
  let a: Instance;
  let b: Instance;
  let worker: CliWorker;
  let shared: SharedDatabase;
  let receiver: HttpsReceiver;
  let caFile: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    await requireRedis();
    db = testDatabase();
    await db.ready?.();
    const tls = await testCertificate();
    caFile = tls.caFile;
    receiver = await new HttpsReceiver(tls).up();
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL,
      LMS_SECRET_KEY: SECRET,
      LOG_LEVEL: 'warn',
      WEBHOOK_DISPATCHER: 'off',
      // Small limits for the shared-bucket test: an expensive route costs 60, a bucket refuses at 100.
      ...ONE_REPORT_BUCKET,
    };
    // A sets up the installation (root account, admin token) in the new database; B starts on it once it has.
    a = await startInstance(env, ADMIN_TOKEN);
    b = await startInstance(env, ADMIN_TOKEN);
    worker = startDispatchWorker({ ...env, ...fastDeliveryEnv(caFile) });
    shared = await sharedDatabase(db.url, SECRET);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    worker?.child.kill('SIGTERM');
    await Promise.all([a?.stop('SIGKILL'), b?.stop('SIGKILL'), worker?.exited]);
    await shared?.close();
    await receiver?.down();
    await db?.drop();
    if (caFile) fs.rmSync(caFile, { force: true });
  });

  it('reads through B what was written through A', async () => {
    const user = await new World(shared.serverFor(a)).user('Written On A');
    const course = await a.admin.post('/api/v1/accounts/self/courses', { course: { name: 'Made on A' }, offer: 'true' });
    expect(course.status).toBe(200);
    expect((await b.admin.get(`/api/v1/courses/${course.body.id}`)).body).toMatchObject({ id: course.body.id, name: 'Made on A' });
    // A token issued through A authenticates on B.
    expect((await b.as(user.token).get('/api/v1/users/self')).body).toMatchObject({ id: user.id, name: 'Written On A' });
  });

  it('tells a planner subscriber on B of a change made through A', async () => {
    const { client } = wsClient(b.url, ADMIN_TOKEN);
    clients.push(client);
    const feed = collect(client, PLANNER_CHANGED);
    const note = (title: string) => a.admin.post('/api/v1/planner_notes', { title, todo_date: tomorrow() });
    // Every note is written through A: the subscriber on B hears of any only through Redis.
    await untilEveryFeedHears([feed], () => note('Warm-up'));
    const created = await note('Made on A');
    expect(created.status).toBe(201);
    await waitFor('the event on B', () => feed.events.some((e) => e.plannerChanged.plannableId === String(created.body.id)));
    expect(feed.events.find((e) => e.plannerChanged.plannableId === String(created.body.id)).plannerChanged).toMatchObject({ change: 'created', plannableType: 'planner_note' });
    expect(feed.errors).toEqual([]);
    feed.close();
  });

  it('has a webhook caused through A delivered once, by the dispatch worker', async () => {
    const { room: { course, student }, assignmentId, sub } = await essaySubscription(shared.serverFor(a), receiver.url('/topology'));
    const submitted = await student.api.post(`/api/v1/courses/${course.id}/assignments/${assignmentId}/submissions`, {
      submission: { submission_type: 'online_text_entry', body: 'essay' },
    });
    expect(submitted.status).toBe(201);
    const messages = () => shared.ds.getRepository(OutboxMessage).findBy({ subscriptionId: sub.id });
    await waitFor('the delivery', async () => (await messages()).some((m) => m.status === 'delivered'));
    const [message] = await messages();
    // Claimed by the worker (host:pid:suffix), the only dispatcher running.
    expect(message.claimedBy).toContain(`:${worker.child.pid}:`);
    // Nothing else sends it again (a second sender would be another attempt at the receiver).
    await sleep(500);
    expect(receiver.all('/topology')).toHaveLength(1);
    expect(receiver.all('/topology')[0].headers['x-message-id']).toBe(message.messageId);
  });

  it('shares throttle buckets: a bucket filled through A refuses on B', async () => {
    const user = await new World(shared.serverFor(a)).user('Reporter');
    const report = (instance: Instance) => instance.as(user.token).post('/api/v1/error_reports', { error: { subject: 'Throttled' } });
    expect((await report(a)).status).toBeLessThan(300);
    expect((await report(a)).status).toBe(429);
    const onB = await report(b);
    expect(onB.status).toBe(429);
    expect(onB.text).toBe('429 Too Many Requests (Rate Limit Exceeded)\n');
  });

  it('loses no acknowledged write when A is killed mid-load: each is readable through B', async () => {
    const acknowledged: { id: number; title: string }[] = [];
    let stop = false;
    let seq = 0;
    const writer = async () => {
      while (!stop) {
        const title = `Load ${++seq}`;
        try {
          const res = await a.admin.post('/api/v1/planner_notes', { title, todo_date: tomorrow() });
          if (res.status === 201) acknowledged.push({ id: res.body.id, title });
        } catch {
          return; // A is gone: this write was never acknowledged.
        }
      }
    };
    const writers = Array.from({ length: 6 }, writer);
    await waitFor('some acknowledged writes', () => acknowledged.length >= 20);
    a.child.kill('SIGKILL');
    await a.exited;
    stop = true;
    await Promise.all(writers);
    for (const w of acknowledged) {
      const res = await b.admin.get(`/api/v1/planner_notes/${w.id}`);
      expect({ status: res.status, title: res.body?.title }).toEqual({ status: 200, title: w.title });
    }
  });
});
