import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../src/app/cli';
import { OutboxMessage } from '../src/webhooks/outbox.entity';
import { contentRoom, ContentRoom } from './support/content';
import { testDatabase, TestDatabase } from './support/db';
import { startTestServer, TestServer } from './support/server';
import { fastDeliveryEnv, HttpsReceiver, subscription, testCertificate, toolProxy, waitFor } from './support/webhooks';
import { World } from './support/world';

/**
 * Scale-out: the server runs with WEBHOOK_DISPATCHER=off and separate `cli dispatch` worker
 * processes deliver. A worker killed mid-delivery loses nothing: the next one sends the message
 * again, with the same message id, once the dead worker's claim has expired.
 */
const CLI = path.join(__dirname, '..', 'dist', 'src', 'app', 'cli.js');

let db: TestDatabase;
let file: string;
let server: TestServer;
let room: ContentRoom;
let receiver: HttpsReceiver;
let caFile: string;
let env: Record<string, string>;
let assignmentId: number;

beforeAll(async () => {
  const tls = await testCertificate();
  caFile = tls.caFile;
  receiver = await new HttpsReceiver(tls).up();
  db = testDatabase();
  await db.ready?.();
  file = path.join(os.tmpdir(), `webhooks-worker-${process.pid}-${Date.now()}.sqlite`);
  const url = db.kind === 'mysql' ? db.url : `sqlite:${file}`;
  env = { DATABASE_URL: url, ...fastDeliveryEnv(caFile, { WEBHOOK_TIMEOUT_MS: '1500', WEBHOOK_LEASE_MS: '1000' }) };
  server = await startTestServer({ ...env, WEBHOOK_DISPATCHER: 'off' });
  room = await contentRoom(new World(server));
  const a = await room.teacher.api.post(`/api/v1/courses/${room.course.id}/assignments`, {
    assignment: { name: 'Essay', published: true, points_possible: 10, submission_types: ['online_text_entry'] },
  });
  assignmentId = a.body.id;
});
afterAll(async () => {
  await server.close();
  await db.drop();
  await receiver.down();
  for (const f of [file, `${file}-wal`, `${file}-shm`, caFile]) fs.rmSync(f, { force: true });
});

const submit = () =>
  room.student.api.post(`/api/v1/courses/${room.course.id}/assignments/${assignmentId}/submissions`, { submission: { submission_type: 'online_text_entry', body: 'essay' } });

async function listening(pathname: string) {
  const tool = await toolProxy(server);
  return subscription(server, { tool, context: { type: 'assignment', id: assignmentId }, eventTypes: ['submission_created'], url: receiver.url(pathname) });
}

function worker(): { child: ChildProcess; exited: Promise<number | null>; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, [CLI, 'dispatch'], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  return { child, exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))), output: () => output };
}

describe('dispatch workers', () => {
  it('`dispatch --once` delivers what is due and prints a summary', async () => {
    const sub = await listening('/once');
    await submit();
    const out = { text: '', write: (t: string) => (out.text += t) };
    const err = { text: '', write: (t: string) => (err.text += t) };
    expect(await runCli(['dispatch', '--once'], { out, err, env: { ...env, LOG_LEVEL: 'silent' } })).toBe(0);
    expect(JSON.parse(out.text)).toMatchObject({ attempts: 1, delivered: 1 });
    expect(receiver.at('/once')).toHaveLength(1);
    expect(receiver.at('/once')[0].headers['x-subscription-id']).toBe(sub.id);
  });

  it('`rotate-webhook-key` signs new deliveries with a new key while the JWKS keeps the old one', async () => {
    await listening('/rotated');
    // The JWKS holds the RS256 keys (X-Webhook-Signature), then the Ed25519 ones (webhook-signature v1a).
    const kids = async (kty: string) =>
      ((await server.as(null).get('/.well-known/jwks.json')).body.keys as { kid: string; kty: string }[]).filter((k) => k.kty === kty).map((k) => k.kid);
    const [rsaBefore, edBefore] = [await kids('RSA'), await kids('OKP')];
    const out = { text: '', write: (t: string) => (out.text += t) };
    expect(await runCli(['rotate-webhook-key'], { out, err: out, env: { ...env, LOG_LEVEL: 'silent' } })).toBe(0);
    const { kid, ed25519Kid } = JSON.parse(out.text.trim().split('\n').pop()!);
    expect(await kids('RSA')).toEqual([kid, ...rsaBefore]);
    expect(await kids('OKP')).toEqual([ed25519Kid, ...edBefore]);
    await submit();
    expect(await runCli(['dispatch', '--once'], { out, err: out, env: { ...env, LOG_LEVEL: 'silent' } })).toBe(0);
    const [r] = receiver.at('/rotated');
    const header = JSON.parse(Buffer.from(r.headers['x-webhook-signature'].split('.')[0], 'base64url').toString());
    expect(header).toMatchObject({ alg: 'RS256', kid });
  });

  it('a worker killed mid-delivery loses nothing: the next worker resends with the same message id', async () => {
    const sub = await listening('/killed');
    receiver.respond = (r) => (r.path === '/killed' && receiver.all('/killed').length === 1 ? 'hang' : { status: 200 });
    await submit();
    const first = worker();
    try {
      await waitFor('the first attempt', () => receiver.all('/killed').length === 1);
    } finally {
      first.child.kill('SIGKILL');
    }
    await first.exited;
    const [m] = await server.app.ds.getRepository(OutboxMessage).findBy({ subscriptionId: sub.id });
    expect(m.status).toBe('delivering');

    const second = worker();
    try {
      await waitFor('the redelivery', async () => (await server.app.ds.getRepository(OutboxMessage).findOneByOrFail({ id: m.id })).status === 'delivered', 20_000);
    } finally {
      second.child.kill('SIGTERM');
    }
    // SIGTERM: the worker stops cleanly.
    expect(await second.exited).toBe(0);
    expect(second.output()).toContain('webhook dispatcher stopped');
    expect(receiver.all('/killed').map((r) => r.headers['x-message-id'])).toEqual([m.messageId, m.messageId]);
    receiver.respond = () => ({ status: 200 });
  });
});
