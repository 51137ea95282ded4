import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { count } from './support/content';
import type { TestServer } from './support/server';
import { STORAGE_KINDS, startFilesServer, TestStorage, UploadTicket } from './support/storage';
import type { World, WorldUser } from './support/world';

/**
 * Upload limits (issue 10, finding 7): the size is declared and checked against the quota before any
 * byte is sent, the upload reads no more than that size, and a request carries one file.
 */
let server: TestServer;
let world: World;
let storage: TestStorage;

async function preflight(user: WorldUser, contextPath: string, body: Record<string, unknown>): Promise<UploadTicket> {
  const pre = await user.api.post(`${contextPath}/files`, body);
  expect(pre.status).toBe(200);
  return pre.body;
}

function pendingState(ticket: UploadTicket): Promise<{ workflow_state: string; storage_key: string | null }[]> {
  const id = JSON.parse(Buffer.from(ticket.upload_params.Policy, 'base64').toString()).attachment_id;
  return server.app.ds.query('SELECT workflow_state, storage_key FROM attachments WHERE id = ?', [id]);
}

async function postForm(url: string, form: FormData, token?: string) {
  const res = await fetch(url, { method: 'POST', body: form, headers: token ? { Authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type'), body: text ? JSON.parse(text) : undefined };
}

const paramsForm = (ticket: UploadTicket) => {
  const form = new FormData();
  for (const [k, v] of Object.entries(ticket.upload_params)) form.append(k, v);
  return form;
};

/**
 * Step 2 over a raw connection: the upload params, then a file part whose bytes never end. The body is
 * written only as fast as the server reads it, so `sent` tells how much the server took before answering.
 */
function endlessUpload(ticket: UploadTicket): Promise<{ status: number; body: unknown; sent: number }> {
  const boundary = `----limits${randomBytes(8).toString('hex')}`;
  const head = Object.entries(ticket.upload_params)
    .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
    .join('');
  const filePart = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="endless.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = http.request(ticket.upload_url, { method: 'POST', headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` } });
    const pump = () => {
      while (!answered) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
    };
    req.on('response', (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(parts).toString()), sent });
      });
    });
    // Once answered, the server closes the connection: writes failing after that are expected.
    req.on('error', (e) => (answered ? undefined : reject(e)));
    req.write(head + filePart);
    pump();
  });
}

describe.each(STORAGE_KINDS)('files on %s storage', (kind) => {
  beforeAll(async () => ({ storage, server, world } = await startFilesServer(kind)));
  afterAll(() => server?.close());

  describe('preflight: the size is required and checked against the quota', () => {
    it('refuses a preflight without a size, or with one that is not a whole number of bytes, naming size (REST and GraphQL)', async () => {
      const room = await world.classroom();
      const me = room.student;
      const before = await count(server, 'attachments');
      for (const body of [{ name: 'a.txt' }, { name: 'a.txt', size: '' }, { name: 'a.txt', size: '1.5' }, { name: 'a.txt', size: '1e3' }, { name: 'a.txt', size: 'x' }, { name: 'a.txt', size: ['1'] }]) {
        const res = await me.api.post('/api/v1/users/self/files', body);
        expect(res.status).toBe(400);
        expect(res.body.errors.size[0]).toMatchObject({ attribute: 'size', type: expect.stringMatching(/^(required|invalid)$/) });
      }
      expect((await me.api.post('/api/v1/users/self/files', { name: 'a.txt' })).body.errors.size[0]).toEqual({ attribute: 'size', type: 'required', message: 'size is required' });
      // JSON bodies too, and the course and group doors.
      expect((await room.teacher.api.post(`/api/v1/courses/${room.course.id}/files`, { name: 'a.txt', size: 2.5 }, { json: true })).body.errors.size).toBeDefined();
      expect((await room.teacher.api.post(`/api/v1/courses/${room.course.id}/files`, { name: 'a.txt' }, { json: true })).body.errors.size).toBeDefined();
      const gql = await me.api.graphql(
        `mutation($input: CreateFileUploadInput!) { createFileUpload(input: $input) { uploadUrl errors { attribute type message } } }`,
        { input: { contextType: 'User', contextId: 'self', name: 'a.txt' } },
      );
      expect(gql.data.createFileUpload).toEqual({ uploadUrl: null, errors: [{ attribute: 'size', type: 'required', message: 'size is required' }] });
      expect(await count(server, 'attachments')).toBe(before);
    });

    it('refuses a size over what is left of the quota with Canvas\'s message, for user files (the path submissions use)', async () => {
      const me = await world.user('Quota User');
      const before = await count(server, 'attachments');
      const res = await me.api.post('/api/v1/users/self/files', { name: 'huge.bin', size: 2_000_000_000 });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'file size exceeds quota' });
      expect(await count(server, 'attachments')).toBe(before);
    });
  });

  describe('step 2: one file, no more bytes than declared', () => {
    it('refuses a second file part with 400, storing neither', async () => {
      const room = await world.classroom();
      const ticket = await preflight(room.teacher, `/api/v1/courses/${room.course.id}`, { name: 'one.txt', size: 5 });
      const disk = await storage.list();
      const form = paramsForm(ticket);
      form.append('file', new Blob([Buffer.from('first')]), 'one.txt');
      form.append('file', new Blob([Buffer.from('other')]), 'two.txt');
      const res = await postForm(ticket.upload_url, form);
      expect(res.status).toBe(400);
      expect(res.type).toMatch(/^application\/json/);
      expect(res.body).toEqual({ message: 'only one file may be sent per request' });
      expect(await storage.list()).toEqual(disk);
      expect(await pendingState(ticket)).toEqual([{ workflow_state: 'pending_upload', storage_key: null }]);
      // The same ticket still takes a proper upload of one file.
      const once = paramsForm(ticket);
      once.append('file', new Blob([Buffer.from('first')]), 'one.txt');
      expect((await postForm(ticket.upload_url, once)).status).toBe(201);
    });

    it('also refuses two file parts on a route that takes none (the preflight), storing nothing', async () => {
      const me = await world.user('Two Strays');
      const before = await count(server, 'attachments');
      const disk = await storage.list();
      const form = new FormData();
      form.append('name', 'x.txt');
      form.append('size', '3');
      form.append('a', new Blob([Buffer.from('aaa')]), 'a.bin');
      form.append('b', new Blob([Buffer.from('bbb')]), 'b.bin');
      const res = await postForm(`${server.url}/api/v1/users/self/files`, form, me.token);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'only one file may be sent per request' });
      expect(await count(server, 'attachments')).toBe(before);
      expect(await storage.list()).toEqual(disk);
    });

    it('stops reading at the declared size: an endless file is answered with 400 and leaves nothing on disk', async () => {
      const me = await world.user('Endless Uploader');
      const ticket = await preflight(me, '/api/v1/users/self', { name: 'small.bin', size: 1024 });
      const disk = await storage.list();
      const res = await endlessUpload(ticket);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'file size exceeds the size given at preflight' });
      // Socket buffers hold a few MB at most; reading on to the 500 MB parser cap would need far more.
      expect(res.sent).toBeLessThan(64 * 1024 * 1024);
      expect(await storage.list()).toEqual(disk);
      expect(await pendingState(ticket)).toEqual([{ workflow_state: 'pending_upload', storage_key: null }]);
    });

    it('refuses a file sent before a valid policy without reading it', async () => {
      const me = await world.user('Early File');
      const ticket = await preflight(me, '/api/v1/users/self', { name: 'early.bin', size: 1024 });
      const res = await endlessUpload({ ...ticket, upload_params: {} });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'Invalid or expired upload policy' });
      expect(res.sent).toBeLessThan(64 * 1024 * 1024);
    });

    it('refuses form fields past 10 MB with 413 instead of truncating them', async () => {
      const me = await world.user('Long Fields');
      const before = await count(server, 'attachments');
      const form = new FormData();
      form.append('name', 'n'.repeat(11 * 1024 * 1024));
      form.append('size', '3');
      const res = await postForm(`${server.url}/api/v1/users/self/files`, form, me.token);
      expect(res.status).toBe(413);
      expect(res.type).toMatch(/^application\/json/);
      expect(res.body).toEqual({ message: 'the form is too large' });
      expect(await count(server, 'attachments')).toBe(before);
    });

    it('answers a malformed multipart body with 400 and a JSON body', async () => {
      const me = await world.user('Malformed');
      const boundary = 'xyz';
      const body = `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nx.txt\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="f"\r\n\r\nunterminated`;
      const res = await fetch(`${server.url}/api/v1/users/self/files`, {
        method: 'POST',
        body,
        headers: { Authorization: `Bearer ${me.token}`, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({ errors: [{ message: 'the multipart body is malformed' }] });
      // No boundary at all.
      const bare = await fetch(`${server.url}/api/v1/users/self/files`, {
        method: 'POST',
        body: 'name=x',
        headers: { Authorization: `Bearer ${me.token}`, 'Content-Type': 'multipart/form-data' },
      });
      expect(bare.status).toBe(400);
      expect(await bare.json()).toEqual({ errors: [{ message: 'the multipart body is malformed' }] });
    });
  });
});
