import { ChildProcess, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import { receiverCertificate } from '../src/app/cli';
import { OutboxMessage } from '../src/webhooks/outbox.entity';
import { bodyDigest } from '../src/webhooks/signing-keys';
import { startTestServer, TestServer } from './support/server';
import { ALL_EVENTS, fastDeliveryEnv, rootAccount, subscription, toolProxy, waitFor } from './support/webhooks';
import { World } from './support/world';

// Timing-sensitive (real processes, sockets and timers on a shared 2-core machine): a failure is retried
// twice before it counts, and every failed try is logged. A consistent failure still fails.
jest.retryTimes(2, { logErrorsBeforeRetry: true });

/**
 * `npm run cli -- webhook-receiver` as a developer runs it (the compiled CLI in its own process):
 * it keeps its certificate, prints a verified line for a real delivery, flags a forged signature and
 * stops on SIGTERM.
 */
const CLI = path.join(__dirname, '..', 'dist', 'src', 'app', 'cli.js');

let dir: string;
let server: TestServer;
let child: ChildProcess;
let out = '';
let exited: Promise<number | null>;
let base: string;
let ca: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhook-receiver-'));
  const cert = await receiverCertificate(dir);
  expect(cert.generated).toBe(true);
  expect(fs.readFileSync(cert.caFile, 'utf8')).toBe(cert.cert);
  ca = cert.cert;
  server = await startTestServer(fastDeliveryEnv(cert.caFile));
  child = spawn(process.execPath, [CLI, 'webhook-receiver', '--port', '0', '--dir', dir, '--service', server.url], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', DATABASE_URL: `sqlite:${path.join(dir, 'unused.sqlite')}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  base = (await waitFor('the receiver to listen', () => /listening on (https:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1]))!;
});
afterAll(async () => {
  if (child.exitCode === null) child.kill('SIGKILL');
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** POSTs to the receiver as a stranger would. */
function post(headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request(`${base}/webhooks`, { method: 'POST', ca, headers: { 'Content-Type': 'application/json', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

it('reuses the certificate it keeps and prints how to point the service at it', () => {
  expect(out).toContain(`Certificate kept from an earlier run in ${dir}`);
  expect(out).toContain(`WEBHOOK_CA_FILE=${path.join(dir, 'ca.pem')}`);
  expect(out).toContain(`Signatures are verified with ${server.url}/api/lti/security/jwks`);
});

it('verifies the signature of a real delivery against the service JWKS and prints one line for it', async () => {
  const world = new World(server);
  const room = await world.classroom();
  const tool = await toolProxy(server);
  const root = await rootAccount(server);
  const sub = await subscription(server, { tool, context: { type: 'root_account', id: root.id }, eventTypes: ALL_EVENTS, url: `${base}/webhooks` });
  const a = await room.teacher.api.post(`/api/v1/courses/${room.course.id}/assignments`, {
    assignment: { name: 'Essay', published: true, points_possible: 10, submission_types: ['online_text_entry'] },
  });
  const res = await room.student.api.post(`/api/v1/courses/${room.course.id}/assignments/${a.body.id}/submissions`, { submission: { submission_type: 'online_text_entry', body: 'essay' } });
  expect(res.status).toBe(201);
  const message = await waitFor('the delivery', () =>
    server.app.ds.getRepository(OutboxMessage).findOneBy({ subscriptionId: sub.id, eventName: 'submission_created', status: 'delivered' }),
  );
  const line = await waitFor('the printed line', () => out.split('\n').find((l) => l.includes(message.messageId)));
  expect(line).toMatch(new RegExp(`^\\S+Z submission_created subscription=${sub.id} message=${message.messageId} attempt=1 signature ok$`));
});

it('flags a signature that does not verify, still answering 200', async () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const body = '{"metadata":{},"body":{}}';
  const forged = await new SignJWT({ message_id: 'forged-1', event_name: 'grade_change', body_sha256: bodyDigest(body) })
    .setProtectedHeader({ alg: 'RS256' })
    .setIssuer('canvas')
    .setSubject('sub-1')
    .setAudience(`${base}/webhooks`)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(privateKey);
  const headers = { 'X-Event-Name': 'grade_change', 'X-Subscription-Id': 'sub-1', 'X-Message-Id': 'forged-1', 'X-Delivery-Attempt': '1' };
  expect(await post({ ...headers, 'X-Webhook-Signature': forged }, body)).toBe(200);
  expect(await post({ ...headers, 'X-Message-Id': 'unsigned-1' }, body)).toBe(200);
  const forgedLine = await waitFor('the forged line', () => out.split('\n').find((l) => l.includes('message=forged-1')));
  expect(forgedLine).toMatch(/grade_change subscription=sub-1 message=forged-1 attempt=1 signature FAILED \(ERR_JWS_SIGNATURE_VERIFICATION_FAILED/);
  const unsigned = await waitFor('the unsigned line', () => out.split('\n').find((l) => l.includes('message=unsigned-1')));
  expect(unsigned).toContain('signature FAILED (no X-Webhook-Signature header)');
});

it('stops on SIGTERM with exit code 0', async () => {
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  expect(out).toContain('Webhook receiver stopped (SIGTERM).');
});
