/**
 * Webhook delivery: events per second from commit to receipt at a local HTTPS receiver, and the lag
 * (receipt time − the event's metadata.event_time, taken inside the committing transaction).
 *
 *   npm run build && node dist/bench/webhook-lag.js
 *
 * The receiver runs in its own process (so it does not share the server's event loop) with a
 * certificate generated for the run. Grade changes are posted through the REST API by several
 * concurrent graders; each commits one grade_change event, delivered to one root-account
 * subscription (BENCH_SUBSCRIPTIONS > 1: one message per subscription per event).
 *
 * Knobs: BENCH_EVENTS (400), BENCH_CONCURRENCY (8 requests in flight), BENCH_SUBSCRIPTIONS (1),
 * BENCH_FORMAT (live-event | caliper), WEBHOOK_CONCURRENCY / WEBHOOK_BATCH_SIZE (dispatcher),
 * DATABASE_URL (mysql://… for MariaDB/MySQL on a throwaway database; in-memory SQLite otherwise).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { generate } from 'selfsigned';
import { Account } from '../src/accounts/account.entity';
import { prepareApp } from '../src/bootstrap';
import { loadConfig } from '../src/config';
import { encryptSecret } from '../src/lti/lti-keys';
import { ToolProxy } from '../src/lti/tool-proxy.entity';
import { buildServer } from '../src/server';
import { Dispatcher } from '../src/webhooks/dispatcher';
import { WebhookSubscription } from '../src/webhooks/webhook-subscription.entity';
import { BenchServer, benchDatabase, Client, envInt, fmt, mapLimit, printTable, World } from './support';

const EVENTS = envInt('BENCH_EVENTS', 400);
const CONCURRENCY = envInt('BENCH_CONCURRENCY', 8);
const SUBSCRIPTIONS = envInt('BENCH_SUBSCRIPTIONS', 1);
const FORMAT = process.env.BENCH_FORMAT === 'caliper' ? 'caliper' : 'live-event';
const STUDENTS = 20;

/** The receiver: records receipt time, message id and event time of every POST, answers 200. */
const RECEIVER = `
const https = require('node:https');
const fs = require('node:fs');
const server = https.createServer({ key: fs.readFileSync(process.env.KEY), cert: fs.readFileSync(process.env.CERT) }, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const t = Date.now();
    const doc = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const eventTime = doc.metadata ? doc.metadata.event_time : doc.data[0].eventTime;
    process.stdout.write(JSON.stringify({ t, id: req.headers['x-message-id'], eventTime }) + '\\n');
    res.writeHead(200).end();
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write('PORT ' + server.address().port + '\\n'));
`;

interface Receipt {
  t: number;
  id: string;
  eventTime: string;
}

async function startReceiver(keyFile: string, certFile: string): Promise<{ child: ChildProcess; port: number; receipts: Receipt[] }> {
  const child = spawn(process.execPath, ['-e', RECEIVER], { env: { KEY: keyFile, CERT: certFile }, stdio: ['ignore', 'pipe', 'inherit'] });
  const receipts: Receipt[] = [];
  let buffer = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`receiver exited (${code})`)));
    child.stdout!.on('data', (d: Buffer) => {
      buffer += d.toString('utf8');
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.startsWith('PORT ')) resolve(Number(line.slice(5)));
        else if (line) receipts.push(JSON.parse(line) as Receipt);
      }
    });
  });
  return { child, port, receipts };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhook-bench-'));
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    extensions: [{ name: 'basicConstraints', cA: true }, { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  fs.writeFileSync(keyFile, pems.private);
  fs.writeFileSync(certFile, pems.cert);
  const receiver = await startReceiver(keyFile, certFile);

  const db = benchDatabase();
  const adminToken = `bench-admin-${randomBytes(12).toString('hex')}`;
  const config = loadConfig({
    DATABASE_URL: db.url,
    LMS_ADMIN_TOKEN: adminToken,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'silent',
    PORT: '0',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8',
    WEBHOOK_CA_FILE: certFile,
    WEBHOOK_CONCURRENCY: process.env.WEBHOOK_CONCURRENCY ?? '',
    WEBHOOK_BATCH_SIZE: process.env.WEBHOOK_BATCH_SIZE ?? '',
  });
  const { app } = await prepareApp(config);
  const server = await buildServer(app);
  await server.fastify.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(server.fastify.server.address() as AddressInfo).port}`;
  const dispatcher = new Dispatcher({ ds: app.ds, config, tokenKey: app.tokenKey }).start();
  try {
    // A course with a teacher and students, each with a submission to grade.
    const world = new World({ admin: new Client(url, adminToken), as: (token: string | null) => new Client(url, token) } as unknown as BenchServer);
    const course = await world.course('Webhook bench');
    const teacher = await world.user('Bench Teacher', { token: true });
    await world.enroll(course.id, teacher.id, 'TeacherEnrollment');
    const students = await world.users('Bench Student', STUDENTS);
    await mapLimit(students, 4, (s) => world.enroll(course.id, s.id, 'StudentEnrollment'));
    const t = new Client(url, teacher.token!);
    const a = await t.post(`/api/v1/courses/${course.id}/assignments`, { assignment: { name: 'Essay', published: true, points_possible: 100, submission_types: ['online_text_entry'] } });
    if (a.status !== 201) throw new Error(`assignment: ${a.status} ${a.text}`);

    const root = await app.ds.getRepository(Account).findOneByOrFail({ id: 1 });
    const tool = await app.ds.getRepository(ToolProxy).save(
      app.ds.getRepository(ToolProxy).create({
        guid: randomUUID(),
        name: 'Bench tool',
        sharedSecretEncrypted: encryptSecret(app.tokenKey, randomBytes(32).toString('hex')),
        capabilities: JSON.stringify(['vnd.instructure.webhooks.root_account.all']),
        contextType: 'Account',
        contextId: root.id,
        accountId: root.id,
        rootAccountId: root.id,
        createdById: null,
        workflowState: 'active',
      }),
    );
    const now = new Date();
    now.setMilliseconds(0);
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      await app.ds.getRepository(WebhookSubscription).insert({
        id: randomUUID(),
        toolProxyId: tool.id,
        contextType: 'root_account',
        contextId: root.uuid,
        matchType: 'Account',
        matchId: root.id,
        rootAccountId: root.id,
        eventTypes: JSON.stringify(['grade_change']),
        format: FORMAT,
        transportType: 'https',
        transportUrl: `https://127.0.0.1:${receiver.port}/hook`,
        developerKey: tool.developerKey,
        state: 'Active',
        consecutiveFailures: 0,
        deactivatedAt: null,
        deactivationReason: null,
        createdAt: now,
        updatedAt: now,
      });
    }

    // Warm-up: the signing key, TLS and the first queries, not measured.
    await t.request('PUT', `/api/v1/courses/${course.id}/assignments/${a.body.id}/submissions/${students[0].id}`, { submission: { posted_grade: '1' } });
    const warmDeadline = Date.now() + 10_000;
    while (receiver.receipts.length < SUBSCRIPTIONS && Date.now() < warmDeadline) await new Promise((r) => setTimeout(r, 20));
    receiver.receipts.length = 0;

    const expected = EVENTS * SUBSCRIPTIONS;
    const started = performance.now();
    const startedAt = Date.now();
    let failed = 0;
    await mapLimit(
      Array.from({ length: EVENTS }, (_, i) => i),
      CONCURRENCY,
      async (i) => {
        // Each request changes a student's grade (never to the value it has), so each commits one event.
        const student = students[i % STUDENTS];
        const res = await t.request('PUT', `/api/v1/courses/${course.id}/assignments/${a.body.id}/submissions/${student.id}`, {
          submission: { posted_grade: String(10 + Math.floor(i / STUDENTS) % 80) },
        });
        if (res.status !== 200) failed++;
      },
    );
    const committedMs = performance.now() - started;
    const deadline = Date.now() + 120_000;
    while (receiver.receipts.length < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const receipts = receiver.receipts.slice();
    const lastReceipt = Math.max(...receipts.map((r) => r.t));
    const lags = receipts.map((r) => r.t - Date.parse(r.eventTime)).sort((x, y) => x - y);
    const elapsedS = (lastReceipt - startedAt) / 1000;

    console.log(`Webhook delivery lag (${db.label}; ${FORMAT}; ${SUBSCRIPTIONS} subscription(s); ${CONCURRENCY} graders in parallel; dispatcher concurrency ${config.WEBHOOK_CONCURRENCY}, batch ${config.WEBHOOK_BATCH_SIZE})`);
    printTable(
      ['events committed', 'messages received', 'failed requests', 'commit rate /s', 'delivered /s', 'median lag', 'p95 lag', 'max lag'],
      [
        [
          EVENTS,
          `${receipts.length}/${expected}`,
          failed,
          fmt(EVENTS / (committedMs / 1000)),
          fmt(receipts.length / elapsedS),
          `${fmt(percentile(lags, 50))} ms`,
          `${fmt(percentile(lags, 95))} ms`,
          `${fmt(lags[lags.length - 1])} ms`,
        ],
      ],
    );
    const duplicates = receipts.length - new Set(receipts.map((r) => r.id)).size;
    if (duplicates) console.log(`note: ${duplicates} duplicate receipt(s) (at-least-once)`);
    if (receipts.length < expected) process.exitCode = 1;
  } finally {
    await dispatcher.stop();
    await server.close();
    await app.pubsub.close();
    await app.ds.destroy();
    await db.drop();
    receiver.child.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(`bench failed: ${(e as Error).stack ?? String(e)}`);
  process.exitCode = 1;
});
