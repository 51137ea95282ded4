/**
 * Shared helpers for the benches: boot the real server in-process on a fresh database, a small
 * REST/GraphQL client, a world builder that seeds through the public REST API, and table printing.
 *
 * Self-contained on purpose (no import from test/): tsconfig.json builds bench/ into dist/, and
 * pulling test/support in would also emit the test helpers into the production build output.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DataSource } from 'typeorm';
import type { Runtime } from '../src/request/runtime';
import { prepareApp } from '../src/app/bootstrap';
import { loadConfig } from '../src/config';
import type { CountingLogger } from '../src/db/query-counter';
import { buildServer, BuiltServer } from '../src/app/server';

// ---------------------------------------------------------------------------------------------
// Environment knobs

/** A positive integer from the environment, or the default. */
export function envInt(name: string, dflt: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number (got "${raw}")`);
  return n;
}

// ---------------------------------------------------------------------------------------------
// Database: a throwaway SQLite file by default (a file, so the hand-written baseline of `npm run bench`
// can open the same rows from its own process), or a uniquely named database on DATABASE_URL's MySQL/MariaDB

export interface BenchDatabase {
  url: string;
  kind: 'sqlite' | 'mysql';
  /** Human-readable description (never includes credentials). */
  label: string;
  drop(): Promise<void>;
}

export function benchDatabase(): BenchDatabase {
  const base = process.env.DATABASE_URL;
  if (!base || !base.startsWith('mysql://')) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lms-bench-'));
    return {
      url: `sqlite:${path.join(dir, 'bench.db')}`,
      kind: 'sqlite',
      label: 'sqlite (WAL file in a temporary directory, removed at the end)',
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `lms_bench_${process.pid}_${randomBytes(4).toString('hex')}`;
  const u = new URL(base);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    kind: 'mysql',
    label: `mysql ${u.hostname}:${u.port || 3306}/${name} (created for this run, dropped at the end)`,
    async drop() {
      const admin = new URL(base);
      admin.pathname = '/';
      const ds = new DataSource({ type: 'mysql', url: admin.toString() });
      await ds.initialize();
      try {
        await ds.query(`DROP DATABASE IF EXISTS \`${name}\``);
      } finally {
        await ds.destroy();
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Server

export interface BenchServer {
  url: string;
  port: number;
  app: Runtime;
  db: BenchDatabase;
  adminToken: string;
  /** The server's token hashing key (the hand-written baseline looks tokens up as the server does). */
  tokenKey: string;
  admin: Client;
  /** The CountingLogger of the data source: `total` counts every SQL statement since start. */
  logger: CountingLogger;
  as(token: string | null): Client;
  close(): Promise<void>;
}

/** Boots the real server (prepareApp + buildServer) on a free port against a fresh database. */
export async function startBenchServer(): Promise<BenchServer> {
  const db = benchDatabase();
  const adminToken = `bench-admin-${randomBytes(12).toString('hex')}`;
  const config = loadConfig({
    DATABASE_URL: db.url,
    LMS_ADMIN_TOKEN: adminToken,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'silent',
    PORT: '0',
    // The bench measures throughput of one token flooding the server, which the throttle exists to refuse.
    RATE_LIMIT: 'off',
  });
  let app: Runtime | undefined;
  let server: BuiltServer | undefined;
  try {
    app = (await prepareApp(config)).app;
    server = await buildServer(app);
    await server.fastify.listen({ port: 0, host: '127.0.0.1' });
  } catch (e) {
    await server?.close().catch(() => undefined);
    await app?.ds.destroy().catch(() => undefined);
    await db.drop().catch(() => undefined);
    throw e;
  }
  const port = (server.fastify.server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const built = server;
  const ds = app.ds;
  let closed = false;
  return {
    url,
    port,
    app,
    db,
    adminToken,
    tokenKey: app.tokenKey,
    admin: new Client(url, adminToken),
    logger: ds.logger as CountingLogger,
    as: (token) => new Client(url, token),
    async close() {
      if (closed) return;
      closed = true;
      try {
        await built.close();
      } finally {
        try {
          await ds.destroy();
        } finally {
          await db.drop();
        }
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Client

/** One request to a local server, its body read as text and, where it parses, as JSON. */
export async function fetchParsed(port: number, urlPath: string, init: RequestInit): Promise<{ status: number; headers: Headers; json: any; text: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${urlPath}`, init);
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

export interface ClientResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
  /** Size of the response body in bytes. */
  bytes: number;
}

type Body = Record<string, unknown> | undefined;

/** A small fetch-based client: REST calls with form or JSON bodies, and GraphQL. */
export class Client {
  constructor(
    readonly baseUrl: string,
    readonly token: string | null,
  ) {}

  async request<T = any>(method: string, path: string, body?: Body, opts: { json?: boolean } = {}): Promise<ClientResponse<T>> {
    const headers: Record<string, string> = {};
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    let payload: string | undefined;
    if (body !== undefined) {
      headers['Content-Type'] = opts.json ? 'application/json' : 'application/x-www-form-urlencoded';
      payload = opts.json ? JSON.stringify(body) : formEncode(body);
    }
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, body: payload });
    const buf = Buffer.from(await res.arrayBuffer());
    const text = buf.toString('utf8');
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text, bytes: buf.length };
  }

  get<T = any>(path: string) {
    return this.request<T>('GET', path);
  }
  post<T = any>(path: string, body: Body = {}) {
    return this.request<T>('POST', path, body);
  }
  graphql<T = any>(query: string, variables: Record<string, unknown> = {}) {
    return this.request<{ data?: T; errors?: { message: string }[] }>('POST', '/graphql', { query, variables }, { json: true });
  }
}

/** Form-encodes nested objects the way Canvas clients do: a[b]=1, x[]=1. */
export function formEncode(body: Record<string, unknown>): string {
  const pairs: [string, string][] = [];
  const walk = (prefix: string, v: unknown) => {
    if (v === undefined) return;
    if (Array.isArray(v)) for (const x of v) walk(`${prefix}[]`, x);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(prefix ? `${prefix}[${k}]` : k, x);
    else pairs.push([prefix, v === null ? '' : String(v)]);
  };
  walk('', body);
  return new URLSearchParams(pairs).toString();
}

function expectOk(res: ClientResponse, what: string): void {
  if (res.status >= 300) throw new Error(`${what} failed: HTTP ${res.status} ${res.text.slice(0, 300)}`);
}

// ---------------------------------------------------------------------------------------------
// World: seeded through the public REST API as the site admin, as a Canvas integration would

export interface BenchUser {
  id: number;
  name: string;
  /** Present when the user was created with `token: true`. */
  token?: string;
  api?: Client;
}

export type EnrollmentKind = 'StudentEnrollment' | 'TeacherEnrollment' | 'TaEnrollment' | 'DesignerEnrollment' | 'ObserverEnrollment';

/** Runs `fn` over `items` with at most `limit` in flight, keeping the input order in the result. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export class World {
  private seq = 0;
  constructor(readonly server: BenchServer) {}

  async user(name: string, opts: { token?: boolean } = {}): Promise<BenchUser> {
    const login = `${name.toLowerCase().replace(/\W+/g, '.')}.${++this.seq}.${randomBytes(2).toString('hex')}@example.com`;
    const created = await this.server.admin.post('/api/v1/accounts/self/users', { user: { name }, pseudonym: { unique_id: login } });
    expectOk(created, 'create user');
    const user: BenchUser = { id: created.body.id, name };
    if (opts.token) {
      const t = await this.server.admin.post(`/api/v1/users/${user.id}/tokens`, { token: { purpose: 'bench' } });
      expectOk(t, 'create token');
      user.token = t.body.visible_token;
      user.api = this.server.as(t.body.visible_token);
    }
    return user;
  }

  async users(prefix: string, count: number, opts: { token?: boolean } = {}): Promise<BenchUser[]> {
    const names = Array.from({ length: count }, (_, i) => `${prefix} ${String(i + 1).padStart(3, '0')}`);
    return mapLimit(names, 8, (n) => this.user(n, opts));
  }

  async course(name: string): Promise<{ id: number; name: string }> {
    const res = await this.server.admin.post('/api/v1/accounts/self/courses', { course: { name }, offer: 'true' });
    expectOk(res, 'create course');
    return res.body;
  }

  async section(courseId: number, name: string): Promise<{ id: number }> {
    const res = await this.server.admin.post(`/api/v1/courses/${courseId}/sections`, { course_section: { name } });
    expectOk(res, 'create section');
    return res.body;
  }

  async enroll(courseId: number, userId: number, type: EnrollmentKind, opts: { sectionId?: number } = {}): Promise<{ id: number }> {
    const res = await this.server.admin.post(`/api/v1/courses/${courseId}/enrollments`, {
      enrollment: { user_id: userId, type, enrollment_state: 'active', course_section_id: opts.sectionId },
    });
    expectOk(res, 'enroll');
    return res.body;
  }

  /**
   * A published course with one teacher (enrolled first) and `students` students spread round-robin
   * over `sections` extra sections (besides the course's default section).
   */
  async classroom(opts: { students: number; sections: number; name?: string }) {
    const course = await this.course(opts.name ?? 'Bench Course');
    const sections = await mapLimit(
      Array.from({ length: opts.sections }, (_, i) => `Section ${i + 1}`),
      8,
      (n) => this.section(course.id, n),
    );
    const teacher = await this.user('Tina Teacher', { token: true });
    await this.enroll(course.id, teacher.id, 'TeacherEnrollment');
    const students = await this.users('Student', opts.students, { token: false });
    // Sequential so enrollment ids follow student order (the list is ordered by id).
    for (const [i, s] of students.entries()) {
      await this.enroll(course.id, s.id, 'StudentEnrollment', { sectionId: sections.length ? sections[i % sections.length].id : undefined });
    }
    return { course, sections, teacher, students };
  }
}

// ---------------------------------------------------------------------------------------------
// Output

/** Prints a plain-text table; numeric-looking cells are right-aligned. */
export function printTable(headers: string[], rows: (string | number)[][]): void {
  const cells = rows.map((r) => r.map((c) => String(c)));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const numeric = (s: string) => /^[-+]?[\d.,]+(x|%| ms)?$/.test(s);
  const line = (r: string[]) =>
    r.map((c, i) => (numeric(c) && i > 0 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  console.log(line(headers));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of cells) console.log(line(r));
}

export function fmt(n: number, digits = 1): string {
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Runs a bench's main function, closing the server however it ends; failures exit non-zero. */
export async function runBench(main: (server: BenchServer) => Promise<void>): Promise<void> {
  let server: BenchServer | undefined;
  try {
    server = await startBenchServer();
    await main(server);
  } catch (e) {
    console.error(`bench failed: ${(e as Error).stack ?? String(e)}`);
    process.exitCode = 1;
  } finally {
    await server?.close().catch((e) => {
      console.error(`closing the server failed: ${(e as Error).message}`);
      process.exitCode = 1;
    });
  }
}
