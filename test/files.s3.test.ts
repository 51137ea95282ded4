import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { Api } from './support/api';
import { testDatabase, TestDatabase } from './support/db';
import { startTestServer, TestServer } from './support/server';
import { S3Server, s3Env, startS3Server } from './support/storage';
import { World, WorldUser } from './support/world';

/**
 * What only the S3 back end does (the shared files suites cover the rest on both back ends): several
 * instances on one database and one bucket, uploads straight to the bucket with a presigned POST, and
 * downloads by redirect to a presigned URL. Instance A presigns both; B proxies both; C's bucket
 * endpoint is down. On SQLite the instances share a database file, on MariaDB a database.
 */
let s3: S3Server;
let shared: TestDatabase;
let a: TestServer;
let b: TestServer;
let c: TestServer;
let world: World;
const dirs: string[] = [];
/** FILES_DIR of each instance (temp uploads only, with a bucket). */
const filesDirs: Record<'a' | 'b' | 'c', string> = { a: '', b: '', c: '' };
const PREFIX = 'lms/';
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

function tempDir(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), name));
  dirs.push(dir);
  return dir;
}

/** A database several servers can open: a temp SQLite file, or a fresh MariaDB database. */
function sharedDatabase(): TestDatabase {
  const db = testDatabase();
  if (db.kind === 'mysql') return db;
  return { url: `sqlite:${path.join(tempDir('lms-shared-db-'), 'lms.sqlite')}`, kind: 'sqlite', drop: async () => undefined };
}

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

beforeAll(async () => {
  s3 = await startS3Server();
  shared = sharedDatabase();
  await shared.ready?.();
  const base = { DATABASE_URL: shared.url };
  // One after another: the first installs (and on SQLite migrates), the others find that done.
  for (const k of ['a', 'b', 'c'] as const) filesDirs[k] = tempDir(`lms-files-${k}-`);
  a = await startTestServer({ ...base, FILES_DIR: filesDirs.a, ...s3Env(s3, PREFIX, { S3_UPLOAD: 'presigned', S3_DOWNLOAD: 'redirect', S3_URL_TTL_SECONDS: '120' }) });
  b = await startTestServer({ ...base, FILES_DIR: filesDirs.b, ...s3Env(s3, PREFIX) });
  c = await startTestServer({ ...base, FILES_DIR: filesDirs.c, ...s3Env(s3, PREFIX), S3_ENDPOINT: `http://127.0.0.1:${await closedPort()}` });
  world = new World(a);
});
afterAll(async () => {
  for (const server of [a, b, c]) await server?.close();
  await shared?.drop();
  await s3?.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

interface Ticket {
  upload_url: string;
  upload_params: Record<string, string>;
  file_param: string;
}

/** The same user through another instance. */
const via = (server: TestServer, user: WorldUser) => new Api(server.url, user.token);

async function sendForm(ticket: Ticket, bytes: Buffer, filename = 'upload.bin') {
  const form = new FormData();
  for (const [k, v] of Object.entries(ticket.upload_params)) form.append(k, v);
  form.append(ticket.file_param, new Blob([bytes]), filename);
  const res = await fetch(ticket.upload_url, { method: 'POST', body: form, redirect: 'manual' });
  const text = await res.text();
  return { status: res.status, location: res.headers.get('location'), text };
}

async function fetchBytes(url: string, api?: Api) {
  const res = await fetch(url, { redirect: 'manual', headers: api?.token ? { Authorization: `Bearer ${api.token}` } : {} });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

async function row(id: number): Promise<{ workflow_state: string; storage_key: string | null; size: number | null }> {
  const [r] = await a.app.ds.query('SELECT workflow_state, storage_key, size FROM attachments WHERE id = ?', [id]);
  return { ...r, size: r.size == null ? null : Number(r.size) };
}

/** Preflight through A (presigned POST), the bytes to the bucket; returns the ticket and the bucket's answer. */
async function presignedUpload(api: Api, contextPath: string, name: string, declared: number, bytes: Buffer) {
  const pre = await api.post(`${contextPath}/files`, { name, size: declared });
  expect(pre.status).toBe(200);
  const ticket = pre.body as Ticket;
  const sent = await sendForm(ticket, bytes, name);
  return { ticket, sent, id: attachmentId(ticket) };
}

/** The attachment id from the bucket redirect our preflight asked for. */
const attachmentId = (ticket: Ticket) => Number(/\/api\/v1\/files\/(\d+)\/create_success/.exec(ticket.upload_params.success_action_redirect)![1]);
const uuidOf = (ticket: Ticket) => new URL(ticket.upload_params.success_action_redirect).searchParams.get('uuid')!;

describe('one bucket, several instances', () => {
  it('serves a file uploaded through one instance from another, streamed or redirected', async () => {
    const me = await world.user('Two Doors');
    const bytes = Buffer.from(`bytes through B ${Date.now()}\n`);
    // Through B: proxied upload (B streams the bytes into the bucket).
    const pre = await via(b, me).post('/api/v1/users/self/files', { name: 'report.txt', size: bytes.length });
    expect(pre.body.upload_url).toBe(`${b.url}/files_api`);
    const up = await sendForm(pre.body, bytes, 'report.txt');
    expect(up.status).toBe(201);
    const done = await via(b, me).get(up.location!.replace(b.url, ''));
    expect(done.status).toBe(200);
    const file = done.body;
    // Nothing of it stayed on B's disk: the bucket holds it.
    expect(fs.readdirSync(path.join(filesDirs.b, 'tmp'))).toEqual([]);
    expect(await s3.keys(PREFIX)).toContain((await row(file.id)).storage_key);

    // A (S3_DOWNLOAD=redirect) sends the client to a short-lived presigned URL of the bucket.
    const redirect = await fetchBytes(`${a.url}/files/${file.id}/download?download_frd=1&verifier=${file.uuid}`);
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('cache-control')).toBe('no-store');
    const location = new URL(redirect.headers.get('location')!);
    expect(location.origin).toBe(s3.endpoint);
    expect(location.searchParams.get('X-Amz-Expires')).toBe('120');
    const fromBucket = await fetchBytes(location.href);
    expect(fromBucket.status).toBe(200);
    expect(fromBucket.bytes.equals(bytes)).toBe(true);
    // Not a raster image: the bucket hands it out as opaque bytes to download (issue 19, item 5).
    expect(fromBucket.headers.get('content-type')).toBe('application/octet-stream');
    expect(fromBucket.headers.get('content-disposition')).toContain('attachment; filename="report.txt"');

    // B streams it; so does B for a file A stored (below), whichever instance took the bytes.
    const streamed = await fetchBytes(`${b.url}/files/${file.id}/download?verifier=${file.uuid}`);
    expect(streamed.status).toBe(200);
    expect(streamed.bytes.equals(bytes)).toBe(true);
    expect(streamed.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('keeps the access rules on the redirect: a wrong verifier or an outsider gets no URL', async () => {
    const room = await world.classroom();
    const { ticket, sent, id } = await presignedUpload(room.teacher.api, `/api/v1/courses/${room.course.id}`, 'secret.txt', 6, Buffer.from('secret'));
    expect(sent.status).toBe(303);
    expect((await room.teacher.api.get(sent.location!.replace(a.url, ''))).status).toBe(200);
    const base = `${a.url}/files/${id}/download`;
    const wrong = await fetchBytes(`${base}?verifier=${'0'.repeat(36)}`);
    expect(wrong.status).toBe(404);
    expect(wrong.headers.get('location')).toBeNull();
    expect((await fetchBytes(base, room.outsider.api)).status).toBe(403);
    expect((await fetchBytes(base)).status).toBe(401);
    const student = await fetchBytes(base, room.student.api);
    expect(student.status).toBe(302);
    expect((await fetchBytes(student.headers.get('location')!)).bytes.toString()).toBe('secret');
    expect(uuidOf(ticket)).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('presigned POST uploads (S3_UPLOAD=presigned)', () => {
  it('sends step 2 to the bucket with a policy of exactly the declared size, and confirms from the bucket', async () => {
    const me = await world.user('Direct Uploader');
    const bytes = Buffer.from('straight to the bucket');
    const pre = await me.api.post('/api/v1/users/self/files', { name: 'direct.txt', size: bytes.length });
    expect(pre.status).toBe(200);
    const ticket = pre.body as Ticket;
    expect(ticket.upload_url).toBe(`${s3.endpoint}/${s3.bucket}`);
    expect(ticket.file_param).toBe('file');
    const uuid = uuidOf(ticket);
    const id = attachmentId(ticket);
    expect(ticket.upload_params).toMatchObject({ key: `${PREFIX}uploads/${uuid}`, 'Content-Type': 'text/plain', success_action_redirect: `${a.url}/api/v1/files/${id}/create_success?uuid=${uuid}` });
    const policy = JSON.parse(Buffer.from(ticket.upload_params.Policy, 'base64').toString());
    expect(policy.conditions).toContainEqual(['content-length-range', bytes.length, bytes.length]);
    expect(policy.conditions).toContainEqual({ success_action_redirect: ticket.upload_params.success_action_redirect });
    // Nothing of the service's own upload policy: the bucket checks this one.
    expect(ticket.upload_params).not.toHaveProperty('Signature');

    // Confirming before the bytes are there is refused, as with proxied uploads.
    const early = await me.api.get(`/api/v1/files/${id}/create_success?uuid=${uuid}`);
    expect(early.status).toBe(400);
    expect(early.body).toEqual({ message: 'the file has not been uploaded' });

    const sent = await sendForm(ticket, bytes, 'direct.txt');
    expect(sent.status).toBe(303);
    expect(sent.location).toMatch(new RegExp(`^${a.url}/api/v1/files/${id}/create_success\\?uuid=${uuid}&`));
    // Someone else following the redirect adopts nothing.
    expect((await via(a, await world.user('Not Me')).get(sent.location!.replace(a.url, ''))).status).toBe(404);
    expect((await row(id)).workflow_state).toBe('pending_upload');

    // The redirect is followed without the token, as clients following the bucket's 303 do: the uuid is the credential.
    expect((await fetch(sent.location!.replace(/uuid=[^&]+/, 'uuid=00000000-0000-4000-8000-000000000000'))).status).toBe(404);
    const anonymous = await fetch(sent.location!);
    expect(anonymous.status).toBe(200);
    expect(await anonymous.json()).toMatchObject({ id, uuid, display_name: 'direct.txt', size: bytes.length, upload_status: 'success' });
    const done = await me.api.get(sent.location!.replace(a.url, ''));
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ id, uuid, display_name: 'direct.txt', size: bytes.length, upload_status: 'success', 'content-type': 'text/plain' });
    // Copied to a storage key of its own; the upload key is gone, so posting again changes nothing.
    const stored = await row(id);
    expect(stored).toMatchObject({ workflow_state: 'available', size: bytes.length });
    expect(stored.storage_key).toMatch(new RegExp(`^store/${uuid.slice(0, 2)}/${uuid}-[0-9a-f]{8}$`));
    const keys = await s3.keys(PREFIX);
    expect(keys).toContain(stored.storage_key);
    expect(keys).not.toContain(`uploads/${uuid}`);
    expect((await me.api.get(sent.location!.replace(a.url, ''))).body).toEqual(done.body);

    // B, which proxies, streams what went straight to the bucket.
    const streamed = await fetchBytes(`${b.url}/files/${id}/download?verifier=${uuid}`);
    expect(streamed.bytes.equals(bytes)).toBe(true);
  });

  it('refuses at confirmation what the bucket should not have taken (more bytes than declared, an empty file), keeping nothing', async () => {
    // s3rver ignores POST policies, so these bytes reach the bucket: the service's own check refuses them.
    const me = await world.user('Oversize Direct');
    const over = await presignedUpload(me.api, '/api/v1/users/self', 'small.txt', 4, Buffer.from('more than four'));
    expect(over.sent.status).toBe(303);
    const refused = await me.api.get(over.sent.location!.replace(a.url, ''));
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: 'file size exceeds the size given at preflight' });
    expect(await row(over.id)).toEqual({ workflow_state: 'pending_upload', storage_key: null, size: 4 });
    expect((await s3.keys(PREFIX)).some((k) => k.includes(uuidOf(over.ticket)))).toBe(false);

    const empty = await presignedUpload(me.api, '/api/v1/users/self', 'empty.txt', 0, Buffer.alloc(0));
    const none = await me.api.get(empty.sent.location!.replace(a.url, ''));
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ message: 'file is empty' });
    expect((await s3.keys(PREFIX)).some((k) => k.includes(uuidOf(empty.ticket)))).toBe(false);

    // The ticket still works for the declared size.
    const again = await sendForm(over.ticket, Buffer.from('four'));
    expect(again.status).toBe(303);
    expect((await me.api.get(again.location!.replace(a.url, ''))).status).toBe(200);
  });

  it('re-checks the quota with the bytes at confirmation: a presigned upload is refused and deleted when bytes stored meanwhile leave no room', async () => {
    const room = await world.classroom();
    expect((await a.admin.put(`/api/v1/courses/${room.course.id}`, { course: { storage_quota_mb: 1 } })).status).toBe(200);
    const ctx = `/api/v1/courses/${room.course.id}`;
    const two = await presignedUpload(room.teacher.api, ctx, 'two.bin', 600 * 1024, Buffer.alloc(600 * 1024, 2));
    expect(two.sent.status).toBe(303);
    // A second presigned preflight would not fit beside the reserved one (test/files.s3.security.test.ts);
    // B proxies, reserving nothing, and stores its bytes first.
    const one = await via(b, room.teacher).post(`${ctx}/files`, { name: 'one.bin', size: 600 * 1024 });
    const up = await sendForm(one.body, Buffer.alloc(600 * 1024, 1), 'one.bin');
    expect(up.status).toBe(201);
    expect((await via(b, room.teacher).get(up.location!.replace(b.url, ''))).status).toBe(200);
    const refused = await room.teacher.api.get(two.sent.location!.replace(a.url, ''));
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: 'file size exceeds quota' });
    expect((await row(two.id)).workflow_state).toBe('pending_upload');
    expect((await s3.keys(PREFIX)).some((k) => k.includes(uuidOf(two.ticket)))).toBe(false);
  });

  it('redirects avatar thumbnails to the bucket too, inline and typed', async () => {
    const me = await world.user('Avatar Direct');
    const { sent, id, ticket } = await presignedUpload(me.api, '/api/v1/users/self', 'me.png', PNG.length, PNG);
    const file = (await me.api.get(sent.location!.replace(a.url, ''))).body;
    expect(file.thumbnail_url).toBe(`${a.url}/images/thumbnails/${id}/${uuidOf(ticket)}`);
    const thumb = await fetchBytes(file.thumbnail_url);
    expect(thumb.status).toBe(302);
    const image = await fetchBytes(thumb.headers.get('location')!);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(image.headers.get('content-disposition')).toMatch(/^inline; filename="me.png"/);
    expect(image.bytes.equals(PNG)).toBe(true);
  });
});

describe('bucket failures', () => {
  it('answers 404 for bytes missing from the bucket, and 503 with Retry-After while the bucket is unreachable', async () => {
    const me = await world.user('Unlucky');
    const pre = await via(b, me).post('/api/v1/users/self/files', { name: 'gone.txt', size: 4 });
    const up = await sendForm(pre.body, Buffer.from('gone'));
    const file = (await via(b, me).get(up.location!.replace(b.url, ''))).body;
    const key = (await row(file.id)).storage_key!;

    // C's endpoint is down: downloads and proxied uploads are 503 with a JSON body naming nothing of S3.
    const down = await fetch(`${c.url}/files/${file.id}/download?verifier=${file.uuid}`);
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('5');
    const body = await down.text();
    expect(JSON.parse(body)).toEqual({ errors: [{ message: 'File storage is temporarily unavailable. Try again shortly.', error_code: 'service_unavailable' }] });
    expect(body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|S3RVER/);
    const preC = await via(c, me).post('/api/v1/users/self/files', { name: 'later.txt', size: 5 });
    const upC = await sendForm(preC.body, Buffer.from('later'));
    expect(upC.status).toBe(503);
    expect((await row(attachmentIdFromPolicy(preC.body))).workflow_state).toBe('pending_upload');
    expect(fs.readdirSync(path.join(filesDirs.c, 'tmp'))).toEqual([]);
    // A presigned upload confirmed through C (the bytes are in the bucket, C cannot reach it): REST and
    // GraphQL answer 503 too, and the file stays pending for a later confirmation.
    const late = await presignedUpload(new Api(a.url, me.token), '/api/v1/users/self', 'late.txt', 4, Buffer.from('late'));
    const confirmC = await via(c, me).get(late.sent.location!.replace(a.url, ''));
    expect(confirmC.status).toBe(503);
    expect(confirmC.headers.get('retry-after')).toBe('5');
    expect(confirmC.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|S3RVER/);
    expect((await row(late.id)).workflow_state).toBe('pending_upload');

    // Deleted from the bucket behind the service's back: a plain 404 through B.
    await s3.client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: `${PREFIX}${key}` }));
    const missing = await fetchBytes(`${b.url}/files/${file.id}/download?verifier=${file.uuid}`);
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.bytes.toString())).toEqual({ errors: [{ message: 'The specified resource does not exist.' }] });
  });
});

const attachmentIdFromPolicy = (ticket: Ticket) => JSON.parse(Buffer.from(ticket.upload_params.Policy, 'base64').toString()).attachment_id as number;
