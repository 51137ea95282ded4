import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../src/app/cli';
import { Api } from './support/api';
import { testDatabase, TestDatabase } from './support/db';
import { startTestServer, TestServer } from './support/server';
import { S3Server, s3Env, startS3Server } from './support/storage';
import { World } from './support/world';

/** Collects what a command prints. */
class Sink {
  text = '';
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

/**
 * `npm run cli -- files migrate`: a deployment that kept its files under FILES_DIR copies them into
 * the bucket, then serves them from there (FILES_STORAGE=s3), on the same database.
 */
describe('cli files migrate', () => {
  let s3: S3Server;
  let db: TestDatabase;
  let dir: string;
  let filesDir: string;
  let local: TestServer;
  let env: Record<string, string>;
  const PREFIX = 'migrated/';
  const uploaded: { id: number; uuid: string; bytes: Buffer }[] = [];

  const run = async (argv: string[], extra: Record<string, string> = {}) => {
    const out = new Sink();
    const err = new Sink();
    const code = await runCli(argv, { out, err, env: { ...env, ...extra } });
    return { code, out: out.text, err: err.text };
  };

  beforeAll(async () => {
    s3 = await startS3Server();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lms-cli-files-'));
    filesDir = path.join(dir, 'files');
    const base = testDatabase();
    await base.ready?.();
    // The server and the CLI open the same database: a file on SQLite, the test database on MariaDB.
    db = base.kind === 'mysql' ? base : { url: `sqlite:${path.join(dir, 'lms.sqlite')}`, kind: 'sqlite', drop: async () => undefined };
    env = { DATABASE_URL: db.url, LOG_LEVEL: 'silent', FILES_DIR: filesDir };
    local = await startTestServer({ DATABASE_URL: db.url, FILES_DIR: filesDir });
    const me = await new World(local).user('Files Owner');
    for (const text of ['first file', 'second file', 'third file, lost']) {
      const bytes = Buffer.from(text);
      const pre = await me.api.post('/api/v1/users/self/files', { name: `${text}.txt`, size: bytes.length });
      const form = new FormData();
      for (const [k, v] of Object.entries(pre.body.upload_params as Record<string, string>)) form.append(k, v);
      form.append('file', new Blob([bytes]), 'f.txt');
      const up = await fetch(pre.body.upload_url, { method: 'POST', body: form });
      expect(up.status).toBe(201);
      const done = await me.api.get(up.headers.get('location')!.replace(local.url, ''));
      expect(done.status).toBe(200);
      uploaded.push({ id: done.body.id, uuid: done.body.uuid, bytes });
    }
    // One file's bytes went missing from the disk: there is nothing to copy for it.
    const [lost] = await local.app.ds.query('SELECT storage_key FROM attachments WHERE id = ?', [uploaded[2].id]);
    fs.rmSync(path.join(filesDir, lost.storage_key));
  });
  afterAll(async () => {
    await local?.close();
    await db?.drop();
    await s3?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses to run without a bucket configured, and refuses unknown subcommands and options', async () => {
    const r = await run(['files', 'migrate']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('set FILES_STORAGE=s3');
    expect(await run(['files'])).toMatchObject({ code: 1, err: expect.stringContaining('files: unknown subcommand') });
    expect(await run(['files', 'copy'])).toMatchObject({ code: 1, err: expect.stringContaining('unknown subcommand "copy"') });
    expect(await run(['files', 'migrate', '--frob'], s3Env(s3, PREFIX))).toMatchObject({ code: 1, err: expect.stringContaining("Unknown option '--frob'") });
    expect(await s3.keys(PREFIX)).toEqual([]);
  });

  it('copies the stored files into the bucket under their keys, reports counts, and copies nothing twice', async () => {
    const first = await run(['files', 'migrate'], s3Env(s3, PREFIX));
    expect(first.code).toBe(0);
    expect(first.out).toContain(`Files: 3 stored; copied 2 to s3://${s3.bucket}/${PREFIX}, 0 already there, 1 missing.`);
    expect(first.err).toContain(`attachment ${uploaded[2].id}: no bytes under FILES_DIR or in the bucket`);
    const keys = await local.app.ds.query('SELECT storage_key FROM attachments WHERE id IN (?, ?) ORDER BY storage_key', [uploaded[0].id, uploaded[1].id]);
    expect(await s3.keys(PREFIX)).toEqual(keys.map((k: { storage_key: string }) => k.storage_key).sort());
    // The secret key is configuration, never output.
    expect(first.out + first.err).not.toContain('S3RVER');

    const again = await run(['files', 'migrate'], s3Env(s3, PREFIX));
    expect(again.code).toBe(0);
    expect(again.out).toContain('copied 0 to');
    expect(again.out).toContain('2 already there, 1 missing.');
  });

  it('leaves a server on the bucket serving the migrated files', async () => {
    const onS3 = await startTestServer({ DATABASE_URL: db.url, FILES_DIR: path.join(dir, 'scratch'), ...s3Env(s3, PREFIX) });
    try {
      // The local copies are gone: the bytes come from the bucket.
      fs.rmSync(path.join(filesDir, 'store'), { recursive: true, force: true });
      for (const f of uploaded.slice(0, 2)) {
        const res = await fetch(`${onS3.url}/files/${f.id}/download?verifier=${f.uuid}`);
        expect(res.status).toBe(200);
        expect(Buffer.from(await res.arrayBuffer()).equals(f.bytes)).toBe(true);
      }
      const lost = await new Api(onS3.url, null).get(`/files/${uploaded[2].id}/download?verifier=${uploaded[2].uuid}`);
      expect(lost.status).toBe(404);
    } finally {
      await onS3.close();
    }
  });
});
