import { randomBytes } from 'node:crypto';
import { signPolicy } from '../src/files/upload-policy';
import type { Api } from './support/api';
import { count } from './support/content';
import type { TestServer } from './support/server';
import { STORAGE_KINDS, startFilesServer, TestStorage, UploadTicket } from './support/storage';
import type { World, WorldUser } from './support/world';

let server: TestServer;
let world: World;
let storage: TestStorage;

const uniq = () => randomBytes(4).toString('hex');
const FORBIDDEN = { status: 'unauthorized', errors: [{ message: 'user not authorized to perform that action' }] };
const NOT_FOUND = { errors: [{ message: 'The specified resource does not exist.' }] };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
// A 1×1 transparent PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

/** Step 2 as a Canvas client does it: the upload_params unchanged, then the file last. */
async function sendBytes(ticket: UploadTicket, bytes: Buffer, filename = 'upload.bin', type = 'application/octet-stream', field?: string) {
  const form = new FormData();
  for (const [k, v] of Object.entries(ticket.upload_params)) form.append(k, v);
  form.append(field ?? ticket.file_param, new Blob([bytes], { type }), filename);
  const res = await fetch(ticket.upload_url, { method: 'POST', body: form, redirect: 'manual' });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** Follows the upload's Location with the uploader's token (step 3). */
async function confirm(api: Api, location: string, method: 'GET' | 'POST' = 'GET') {
  return api.request(method, location.replace(server.url, ''));
}

/** All three steps; returns the confirmed File JSON. */
async function uploadFile(api: Api, contextPath: string, name: string, bytes: Buffer, extra: Record<string, unknown> = {}) {
  const pre = await api.post(`${contextPath}/files`, { name, size: bytes.length, ...extra });
  expect(pre.status).toBe(200);
  const up = await sendBytes(pre.body, bytes, name);
  expect(up.status).toBe(201);
  const done = await confirm(api, up.headers.get('location')!);
  expect(done.status).toBe(200);
  return done.body;
}

/** A course with a teacher, a student, and a group of the course whose member is `member`. */
async function groupWorld() {
  const room = await world.classroom();
  const cat = await room.teacher.api.post(`/api/v1/courses/${room.course.id}/group_categories`, { name: `Set ${uniq()}` });
  expect(cat.status).toBe(200);
  const group = await room.teacher.api.post(`/api/v1/group_categories/${cat.body.id}/groups`, { name: `Group ${uniq()}` });
  expect(group.status).toBe(200);
  const add = await room.teacher.api.post(`/api/v1/groups/${group.body.id}/memberships`, { user_id: room.student.id });
  expect(add.status).toBe(200);
  return { ...room, member: room.student, nonMember: room.student2, group: group.body as { id: number } };
}

async function download(url: string, api?: Api) {
  const res = await fetch(url, { headers: api?.token ? { Authorization: `Bearer ${api.token}` } : {} });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe.each(STORAGE_KINDS)('files on %s storage', (kind) => {
  beforeAll(async () => ({ storage, server, world } = await startFilesServer(kind)));
  afterAll(() => server?.close());

  describe('group files: the three-step upload', () => {
    it('preflight, bytes, confirm, metadata and download for a group member', async () => {
      const w = await groupWorld();
      const bytes = Buffer.from(`hello group ${uniq()}\n`);
      const pre = await w.member.api.post(`/api/v1/groups/${w.group.id}/files`, { name: 'notes.txt', size: bytes.length });
      expect(pre.status).toBe(200);
      expect(pre.body).toEqual({ upload_url: `${server.url}/files_api`, upload_params: expect.any(Object), file_param: 'file' });
      expect(pre.body.upload_params).toMatchObject({ Filename: 'notes.txt', 'content-type': 'text/plain', Policy: expect.any(String), Signature: expect.any(String) });
      const policy = JSON.parse(Buffer.from(pre.body.upload_params.Policy, 'base64').toString());
      const expiresIn = Date.parse(policy.expiration) - Date.now();
      expect(expiresIn).toBeGreaterThan(29 * 60 * 1000);
      expect(expiresIn).toBeLessThanOrEqual(30 * 60 * 1000);
      // The attachment exists from the preflight on, pending.
      expect(await count(server, 'attachments', 'id = ? AND workflow_state = ?', [policy.attachment_id, 'pending_upload'])).toBe(1);

      // Step 2 needs no token: the signed policy authenticates.
      const up = await sendBytes(pre.body, bytes, 'C:\\fakepath\\whatever.txt', 'text/plain');
      expect(up.status).toBe(201);
      const location = up.headers.get('location')!;
      expect(location).toMatch(new RegExp(`^${server.url}/api/v1/files/${policy.attachment_id}/create_success\\?uuid=[0-9a-f-]{36}$`));
      expect(up.body).toMatchObject({ id: policy.attachment_id, display_name: 'notes.txt', size: bytes.length, 'content-type': 'text/plain', upload_status: 'success' });

      const done = await confirm(w.member.api, location);
      expect(done.status).toBe(200);
      const file = done.body;
      expect(Object.keys(file)).toEqual([
        'id', 'uuid', 'folder_id', 'display_name', 'filename', 'upload_status', 'content-type', 'url', 'size', 'created_at', 'updated_at',
        'unlock_at', 'locked', 'hidden', 'lock_at', 'hidden_for_user', 'thumbnail_url', 'modified_at', 'mime_class', 'media_entry_id',
        'locked_for_user', 'lock_info', 'lock_explanation', 'preview_url', 'category',
      ]);
      expect(file).toMatchObject({
        id: policy.attachment_id,
        uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        folder_id: expect.any(Number),
        display_name: 'notes.txt',
        filename: 'notes.txt',
        upload_status: 'success',
        'content-type': 'text/plain',
        size: bytes.length,
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
        modified_at: expect.stringMatching(ISO),
        unlock_at: null,
        lock_at: null,
        locked: false,
        hidden: false,
        hidden_for_user: false,
        locked_for_user: false,
        thumbnail_url: null,
        mime_class: 'text',
        media_entry_id: null,
        lock_info: null,
        lock_explanation: null,
        preview_url: null,
        category: 'uncategorized',
      });
      expect(file.url).toBe(`${server.url}/files/${file.id}/download?download_frd=1&verifier=${file.uuid}`);
      // Confirming again is harmless, and POST works as well as GET.
      expect((await confirm(w.member.api, location, 'POST')).body).toEqual(file);

      // Metadata for whoever can read the group: its members and the teacher.
      expect((await w.member.api.get(`/api/v1/files/${file.id}`)).body).toEqual(file);
      expect((await w.teacher.api.get(`/api/v1/files/${file.id}`)).status).toBe(200);

      // The download URL returns the very bytes, with the content type.
      const got = await download(file.url);
      expect(got.status).toBe(200);
      expect(got.bytes.equals(bytes)).toBe(true);
      expect(got.headers.get('content-type')).toBe('text/plain');
      expect(got.headers.get('content-disposition')).toContain('attachment; filename="notes.txt"');
      expect(got.headers.get('x-content-type-options')).toBe('nosniff');
      // Bytes live in the store under store/, named by uuid (and a per-upload suffix), never by the client's name.
      const [row] = await server.app.ds.query('SELECT storage_key FROM attachments WHERE id = ?', [file.id]);
      expect(row.storage_key).toMatch(new RegExp(`^store/${file.uuid.slice(0, 2)}/${file.uuid}-[0-9a-f]{8}$`));
      expect(await storage.list()).toContain(row.storage_key);
      expect((await storage.list()).some((f) => f.includes('notes') || f.includes('whatever'))).toBe(false);
      // With a bucket nothing stays on local disk: the temp upload is gone.
      if (kind === 's3') expect((await storage.list()).filter((f) => f.startsWith('local:'))).toEqual([]);

      // The group's file list.
      const list = await w.member.api.get(`/api/v1/groups/${w.group.id}/files`);
      expect(list.status).toBe(200);
      expect(list.body.map((f: { id: number }) => f.id)).toEqual([file.id]);
      expect(list.headers.get('link')).toContain('rel="current"');
    });

    it('guesses the content type from the name, keeps a declared one, and accepts a multipart preflight', async () => {
      const w = await groupWorld();
      const guessed = await w.member.api.post(`/api/v1/groups/${w.group.id}/files`, { name: 'Report.PDF', size: 10 });
      expect(guessed.body.upload_params['content-type']).toBe('application/pdf');
      const declared = await w.member.api.post(`/api/v1/groups/${w.group.id}/files`, { name: 'data.bin', size: 10, content_type: 'application/x-custom' }, { json: true });
      expect(declared.body.upload_params['content-type']).toBe('application/x-custom');
      const disk = await storage.list();
      const form = new FormData();
      form.append('name', 'multi.csv');
      form.append('size', '3');
      // A stray file part on a route that takes no files is read and dropped, never written to disk.
      form.append('stray', new Blob([Buffer.alloc(64 * 1024, 1)]), 'stray.bin');
      const multi = await fetch(`${server.url}/api/v1/groups/${w.group.id}/files`, { method: 'POST', body: form, headers: { Authorization: `Bearer ${w.member.token}` } });
      expect(multi.status).toBe(200);
      expect(await storage.list()).toEqual(disk);
      const ticket = (await multi.json()) as UploadTicket;
      expect(ticket.upload_params['content-type']).toBe('text/csv');
      const up = await sendBytes(ticket, Buffer.from('a,b'), 'ignored.txt', 'text/plain');
      expect(up.body).toMatchObject({ display_name: 'multi.csv', 'content-type': 'text/csv', mime_class: 'text' });
    });

    it('names a file without a preflight name after the upload, guessing its type then', async () => {
      const w = await groupWorld();
      const pre = await w.member.api.post(`/api/v1/groups/${w.group.id}/files`, { size: PNG.length });
      expect(pre.status).toBe(200);
      const up = await sendBytes(pre.body, PNG, 'C:\\Users\\me\\pixel.png', 'image/png');
      expect(up.status).toBe(201);
      expect(up.body).toMatchObject({ display_name: 'pixel.png', 'content-type': 'image/png', mime_class: 'image' });
    });

    it('refuses an outsider (403) and stores nothing; refuses an anonymous caller (401)', async () => {
      const w = await groupWorld();
      const [before, disk] = [await count(server, 'attachments'), await storage.list()];
      const outsider = await w.outsider.api.post(`/api/v1/groups/${w.group.id}/files`, { name: 'x.txt', size: 3 });
      expect(outsider.status).toBe(403);
      expect(outsider.body).toEqual(FORBIDDEN);
      const classmate = await w.nonMember.api.post(`/api/v1/groups/${w.group.id}/files`, { name: 'x.txt', size: 3 });
      expect(classmate.status).toBe(403);
      const anon = await server.as(null).post(`/api/v1/groups/${w.group.id}/files`, { name: 'x.txt' });
      expect(anon.status).toBe(401);
      expect((await w.member.api.post('/api/v1/groups/999999999/files', { name: 'x.txt' })).status).toBe(404);
      expect(await count(server, 'attachments')).toBe(before);
      expect(await count(server, 'folders', 'context_type = ? AND context_id = ?', ['Group', w.group.id])).toBe(0);
      expect(await storage.list()).toEqual(disk);
    });

    it('hides a group file from those who cannot read the group', async () => {
      const w = await groupWorld();
      const file = await uploadFile(w.member.api, `/api/v1/groups/${w.group.id}`, 'secret.txt', Buffer.from('secret'));
      const res = await w.outsider.api.get(`/api/v1/files/${file.id}`);
      expect(res.status).toBe(403);
      expect(res.body).not.toHaveProperty('display_name');
      expect((await server.as(null).get(`/api/v1/files/${file.id}`)).status).toBe(401);
      expect((await w.member.api.get('/api/v1/files/999999999')).body).toEqual(NOT_FOUND);
      // Downloads: the verifier or a reader's token; a wrong verifier learns nothing.
      const base = `${server.url}/files/${file.id}/download`;
      const wrong = await download(`${base}?verifier=${randomBytes(16).toString('hex')}`);
      expect(wrong.status).toBe(404);
      expect(JSON.parse(wrong.bytes.toString())).toEqual(NOT_FOUND);
      expect((await download(base)).status).toBe(401);
      expect((await download(base, w.outsider.api)).status).toBe(403);
      const byToken = await download(base, w.member.api);
      expect(byToken.status).toBe(200);
      expect(byToken.bytes.toString()).toBe('secret');
    });

    it('lets only the uploader (or the uuid alone, without a token) confirm', async () => {
      const w = await groupWorld();
      const pre = await w.member.api.post(`/api/v1/groups/${w.group.id}/files`, { name: 'mine.txt', size: 4 });
      const early = JSON.parse(Buffer.from(pre.body.upload_params.Policy, 'base64').toString());
      // Before the bytes arrive there is nothing to confirm.
      const notYet = await w.member.api.get(`/api/v1/files/${early.attachment_id}/create_success?uuid=${early.uuid}`);
      expect(notYet.status).toBe(400);
      expect(notYet.body).toEqual({ message: 'the file has not been uploaded' });
      const up = await sendBytes(pre.body, Buffer.from('mine'), 'mine.txt');
      const location = up.headers.get('location')!;
      expect((await confirm(w.teacher.api, location)).status).toBe(404);
      expect((await w.member.api.get(`/api/v1/files/${up.body.id}/create_success?uuid=${randomBytes(8).toString('hex')}`)).status).toBe(404);
      // Without a token the id and uuid are the credential, as in Canvas (a redirect is followed without it).
      expect((await server.as(null).get(`/api/v1/files/${up.body.id}/create_success?uuid=${randomBytes(8).toString('hex')}`)).status).toBe(404);
      const anonymous = await server.as(null).get(location.replace(server.url, ''));
      expect(anonymous.status).toBe(200);
      expect(anonymous.body).toMatchObject({ id: up.body.id, display_name: 'mine.txt' });
      expect((await confirm(w.member.api, location)).status).toBe(200);
    });

    /** Step 1 and 2 only, as canvasapi and other clients do when step 2 answers 201. */
    async function twoSteps(api: Api, contextPath: string, name: string, bytes: Buffer, extra: Record<string, unknown> = {}) {
      const pre = await api.post(`${contextPath}/files`, { name, size: bytes.length, ...extra });
      expect(pre.status).toBe(200);
      const up = await sendBytes(pre.body, bytes, name, 'text/plain');
      expect(up.status).toBe(201);
      return up;
    }

    it('a 201 at step 2 is a finished upload: the file is available to others without create_success', async () => {
      const w = await groupWorld();
      const g = `/api/v1/groups/${w.group.id}`;
      const bytes = Buffer.from(`two steps ${uniq()}`);
      const up = await twoSteps(w.member.api, g, 'two-steps.txt', bytes);
      // The 201's body is the file's JSON, as GET /api/v1/files/:id answers it.
      const shown = await w.teacher.api.get(`/api/v1/files/${up.body.id}`);
      expect(shown.status).toBe(200);
      expect(up.body).toEqual((await w.member.api.get(`/api/v1/files/${up.body.id}`)).body);
      expect(up.body).toMatchObject({ display_name: 'two-steps.txt', size: bytes.length, upload_status: 'success' });
      expect((await w.teacher.api.get(`${g}/files`)).body.map((f: { id: number }) => f.id)).toEqual([up.body.id]);
      expect((await download(up.body.url)).bytes.equals(bytes)).toBe(true);
      // A client that confirms anyway gets the same file, changed in nothing.
      const again = await confirm(w.member.api, up.headers.get('location')!);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(up.body);
      expect(await count(server, 'attachments', 'id = ? AND workflow_state = ?', [up.body.id, 'available'])).toBe(1);
      // on_duplicate applies at step 2: rename keeps both, the default overwrites.
      const renamed = await twoSteps(w.member.api, g, 'two-steps.txt', Buffer.from('v2'), { on_duplicate: 'rename' });
      expect(renamed.body.display_name).toBe('two-steps-1.txt');
      const overwrite = await twoSteps(w.member.api, g, 'two-steps.txt', Buffer.from('v3'));
      expect(overwrite.body.display_name).toBe('two-steps.txt');
      expect((await w.member.api.get(`/api/v1/files/${up.body.id}`)).status).toBe(404);
      expect((await w.teacher.api.get(`${g}/files`)).body.map((f: { display_name: string }) => f.display_name)).toEqual(['two-steps-1.txt', 'two-steps.txt']);
    });

    it('a 201 at step 2 finishes course and user uploads too (user files are what submissions attach)', async () => {
      const room = await world.classroom();
      const course = await twoSteps(room.teacher.api, `/api/v1/courses/${room.course.id}`, 'handout.txt', Buffer.from('handout'));
      expect((await room.student.api.get(`/api/v1/files/${course.body.id}`)).status).toBe(200);
      expect((await room.student.api.get(`/api/v1/courses/${room.course.id}/files/${course.body.id}`)).status).toBe(200);
      const mine = await twoSteps(room.student.api, '/api/v1/users/self', 'essay.txt', Buffer.from('my essay'));
      expect(mine.body).toMatchObject({ display_name: 'essay.txt', upload_status: 'success' });
      expect((await server.admin.get(`/api/v1/files/${mine.body.id}`)).status).toBe(200);
      // The uploaded file can be submitted at once (online_upload with file_ids).
      const a = await room.teacher.api.post(`/api/v1/courses/${room.course.id}/assignments`, { assignment: { name: 'Upload it', submission_types: ['online_upload'], published: true } });
      expect(a.status).toBe(201);
      const sub = await room.student.api.post(`/api/v1/courses/${room.course.id}/assignments/${a.body.id}/submissions`, { submission: { submission_type: 'online_upload', file_ids: [mine.body.id] } });
      expect(sub.status).toBe(201);
      expect(sub.body.attachments.map((f: { id: number }) => f.id)).toEqual([mine.body.id]);
    });
  });

  describe('group files: refusals that keep nothing', () => {
    async function quotaGroup(mb: number) {
      const w = await groupWorld();
      const set = await server.admin.put(`/api/v1/groups/${w.group.id}`, { storage_quota_mb: mb });
      expect(set.body.storage_quota_mb).toBe(mb);
      return w;
    }

    it('refuses a declared size over the quota at preflight', async () => {
      const w = await quotaGroup(1);
      const before = await count(server, 'attachments');
      const res = await w.member.api.post(`/api/v1/groups/${w.group.id}/files`, { name: 'big.bin', size: 1024 * 1024 + 1 });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'file size exceeds quota' });
      expect(await count(server, 'attachments')).toBe(before);
      // Existing available files count: 600 KB stored, 600 KB more does not fit.
      await uploadFile(w.member.api, `/api/v1/groups/${w.group.id}`, 'first.bin', Buffer.alloc(600 * 1024, 1));
      const second = await w.member.api.post(`/api/v1/groups/${w.group.id}/files`, { name: 'second.bin', size: 600 * 1024 });
      expect(second.body).toEqual({ message: 'file size exceeds quota' });
      expect((await w.member.api.post(`/api/v1/groups/${w.group.id}/files`, { name: 'small.bin', size: 300 * 1024 })).status).toBe(200);
    });

    it('re-checks the quota with the bytes: of two preflights that each fit, the second upload is refused', async () => {
      const w = await quotaGroup(1);
      const disk = await storage.list();
      const [first, second] = await Promise.all(
        ['one.bin', 'two.bin'].map((name) => w.member.api.post(`/api/v1/groups/${w.group.id}/files`, { name, size: 600 * 1024 })),
      );
      expect([first.status, second.status]).toEqual([200, 200]);
      expect((await sendBytes(first.body, Buffer.alloc(600 * 1024, 7))).status).toBe(201);
      const kept = await storage.list();
      const up = await sendBytes(second.body, Buffer.alloc(600 * 1024, 7));
      expect(up.status).toBe(400);
      expect(up.body).toEqual({ message: 'file size exceeds quota' });
      expect(up.headers.get('location')).toBeNull();
      expect(await storage.list()).toEqual(kept);
      expect(kept.length).toBe(disk.length + 1);
      const id = JSON.parse(Buffer.from(second.body.upload_params.Policy, 'base64').toString()).attachment_id;
      const [row] = await server.app.ds.query('SELECT workflow_state, storage_key FROM attachments WHERE id = ?', [id]);
      expect(row).toEqual({ workflow_state: 'pending_upload', storage_key: null });
    });

    it('refuses more bytes than the declared size, and an empty file', async () => {
      const w = await groupWorld();
      const disk = await storage.list();
      const pre = await w.member.api.post(`/api/v1/groups/${w.group.id}/files`, { name: 'small.txt', size: 4 });
      const over = await sendBytes(pre.body, Buffer.from('more than four'));
      expect(over.status).toBe(400);
      expect(over.body).toEqual({ message: 'file size exceeds the size given at preflight' });
      const pre2 = await w.member.api.post(`/api/v1/groups/${w.group.id}/files`, { name: 'empty.txt', size: 10 });
      const empty = await sendBytes(pre2.body, Buffer.alloc(0));
      expect(empty.status).toBe(400);
      expect(empty.body).toEqual({ message: 'file is empty' });
      // Without the file part at all.
      const form = new FormData();
      for (const [k, v] of Object.entries(pre2.body.upload_params as Record<string, string>)) form.append(k, v);
      const none = await fetch(pre2.body.upload_url, { method: 'POST', body: form });
      expect(none.status).toBe(400);
      expect(await none.json()).toEqual({ message: 'file is missing' });
      expect(await storage.list()).toEqual(disk);
    });

    it('refuses a tampered or expired policy (400) and keeps no bytes', async () => {
      const w = await groupWorld();
      const disk = await storage.list();
      const pre = await w.member.api.post(`/api/v1/groups/${w.group.id}/files`, { name: 'p.txt', size: 4 });
      const policy = JSON.parse(Buffer.from(pre.body.upload_params.Policy, 'base64').toString());
      const tampered = { ...pre.body, upload_params: { ...pre.body.upload_params, Signature: Buffer.alloc(32, 1).toString('base64') } };
      const bad = await sendBytes(tampered, Buffer.from('data'));
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({ message: 'Invalid or expired upload policy' });
      // A policy for another attachment, re-encoded without a valid signature.
      const forged = Buffer.from(JSON.stringify({ ...policy, attachment_id: policy.attachment_id + 1 })).toString('base64');
      expect((await sendBytes({ ...pre.body, upload_params: { ...pre.body.upload_params, Policy: forged } }, Buffer.from('data'))).status).toBe(400);
      const expired = signPolicy(server.app.tokenKey, { attachmentId: policy.attachment_id, uuid: policy.uuid, expiresAt: Date.now() - 1000, maxBytes: 4 });
      const late = await sendBytes({ ...pre.body, upload_params: { ...pre.body.upload_params, ...expired } }, Buffer.from('data'));
      expect(late.status).toBe(400);
      expect(late.body).toEqual({ message: 'Invalid or expired upload policy' });
      const noPolicy = await fetch(`${server.url}/files_api`, { method: 'POST', body: new FormData() });
      expect(noPolicy.status).toBe(400);
      expect(await storage.list()).toEqual(disk);
      // The genuine policy still works once, and only once.
      expect((await sendBytes(pre.body, Buffer.from('data'))).status).toBe(201);
      const again = await sendBytes(pre.body, Buffer.from('data'));
      expect(again.status).toBe(400);
      expect(again.body).toEqual({ message: 'the file was already uploaded' });
    });

    it('refuses an invalid on_duplicate, both folder params, and bad sizes or types, storing nothing', async () => {
      const w = await groupWorld();
      const before = await count(server, 'attachments');
      const url = `/api/v1/groups/${w.group.id}/files`;
      const dup = await w.member.api.post(url, { name: 'a.txt', on_duplicate: 'replace' });
      expect(dup.status).toBe(400);
      expect(dup.body).toEqual({ message: 'invalid on_duplicate option' });
      const both = await w.member.api.post(url, { name: 'a.txt', parent_folder_id: 1, parent_folder_path: 'x/y' });
      expect(both.status).toBe(400);
      expect(both.body).toEqual({ message: "Can't set folder path and folder id" });
      const size = await w.member.api.post(url, { name: 'a.txt', size: 'lots' });
      expect(size.status).toBe(400);
      expect(size.body.errors.size).toBeDefined();
      const negative = await w.member.api.post(url, { name: 'a.txt', size: -1 });
      expect(negative.status).toBe(400);
      expect(negative.body.errors.size[0]).toMatchObject({ attribute: 'size', type: 'invalid' });
      const type = await w.member.api.post(url, { name: 'a.txt', content_type: 'not a type' });
      expect(type.status).toBe(400);
      expect(type.body.errors.content_type).toBeDefined();
      const long = await w.member.api.post(url, { name: `${'n'.repeat(256)}.txt` });
      expect(long.body.errors.name[0].type).toBe('too_long');
      const dots = await w.member.api.post(url, { name: 'a.txt', parent_folder_path: 'a/../b' });
      expect(dots.status).toBe(400);
      expect(await count(server, 'attachments')).toBe(before);
    });
  });

  describe('group files: folders and duplicates', () => {
    it('creates folders from parent_folder_path and accepts a parent_folder_id of the context only', async () => {
      const w = await groupWorld();
      const g = `/api/v1/groups/${w.group.id}`;
      const root = await uploadFile(w.member.api, g, 'root.txt', Buffer.from('r'));
      const nested = await uploadFile(w.member.api, g, 'deep.txt', Buffer.from('d'), { parent_folder_path: 'week 1/slides' });
      expect(nested.folder_id).not.toBe(root.folder_id);
      const rows = await server.app.ds.query('SELECT id, name, full_name, parent_folder_id FROM folders WHERE context_type = ? AND context_id = ? ORDER BY id', ['Group', w.group.id]);
      expect(rows.map((r: { full_name: string }) => r.full_name)).toEqual(['files', 'files/week 1', 'files/week 1/slides']);
      expect(rows[2].id).toBe(nested.folder_id);
      // The same path again lands in the same folder.
      const same = await uploadFile(w.member.api, g, 'again.txt', Buffer.from('a'), { parent_folder_path: '/week 1/slides/' });
      expect(same.folder_id).toBe(nested.folder_id);
      const byId = await uploadFile(w.member.api, g, 'by-id.txt', Buffer.from('b'), { parent_folder_id: rows[1].id });
      expect(byId.folder_id).toBe(rows[1].id);
      // Another group's folder is not found here.
      const other = await groupWorld();
      const theirs = await uploadFile(other.member.api, `/api/v1/groups/${other.group.id}`, 'theirs.txt', Buffer.from('t'));
      expect((await w.member.api.post(`${g}/files`, { name: 'x.txt', size: 1, parent_folder_id: theirs.folder_id })).status).toBe(404);
    });

    it('overwrites a same-named file by default and renames with on_duplicate=rename', async () => {
      const w = await groupWorld();
      const g = `/api/v1/groups/${w.group.id}`;
      const first = await uploadFile(w.member.api, g, 'essay.txt', Buffer.from('v1'));
      const renamed = await uploadFile(w.member.api, g, 'essay.txt', Buffer.from('v2'), { on_duplicate: 'rename' });
      expect(renamed.display_name).toBe('essay-1.txt');
      expect((await w.member.api.get(`/api/v1/files/${first.id}`)).status).toBe(200);
      const overwrite = await uploadFile(w.member.api, g, 'essay.txt', Buffer.from('v3'));
      expect(overwrite.display_name).toBe('essay.txt');
      expect((await w.member.api.get(`/api/v1/files/${first.id}`)).status).toBe(404);
      expect((await download(first.url)).status).toBe(404);
      expect((await storage.list()).some((f) => f.includes(first.uuid))).toBe(false);
      const names = (await w.member.api.get(`${g}/files`)).body.map((f: { display_name: string }) => f.display_name);
      expect(names).toEqual(['essay-1.txt', 'essay.txt']);
    });
  });

  describe('group avatars', () => {
    it('sets avatar_id to an image uploaded to the group and shows avatar_url', async () => {
      const w = await groupWorld();
      const image = await uploadFile(w.member.api, `/api/v1/groups/${w.group.id}`, 'avatar.png', PNG);
      expect(image).toMatchObject({ 'content-type': 'image/png', mime_class: 'image', thumbnail_url: `${server.url}/images/thumbnails/${image.id}/${image.uuid}` });
      const res = await w.teacher.api.put(`/api/v1/groups/${w.group.id}`, { avatar_id: image.id });
      expect(res.status).toBe(200);
      expect(res.body.avatar_url).toBe(image.thumbnail_url);
      expect((await w.member.api.get(`/api/v1/groups/${w.group.id}`)).body.avatar_url).toBe(image.thumbnail_url);
      const thumb = await download(image.thumbnail_url);
      expect(thumb.status).toBe(200);
      expect(thumb.headers.get('content-type')).toBe('image/png');
      expect(thumb.bytes.equals(PNG)).toBe(true);
      expect((await download(`${server.url}/images/thumbnails/${image.id}/${randomBytes(8).toString('hex')}`)).status).toBe(404);
      // Clearing it.
      expect((await w.teacher.api.put(`/api/v1/groups/${w.group.id}`, { avatar_id: '' })).body.avatar_url).toBeNull();
    });

    it('refuses a non-image or a foreign file with 400 and changes nothing', async () => {
      const w = await groupWorld();
      const image = await uploadFile(w.member.api, `/api/v1/groups/${w.group.id}`, 'a.png', PNG);
      expect((await w.teacher.api.put(`/api/v1/groups/${w.group.id}`, { avatar_id: image.id })).status).toBe(200);
      const text = await uploadFile(w.member.api, `/api/v1/groups/${w.group.id}`, 'a.txt', Buffer.from('not an image'));
      const other = await groupWorld();
      const foreign = await uploadFile(other.member.api, `/api/v1/groups/${other.group.id}`, 'b.png', PNG);
      const course = await uploadFile(w.teacher.api, `/api/v1/courses/${w.course.id}`, 'c.png', PNG);
      for (const id of [text.id, foreign.id, course.id, 999999999, 'abc']) {
        const res = await w.teacher.api.put(`/api/v1/groups/${w.group.id}`, { avatar_id: id, name: 'Renamed' });
        expect(res.status).toBe(400);
        expect(res.body.errors.avatar_id[0]).toMatchObject({ attribute: 'avatar_id', type: 'invalid' });
      }
      const [row] = await server.app.ds.query('SELECT avatar_attachment_id, name FROM groups WHERE id = ?', [w.group.id]);
      expect(Number(row.avatar_attachment_id)).toBe(image.id);
      expect(row.name).not.toBe('Renamed');
    });
  });

  describe('course and user files', () => {
    it('lets a teacher upload course files that the class can read', async () => {
      const room = await world.classroom();
      const bytes = Buffer.from('syllabus');
      const file = await uploadFile(room.teacher.api, `/api/v1/courses/${room.course.id}`, 'syllabus.txt', bytes, { parent_folder_path: 'docs' });
      expect(file).toMatchObject({ display_name: 'syllabus.txt', size: bytes.length, visibility_level: 'inherit' });
      const folder = await server.app.ds.query('SELECT full_name FROM folders WHERE id = ?', [file.folder_id]);
      expect(folder[0].full_name).toBe('course files/docs');
      expect((await room.student.api.get(`/api/v1/files/${file.id}`)).status).toBe(200);
      expect((await room.outsider.api.get(`/api/v1/files/${file.id}`)).status).toBe(403);
      expect((await download(file.url)).bytes.equals(bytes)).toBe(true);
    });

    it('refuses a student (403) and an observer, storing nothing', async () => {
      const room = await world.classroom();
      const before = await count(server, 'attachments');
      const res = await room.student.api.post(`/api/v1/courses/${room.course.id}/files`, { name: 'hack.txt', size: 4 });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
      expect((await room.observer.api.post(`/api/v1/courses/${room.course.id}/files`, { name: 'x.txt' })).status).toBe(403);
      expect((await room.teacher.api.post('/api/v1/courses/999999999/files', { name: 'x.txt' })).status).toBe(404);
      expect(await count(server, 'attachments')).toBe(before);
    });

    it('lets a user upload to their own files with self, and nobody else but a site admin', async () => {
      const [me, other] = await Promise.all([world.user('File Owner'), world.user('Nosy Other')]);
      const mine = await uploadFile(me.api, '/api/v1/users/self', 'diary.txt', Buffer.from('dear diary'));
      const folder = await server.app.ds.query('SELECT full_name, context_type, context_id FROM folders WHERE id = ?', [mine.folder_id]);
      expect(folder[0]).toMatchObject({ full_name: 'my files', context_type: 'User', context_id: me.id });
      expect((await other.api.post(`/api/v1/users/${me.id}/files`, { name: 'x.txt' })).status).toBe(403);
      expect((await other.api.get(`/api/v1/files/${mine.id}`)).status).toBe(403);
      expect((await server.admin.post(`/api/v1/users/${me.id}/files`, { name: 'by-admin.txt', size: 1 })).status).toBe(200);
    });
  });

  describe('files through GraphQL', () => {
    const CREATE = `mutation($input: CreateFileUploadInput!) { createFileUpload(input: $input) {
      uploadUrl uploadParams { name value } fileParam file { id _id uploadStatus displayName } errors { attribute type message } } }`;
    const CONFIRM = `mutation($input: ConfirmFileUploadInput!) { confirmFileUpload(input: $input) {
      file { id _id uploadStatus size contentType url displayName mimeClass } errors { attribute message } } }`;

    async function gqlUpload(member: WorldUser, groupId: number, name: string, bytes: Buffer) {
      const created = await member.api.graphql(CREATE, { input: { contextType: 'Group', contextId: String(groupId), name, size: bytes.length } });
      expect(created.errors).toBeUndefined();
      const p = created.data.createFileUpload;
      const ticket: UploadTicket = { upload_url: p.uploadUrl, file_param: p.fileParam, upload_params: Object.fromEntries(p.uploadParams.map((x: { name: string; value: string }) => [x.name, x.value])) };
      const up = await sendBytes(ticket, bytes, name);
      expect(up.status).toBe(201);
      return { pending: p.file, uploaded: up.body };
    }

    it('runs the upload with createFileUpload and confirmFileUpload, then file, node and Group.filesConnection', async () => {
      const w = await groupWorld();
      const { pending, uploaded } = await gqlUpload(w.member, w.group.id, 'gql.txt', Buffer.from('graphql bytes'));
      expect(pending).toMatchObject({ uploadStatus: 'pending', displayName: 'gql.txt' });
      const confirmed = await w.member.api.graphql(CONFIRM, { input: { id: pending.id, uuid: uploaded.uuid } });
      expect(confirmed.errors).toBeUndefined();
      expect(confirmed.data.confirmFileUpload.file).toMatchObject({ _id: String(uploaded.id), uploadStatus: 'success', size: 13, contentType: 'text/plain', mimeClass: 'text' });
      const q = await w.member.api.graphql(`query($id: ID!, $g: ID!) {
        file(id: $id) { _id displayName url }
        node(id: $id) { ... on File { _id } }
        legacyNode(type: File, _id: "${uploaded.id}") { id }
        group(id: $g) { filesConnection(first: 5) { totalCount nodes { _id displayName } } } }`, { id: pending.id, g: String(w.group.id) });
      expect(q.errors).toBeUndefined();
      expect(q.data.file).toMatchObject({ _id: String(uploaded.id), displayName: 'gql.txt', url: uploaded.url });
      expect(q.data.node._id).toBe(String(uploaded.id));
      expect(q.data.legacyNode.id).toBe(pending.id);
      expect(q.data.group.filesConnection).toEqual({ totalCount: 1, nodes: [{ _id: String(uploaded.id), displayName: 'gql.txt' }] });
      // Outsiders see no node, and the file query refuses them.
      expect((await w.outsider.api.graphql('query($id: ID!) { node(id: $id) { id } }', { id: pending.id })).data.node).toBeNull();
      const refused = await w.outsider.api.graphql('query($id: ID!) { file(id: $id) { _id } }', { id: pending.id });
      expect(refused.errors?.[0].extensions.code).toBe('FORBIDDEN');
    });

    it('reports refusals and bad input with codes and payload errors, storing nothing', async () => {
      const w = await groupWorld();
      const before = await count(server, 'attachments');
      const outsider = await w.outsider.api.graphql(CREATE, { input: { contextType: 'Group', contextId: String(w.group.id), name: 'x.txt' } });
      expect(outsider.errors?.[0].extensions.code).toBe('FORBIDDEN');
      const dup = await w.member.api.graphql(CREATE, { input: { contextType: 'Group', contextId: String(w.group.id), name: 'x.txt', onDuplicate: 'nope' } });
      expect(dup.errors?.[0]).toMatchObject({ message: 'invalid on_duplicate option', extensions: { code: 'REQUEST_ERROR' } });
      const neg = await w.member.api.graphql(CREATE, { input: { contextType: 'Group', contextId: String(w.group.id), name: 'x.txt', size: -5 } });
      expect(neg.data.createFileUpload).toMatchObject({ uploadUrl: null, errors: [{ attribute: 'size', type: 'invalid' }] });
      const kind = await w.member.api.graphql(CREATE, { input: { contextType: 'Account', contextId: '1', name: 'x.txt' } });
      expect(kind.errors?.[0].extensions.code).toBe('NOT_FOUND');
      expect(await count(server, 'attachments')).toBe(before);
    });
  });
});
