import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Attachment } from '../src/files/attachment.entity';
import { testDatabase, TestDatabase } from './support/db';
import { startTestServer, TestServer } from './support/server';
import { fetchRaw, S3Server, s3Env, sendUploadForm, startS3Server, UploadTicket } from './support/storage';
import { World, WorldUser } from './support/world';

/**
 * Issue 19, items 4 and 5, against a real S3-compatible server (s3rver): presigned uploads reserve
 * their declared sizes against the quota, are capped per user and context, expire, and the service
 * deletes their unconfirmed objects; redirected downloads hand only raster images out inline.
 */
let s3: S3Server;
let shared: TestDatabase;
let server: TestServer;
let world: World;
const dirs: string[] = [];
const PREFIX = 'lms/';
const MiB = 1024 * 1024;
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>');
const OVER_QUOTA = { message: 'file size exceeds quota' };
const TOO_MANY = { message: 'too many uploads are pending: confirm or wait for earlier ones (at most 10 at a time)' };

function tempDir(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), name));
  dirs.push(dir);
  return dir;
}

/** An instance with presigned uploads and redirected downloads on the shared database and bucket. */
function presignedServer(): Promise<TestServer> {
  return startTestServer({ DATABASE_URL: shared.url, FILES_DIR: tempDir('lms-files-'), ...s3Env(s3, PREFIX, { S3_UPLOAD: 'presigned', S3_DOWNLOAD: 'redirect' }) });
}

beforeAll(async () => {
  s3 = await startS3Server();
  // A database a second instance can open: a temp SQLite file, or a fresh MariaDB database.
  const db = testDatabase();
  await db.ready?.();
  shared = db.kind === 'mysql' ? db : { url: `sqlite:${path.join(tempDir('lms-db-'), 'lms.sqlite')}`, kind: 'sqlite', drop: async () => undefined };
  server = await presignedServer();
  world = new World(server);
});
afterAll(async () => {
  await server?.close();
  await shared?.drop();
  await s3?.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

const uuidOf = (t: UploadTicket) => new URL(t.upload_params.success_action_redirect).searchParams.get('uuid')!;
const idOf = (t: UploadTicket) => Number(/\/api\/v1\/files\/(\d+)\/create_success/.exec(t.upload_params.success_action_redirect)![1]);
const confirmPath = (t: UploadTicket) => `/api/v1/files/${idOf(t)}/create_success?uuid=${uuidOf(t)}`;

async function stateOf(id: number): Promise<string> {
  return (await server.app.ds.getRepository(Attachment).findOneByOrFail({ id })).workflowState;
}

/** Time passing: the preflight was made this many seconds ago. */
async function backdate(t: UploadTicket, seconds: number): Promise<void> {
  await server.app.ds.getRepository(Attachment).update({ id: idOf(t) }, { createdAt: new Date(Date.now() - seconds * 1000) });
}

/** Preflight, the bytes to the bucket, create_success: the file JSON. */
async function upload(user: WorldUser, contextPath: string, name: string, bytes: Buffer, contentType?: string) {
  const pre = await user.api.post(`${contextPath}/files`, { name, size: bytes.length, ...(contentType ? { content_type: contentType } : {}) });
  expect(pre.status).toBe(200);
  expect((await sendUploadForm(pre.body, bytes, name)).status).toBe(303);
  const done = await user.api.get(confirmPath(pre.body));
  expect(done.status).toBe(200);
  return done.body as { id: number; uuid: string; url: string; thumbnail_url: string | null };
}

const CREATE = `mutation($input: CreateFileUploadInput!) { createFileUpload(input: $input) { uploadUrl errors { message } } }`;

describe('presigned uploads reserve the quota (issue 19, item 4)', () => {
  it("holds against the issue's attack: twenty 4 MiB preflights by a student with a 50 MiB quota store no more than the quota", async () => {
    const student = await world.user('Bucket Filler');
    const accepted: UploadTicket[] = [];
    const refused: unknown[] = [];
    const bytes = Buffer.alloc(4 * MiB, 7);
    for (let i = 0; i < 20; i++) {
      const pre = await student.api.post('/api/v1/users/self/files', { name: `part${i}.bin`, size: bytes.length });
      if (pre.status !== 200) {
        expect(pre.status).toBe(400);
        refused.push(pre.body);
        continue;
      }
      accepted.push(pre.body);
      // Never confirmed: the bytes stay under uploads/<uuid>.
      expect((await sendUploadForm(pre.body, bytes)).status).toBe(303);
    }
    const sizes = await s3.sizes(PREFIX);
    const parked = accepted.reduce((sum, t) => sum + (sizes.get(`uploads/${uuidOf(t)}`) ?? 0), 0);
    expect(parked).toBeGreaterThan(0);
    expect(parked).toBeLessThanOrEqual(50 * MiB);
    expect(accepted.length + refused.length).toBe(20);
    expect(refused.length).toBeGreaterThan(0);
    // The GraphQL preflight is refused alike.
    const gql = await student.api.graphql(CREATE, { input: { contextType: 'User', contextId: 'self', name: 'more.bin', size: 4 * MiB } });
    expect(gql.errors?.[0].extensions.code).toBe('REQUEST_ERROR');
  });

  it("reserves each pending preflight's size: one that does not fit in the quota less what is stored and pending gets Canvas's quota refusal", async () => {
    const student = await world.user('Quota Reserver');
    const pre = (size: number) => student.api.post('/api/v1/users/self/files', { name: 'big.bin', size });
    for (let i = 0; i < 4; i++) expect((await pre(12 * MiB)).status).toBe(200);
    // 48 MiB pending of 50: 12 more do not fit, 2 do, and then not one byte more.
    const over = await pre(12 * MiB);
    expect(over.status).toBe(400);
    expect(over.body).toEqual(OVER_QUOTA);
    expect((await pre(2 * MiB)).status).toBe(200);
    expect((await pre(1)).body).toEqual(OVER_QUOTA);
    const gql = await student.api.graphql(CREATE, { input: { contextType: 'User', contextId: 'self', name: 'one.bin', size: 1 } });
    expect(gql.errors?.[0]).toMatchObject({ message: OVER_QUOTA.message, extensions: { code: 'REQUEST_ERROR' } });
    // Another context's quota is its own.
    const course = await world.course();
    await world.enroll(course.id, student.id, 'TeacherEnrollment');
    expect((await student.api.post(`/api/v1/courses/${course.id}/files`, { name: 'c.bin', size: 12 * MiB })).status).toBe(200);
  });

  it('caps outstanding preflights per user and context; a confirmation frees a slot', async () => {
    const user = await world.user('Many Preflights');
    const tickets: UploadTicket[] = [];
    for (let i = 0; i < 10; i++) {
      const pre = await user.api.post('/api/v1/users/self/files', { name: `n${i}.txt`, size: 2 });
      expect(pre.status).toBe(200);
      tickets.push(pre.body);
    }
    const eleventh = await user.api.post('/api/v1/users/self/files', { name: 'n10.txt', size: 2 });
    expect(eleventh.status).toBe(400);
    expect(eleventh.body).toEqual(TOO_MANY);
    const gql = await user.api.graphql(CREATE, { input: { contextType: 'User', contextId: 'self', name: 'g.txt', size: 2 } });
    expect(gql.errors?.[0]).toMatchObject({ message: TOO_MANY.message, extensions: { code: 'REQUEST_ERROR' } });
    // Per context: the same user's course files are not held up.
    const course = await world.course();
    await world.enroll(course.id, user.id, 'TeacherEnrollment');
    expect((await user.api.post(`/api/v1/courses/${course.id}/files`, { name: 'c.txt', size: 2 })).status).toBe(200);
    // Confirming one makes room for one more.
    expect((await sendUploadForm(tickets[0], Buffer.from('ok'), 'n0.txt')).status).toBe(303);
    expect((await user.api.get(confirmPath(tickets[0]))).status).toBe(200);
    expect((await user.api.post('/api/v1/users/self/files', { name: 'n10.txt', size: 2 })).status).toBe(200);
    expect((await user.api.post('/api/v1/users/self/files', { name: 'n11.txt', size: 2 })).body).toEqual(TOO_MANY);
  });

  it('expires preflights: create_success refuses one, and the next preflight deletes its object from the bucket and frees its reservation', async () => {
    const user = await world.user('Late Confirmer');
    const big = await user.api.post('/api/v1/users/self/files', { name: 'late.txt', size: 40 * MiB });
    expect(big.status).toBe(200);
    // The presigned POST expires with the preflight (S3_UPLOAD_EXPIRY_SECONDS, 30 minutes by default).
    const policy = JSON.parse(Buffer.from(big.body.upload_params.Policy, 'base64').toString());
    const lifetime = (Date.parse(policy.expiration) - Date.now()) / 1000;
    expect(lifetime).toBeGreaterThan(1700);
    expect(lifetime).toBeLessThanOrEqual(1800);
    expect((await sendUploadForm(big.body, Buffer.from('late bytes'), 'late.txt')).status).toBe(303);
    const key = `uploads/${uuidOf(big.body)}`;
    expect(await s3.keys(PREFIX)).toContain(key);
    expect((await user.api.post('/api/v1/users/self/files', { name: 'x.bin', size: 20 * MiB })).body).toEqual(OVER_QUOTA);

    await backdate(big.body, 2 * 3600);
    const late = await user.api.get(confirmPath(big.body));
    expect(late.status).toBe(400);
    expect(late.body).toEqual({ message: 'the upload has expired; start it again' });
    expect(await stateOf(idOf(big.body))).toBe('pending_upload');

    // The next preflight in the context retires it: object gone, row deleted, its 40 MiB free again.
    expect((await user.api.post('/api/v1/users/self/files', { name: 'x.bin', size: 20 * MiB })).status).toBe(200);
    expect(await s3.keys(PREFIX)).not.toContain(key);
    expect(await stateOf(idOf(big.body))).toBe('deleted');
    expect((await user.api.get(confirmPath(big.body))).status).toBe(404);
  });

  it('has every process retire expired preflights of any context when it starts and then every minute', async () => {
    const user = await world.user('Gone Away');
    const pre = await user.api.post('/api/v1/users/self/files', { name: 'left.txt', size: 4 });
    expect((await sendUploadForm(pre.body, Buffer.from('left'), 'left.txt')).status).toBe(303);
    const fresh = await user.api.post('/api/v1/users/self/files', { name: 'fresh.txt', size: 5 });
    expect((await sendUploadForm(fresh.body, Buffer.from('fresh'), 'fresh.txt')).status).toBe(303);
    const key = `uploads/${uuidOf(pre.body)}`;
    await backdate(pre.body, 2 * 3600);

    // No request of this user's context: a second process's start-up sweep finds it.
    const other = await presignedServer();
    try {
      // Its sweep runs in the background once it is ready: wait for it (a bounded wait, not a timing).
      for (let i = 0; i < 600 && (await stateOf(idOf(pre.body))) === 'pending_upload'; i++) await new Promise((r) => setTimeout(r, 50));
    } finally {
      await other.close();
    }
    expect(await stateOf(idOf(pre.body))).toBe('deleted');
    const keys = await s3.keys(PREFIX);
    expect(keys).not.toContain(key);
    // What has not expired stays.
    expect(keys).toContain(`uploads/${uuidOf(fresh.body)}`);
    expect(await stateOf(idOf(fresh.body))).toBe('pending_upload');
  });
});

describe('redirected downloads hand out only raster images inline (issue 19, item 5)', () => {
  /** Follows our 302 to the bucket and returns what the bucket answers. */
  async function viaBucket(url: string) {
    const first = await fetchRaw(url);
    expect(first.status).toBe(302);
    const location = new URL(first.headers.get('location')!);
    expect(location.origin).toBe(s3.endpoint);
    const res = await fetchRaw(location.href);
    expect(res.status).toBe(200);
    return res;
  }

  it("serves a student's SVG from the bucket as opaque bytes to download, and streams its thumbnail (and group avatar) sandboxed", async () => {
    const teacher = await world.user('Group Teacher');
    const student = await world.user('Svg Student');
    const course = await world.course();
    await world.enroll(course.id, teacher.id, 'TeacherEnrollment');
    await world.enroll(course.id, student.id, 'StudentEnrollment');
    const cat = await teacher.api.post(`/api/v1/courses/${course.id}/group_categories`, { name: 'Set' });
    const group = (await teacher.api.post(`/api/v1/group_categories/${cat.body.id}/groups`, { name: 'Group' })).body;
    expect((await teacher.api.post(`/api/v1/groups/${group.id}/memberships`, { user_id: student.id })).status).toBe(200);
    const svg = await upload(student, `/api/v1/groups/${group.id}`, 'evil.svg', SVG);

    const download = await viaBucket(svg.url);
    expect(download.headers.get('content-type')).toBe('application/octet-stream');
    expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename="evil.svg"/);
    expect(download.bytes.equals(SVG)).toBe(true);

    // Shown to others as the group's avatar: never the bucket's inline image/svg+xml.
    const avatar = await teacher.api.put(`/api/v1/groups/${group.id}`, { avatar_id: svg.id });
    expect(avatar.body.avatar_url).toBe(svg.thumbnail_url);
    const thumb = await fetchRaw(svg.thumbnail_url!);
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get('location')).toBeNull();
    expect(thumb.headers.get('content-security-policy')).toMatch(/\bsandbox\b/);
    expect(thumb.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(thumb.headers.get('x-content-type-options')).toBe('nosniff');
    expect(thumb.bytes.equals(SVG)).toBe(true);
  });

  it('downloads HTML (or an SVG declared as anything but a raster type) as application/octet-stream attachments', async () => {
    const user = await world.user('Html Author');
    const html = await upload(user, '/api/v1/users/self', 'page.html', Buffer.from('<script>alert(1)</script>'));
    const page = await viaBucket(html.url);
    expect(page.headers.get('content-type')).toBe('application/octet-stream');
    expect(page.headers.get('content-disposition')).toMatch(/^attachment; filename="page.html"/);
    const declared = await upload(user, '/api/v1/users/self', 'pic.png', SVG, 'image/svg+xml');
    expect((await viaBucket(declared.url)).headers.get('content-type')).toBe('application/octet-stream');
    const thumb = await fetchRaw(declared.thumbnail_url!);
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get('content-security-policy')).toMatch(/\bsandbox\b/);
  });

  it('still redirects png, jpeg, gif and webp as themselves: thumbnails inline, downloads as attachments', async () => {
    const user = await world.user('Raster Fan');
    for (const [name, type] of [['a.png', 'image/png'], ['b.jpg', 'image/jpeg'], ['c.gif', 'image/gif'], ['d.webp', 'image/webp']]) {
      const file = await upload(user, '/api/v1/users/self', name, PNG);
      const thumb = await viaBucket(file.thumbnail_url!);
      expect(thumb.headers.get('content-type')).toBe(type);
      expect(thumb.headers.get('content-disposition')).toMatch(new RegExp(`^inline; filename="${name}"`));
      expect(thumb.bytes.equals(PNG)).toBe(true);
      const download = await viaBucket(file.url);
      expect(download.headers.get('content-type')).toBe(type);
      expect(download.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="${name}"`));
    }
  });
});
