import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DeleteObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { startTestServer, TestServer } from './server';
import { World } from './world';

/**
 * The file storage back ends the files suites run against: the local directory, and an S3-compatible
 * bucket on a real local S3 server (s3rver, in a temp dir on a free port), started per suite.
 */
export type StorageKind = 'local' | 's3';
export const STORAGE_KINDS: StorageKind[] = ['local', 's3'];

export interface TestStorage {
  kind: StorageKind;
  /** Environment for startTestServer / loadConfig (FILES_DIR always: temp uploads live there). */
  env: Record<string, string>;
  /** Every stored object (keys without S3_PREFIX) and every file under FILES_DIR (temp files too), sorted. */
  list(): Promise<string[]>;
  /** Deletes an object from the bucket (s3 only): a file lost behind the service's back. */
  deleteObject(key: string): Promise<void>;
  close(): Promise<void>;
}

/** Regular files under a directory, relative to it (posix separators). */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(path.relative(dir, p).split(path.sep).join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

export interface S3Server {
  endpoint: string;
  bucket: string;
  client: S3Client;
  /** Keys in the bucket under the prefix, without it. */
  keys(prefix: string): Promise<string[]>;
  /** Byte sizes of the objects under the prefix, by key without it. */
  sizes(prefix: string): Promise<Map<string, number>>;
  close(): Promise<void>;
}

const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** s3rver on 127.0.0.1 with one bucket, its data in a temp dir removed on close. */
export async function startS3Server(): Promise<S3Server> {
  // s3rver ships no types; it is a devDependency used only here.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const S3rver = require('s3rver');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lms-s3rver-'));
  const bucket = `lms-test-${randomBytes(4).toString('hex')}`;
  const server = new S3rver({ port: 0, address: '127.0.0.1', directory: dir, silent: true, configureBuckets: [{ name: bucket }] });
  const { port } = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: CREDENTIALS });
  const sizes = async (prefix: string) => {
    const out = new Map<string, number>();
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
      for (const o of page.Contents ?? []) out.set(o.Key!.slice(prefix.length), Number(o.Size ?? 0));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out;
  };
  return {
    endpoint,
    bucket,
    client,
    keys: async (prefix: string) => [...(await sizes(prefix)).keys()].sort(),
    sizes,
    async close() {
      client.destroy();
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The S3 settings of the service for a bucket of `s3`, with extra settings (S3_UPLOAD, S3_DOWNLOAD …). */
export function s3Env(s3: S3Server, prefix: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    FILES_STORAGE: 's3',
    S3_BUCKET: s3.bucket,
    S3_PREFIX: prefix,
    S3_ENDPOINT: s3.endpoint,
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    S3_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    S3_FORCE_PATH_STYLE: 'true',
    ...extra,
  };
}

export async function startTestStorage(kind: StorageKind, extra: Record<string, string> = {}): Promise<TestStorage> {
  const filesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lms-files-'));
  const removeDir = () => fs.rmSync(filesDir, { recursive: true, force: true });
  if (kind === 'local') {
    return {
      kind,
      env: { FILES_DIR: filesDir, ...extra },
      list: async () => filesUnder(filesDir),
      deleteObject: async () => {
        throw new Error('local storage has no bucket');
      },
      close: async () => removeDir(),
    };
  }
  const s3 = await startS3Server();
  const prefix = 'lms/';
  return {
    kind,
    env: { FILES_DIR: filesDir, ...s3Env(s3, prefix, extra) },
    // Bucket keys and local files together: with S3 nothing but transient temp files may be on disk.
    list: async () => [...(await s3.keys(prefix)), ...filesUnder(filesDir).map((f) => `local:${f}`)].sort(),
    deleteObject: async (key) => void (await s3.client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: `${prefix}${key}` }))),
    async close() {
      await s3.close();
      removeDir();
    },
  };
}

/**
 * The files suites' server for one describe.each(STORAGE_KINDS) block: storage, a server on it whose
 * close() closes the storage too, and a world.
 */
export async function startFilesServer(kind: StorageKind): Promise<{ storage: TestStorage; server: TestServer; world: World }> {
  const storage = await startTestStorage(kind);
  let server: TestServer;
  try {
    server = await startTestServer(storage.env);
  } catch (e) {
    // Nothing will close the storage otherwise (its S3 server, its temp directory).
    await storage.close();
    throw e;
  }
  const close = server.close.bind(server);
  server.close = async () => {
    await close();
    await storage.close();
  };
  return { storage, server, world: new World(server) };
}

/** A preflight's answer (step 1 of a Canvas upload): where step 2 posts, with which fields, and the file's field name. */
export interface UploadTicket {
  upload_url: string;
  upload_params: Record<string, string>;
  file_param: string;
}

/** Step 2 of an upload as a browser sends it: the ticket's fields, then the file; redirects not followed. */
export async function sendUploadForm(ticket: UploadTicket, bytes: Buffer, filename = 'upload.bin'): Promise<{ status: number; location: string | null; text: string }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(ticket.upload_params)) form.append(k, v);
  form.append(ticket.file_param, new Blob([bytes]), filename);
  const res = await fetch(ticket.upload_url, { method: 'POST', body: form, redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

/** A GET as a browser would make it (with a bearer token when given), redirects not followed. */
export async function fetchRaw(url: string, token?: string | null): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(url, { redirect: 'manual', headers: token ? { Authorization: `Bearer ${token}` } : {} });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}
