import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { createAppPubSub } from '../src/messaging/pubsub';
import type { CountingLogger } from '../src/db/query-counter';
import { Dispatcher } from '../src/webhooks/dispatcher';
import { OUTBOX_WRITTEN_TOPIC } from '../src/webhooks/outbox-signal';
import { testDatabase, TestDatabase } from './support/db';
import { requireRedis, subscriberCount, TEST_REDIS_URL } from './support/redis';
import { startTestServer, TestServer } from './support/server';
import { essaySubscription, fastDeliveryEnv, HttpsReceiver, testCertificate, waitFor, webhookRoom, WebhookRoom } from './support/webhooks';

/**
 * Wake-on-commit (issue 13, lag): a dispatcher claims new messages when the transaction that wrote
 * them commits, not at its next poll. Every dispatcher here polls once an hour (WEBHOOK_POLL_MS), so a
 * delivery within the test can only come from the wake-up: in the server's own process (the outbox
 * signal after commit) and in a `cli dispatch` worker (the same signal through Redis pub/sub).
 */
const AN_HOUR = '3600000';

describe("the server's dispatcher", () => {
  let w: WebhookRoom;
  beforeAll(async () => {
    w = await webhookRoom({ env: { WEBHOOK_POLL_MS: AN_HOUR } });
  });
  afterAll(() => w.close());

  it('delivers each committed event without waiting for its hourly poll', async () => {
    const [receiver] = w.receivers;
    const { room, assignmentId, sub } = await essaySubscription(w.server, receiver.url('/woken'));
    const submissions = `/api/v1/courses/${room.course.id}/assignments/${assignmentId}/submissions`;
    // Twice: after the first delivery the loop is idle again, waiting for its next poll or wake-up.
    for (let i = 1; i <= 2; i++) {
      const res = await room.student.api.post(submissions, { submission: { submission_type: 'online_text_entry', body: `attempt ${i}` } });
      expect(res.status).toBe(201);
      await waitFor(`delivery ${i}`, () => receiver.received.filter((r) => r.headers['x-subscription-id'] === sub.id).length >= i);
    }
  });

  it('retries a failed delivery when its backoff ends, not at its hourly poll', async () => {
    const [receiver] = w.receivers;
    const { room, assignmentId, sub } = await essaySubscription(w.server, receiver.url('/fails-once'));
    const mine = () => receiver.received.filter((r) => r.headers['x-subscription-id'] === sub.id);
    let answered = 0;
    const before = receiver.respond;
    // The first attempt fails; its retry (backoff 20-200 ms here) must come without a poll or a commit.
    receiver.respond = (r) => (r.headers['x-subscription-id'] === sub.id && answered++ === 0 ? { status: 500 } : before(r));
    try {
      const res = await room.student.api.post(`/api/v1/courses/${room.course.id}/assignments/${assignmentId}/submissions`, {
        submission: { submission_type: 'online_text_entry', body: 'fails once' },
      });
      expect(res.status).toBe(201);
      await waitFor('the retry', () => mine().length >= 2);
      const [first, retry] = mine();
      expect(first.headers['x-message-id']).toBeTruthy();
      expect(retry.headers['x-message-id']).toBe(first.headers['x-message-id']);
    } finally {
      receiver.respond = before;
    }
  });
});

describe('a cli dispatch worker on Redis', () => {
  const CLI = path.join(__dirname, '..', 'dist', 'src', 'app', 'cli.js');
  let db: TestDatabase;
  let file: string;
  let server: TestServer;
  let receiver: HttpsReceiver;
  let caFile: string;
  let worker: ChildProcess | undefined;

  beforeAll(async () => {
    await requireRedis();
    const tls = await testCertificate();
    caFile = tls.caFile;
    receiver = await new HttpsReceiver(tls).up();
    db = testDatabase();
    await db.ready?.();
    file = path.join(os.tmpdir(), `webhooks-wake-${process.pid}-${Date.now()}.sqlite`);
    const env = {
      DATABASE_URL: db.kind === 'mysql' ? db.url : `sqlite:${file}`,
      REDIS_URL: TEST_REDIS_URL,
      ...fastDeliveryEnv(caFile, { WEBHOOK_POLL_MS: AN_HOUR }),
    };
    server = await startTestServer({ ...env, WEBHOOK_DISPATCHER: 'off' });
    worker = spawn(process.execPath, [CLI, 'dispatch'], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env }, stdio: 'ignore' });
  });
  afterAll(async () => {
    if (worker && worker.exitCode == null) await new Promise((resolve) => (worker!.once('exit', resolve), worker!.kill('SIGTERM')));
    await server.close();
    await db.drop();
    await receiver.down();
    for (const f of [file, `${file}-wal`, `${file}-shm`, caFile]) fs.rmSync(f, { force: true });
  });

  it('is woken through Redis by a commit in the server process', async () => {
    const { room, assignmentId, sub } = await essaySubscription(server, receiver.url('/woken-by-redis'));
    const submissions = `/api/v1/courses/${room.course.id}/assignments/${assignmentId}/submissions`;
    const delivered = () => receiver.received.filter((r) => r.headers['x-subscription-id'] === sub.id).length;
    let committed = 0;
    const submit = async () => {
      const res = await room.student.api.post(submissions, { submission: { submission_type: 'online_text_entry', body: `attempt ${++committed}` } });
      expect(res.status).toBe(201);
    };
    // The worker's first claim comes once Redis has confirmed its subscription (the test below), but this
    // test cannot see when the spawned worker has started: commit until one is delivered (its claim then
    // takes every message due, so nothing is left behind).
    for (;;) {
      await submit();
      const got = await waitFor('a delivery', () => delivered() > 0, 2_000).catch(() => 0);
      if (got) break;
      if (committed >= 10) throw new Error('no commit woke the worker');
    }
    await waitFor('every commit so far', () => delivered() >= committed);
    // Subscribed now: the next commit wakes it too.
    await submit();
    await waitFor('the next commit', () => delivered() >= committed);
  });
});

describe('a dispatcher on Redis, starting', () => {
  it('makes its first claim only once Redis has confirmed its subscription to commits', async () => {
    await requireRedis();
    const server = await startTestServer({ WEBHOOK_DISPATCHER: 'off', WEBHOOK_POLL_MS: AN_HOUR });
    const pubsub = createAppPubSub(TEST_REDIS_URL);
    const redis = new Redis(TEST_REDIS_URL);
    const logger = server.app.ds.logger as CountingLogger;
    let dispatcher: Dispatcher | undefined;
    try {
      const listeners = () => subscriberCount(redis, OUTBOX_WRITTEN_TOPIC);
      const before = await listeners();
      // A commit announced between the first claim and the subscription would wake nobody until the
      // poll: at the first statement the dispatcher sends, Redis must already count it as a listener.
      let atFirstClaim: Promise<number> | undefined;
      logger.onQuery = (sql) => void (/outbox_messages/.test(sql) && (atFirstClaim ??= listeners()));
      dispatcher = new Dispatcher({ ds: server.app.ds, config: server.app.config, tokenKey: server.app.tokenKey, pubsub });
      dispatcher.start();
      await waitFor('the first claim', () => dispatcher!.stats.claims > 0);
      expect(await atFirstClaim).toBe(before + 1);
    } finally {
      logger.onQuery = undefined;
      await dispatcher?.stop();
      await pubsub.close();
      redis.disconnect();
      await server.close();
    }
  });
});
