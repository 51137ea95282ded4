import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { demo } from '../src/app/cli';
import type { CliSession } from '../src/cli/common';
import { restRoutes } from '../src/app/routes';
import type { RestRoute } from '../src/api/rest/route';
import type { Api } from './support/api';
import { demoRouteIds } from './support/route-ids';
import { startTestServer, TestServer } from './support/server';

/**
 * Rails reads an empty request body as no params, whatever Content-Type it is declared with: some
 * Canvas clients send `Content-Type: application/json` on every request, DELETE and PUT without a
 * body included. Every route of the table must answer such a request as it answers one without a body.
 */
let server: TestServer;
let filesDir: string;
let student: Api;
let studentToken: string;
const ids = new Map<string, string>();

/** A real id for a path param, found by the param's name or the path segment before `:id`. */
function pathId(route: RestRoute, name: string): string {
  if (name !== 'id') return ids.get(name) ?? '1';
  const segments = route.path.split('/');
  const before = segments[segments.indexOf(':id') - 1] ?? '';
  return ids.get(`id:${before}`) ?? '1';
}

async function firstId(table: string, column = 'id'): Promise<string | undefined> {
  const rows = await server.app.ds.query(`SELECT ${column} AS v FROM ${server.app.ds.driver.escape(table)} ORDER BY 1 LIMIT 1`);
  return rows[0]?.v == null ? undefined : String(rows[0].v);
}

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: any;
}

/** A request framed exactly as given (fetch always adds a Content-Length, some clients do not). */
function raw(method: string, p: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.url}${p}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

beforeAll(async () => {
  filesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lms-empty-body-'));
  server = await startTestServer({ FILES_DIR: filesDir });
  const session = { config: server.app.config, app: server.app, installation: { rootAccountId: 1, adminUserId: 1 } } as unknown as CliSession;
  const result = await demo(session, { write: () => undefined });
  const studentRow = result.rows.find((r) => r.role === 'student')!;
  studentToken = studentRow.token!;
  student = server.as(studentToken);

  await demoRouteIds(ids, firstId, result.courseId, studentRow.userId!);
}, 120_000);

afterAll(async () => {
  await server?.close();
  fs.rmSync(filesDir, { recursive: true, force: true });
});

const summary = (res: Raw) => ({ status: res.status, body: res.body, json: String(res.headers['content-type']).includes('json') });

// Reads first, then writes, deletes last: an accepted request must not empty the world early.
const ORDER = { GET: 0, POST: 1, PUT: 2, DELETE: 3 } as const;
const routes = [...restRoutes].sort((a, b) => ORDER[a.method] - ORDER[b.method]);

describe('an empty body under Content-Type: application/json', () => {
  it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s: answered as a request without a body', async (_name, route) => {
    const p = route.path.replace(/:(\w+)/g, (_m, name: string) => encodeURIComponent(pathId(route, name)));
    for (const [who, token] of [['student', studentToken], ['admin', server.adminToken]]) {
      const auth = { Authorization: `Bearer ${token}` };
      const empty = await raw(route.method, p, { ...auth, 'Content-Type': 'application/json', 'Content-Length': '0' });
      const what = `${route.method} ${p} as ${who} → ${empty.status} ${empty.text.slice(0, 200)}`;
      expect({ what, status: empty.status < 500 }).toEqual({ what, status: true });
      if (empty.status >= 400) {
        // Refused requests store nothing (the fuzz holds every route to that), so the same request
        // without a body meets the same world and must get the same answer.
        const none = await raw(route.method, p, auth);
        expect({ what, ...summary(empty) }).toEqual({ what, ...summary(none) });
      }
    }
  });
});

describe('empty bodies however framed, and malformed ones', () => {
  const notes = '/api/v1/planner_notes';
  const auth = () => ({ Authorization: `Bearer ${studentToken}` });

  async function note(): Promise<number> {
    const res = await student.post(notes, { title: 'empty-body note', todo_date: '2026-03-01T10:00:00Z' });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  it.each([
    ['application/json with Content-Length: 0', { 'Content-Type': 'application/json', 'Content-Length': '0' }],
    ['application/json; charset=utf-8 with no Content-Length', { 'Content-Type': 'application/json; charset=utf-8' }],
    ['application/json, chunked with no chunks', { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }],
    ['multipart/form-data', { 'Content-Type': 'multipart/form-data; boundary=x', 'Content-Length': '0' }],
    ['an unsupported type', { 'Content-Type': 'application/xml', 'Content-Length': '0' }],
    ['text/plain', { 'Content-Type': 'text/plain', 'Content-Length': '0' }],
  ])('DELETE and PUT with %s are answered as without a body', async (_name, headers) => {
    const id = await note();
    const put = await raw('PUT', `${notes}/${id}`, { ...auth(), ...headers });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id, title: 'empty-body note' });
    const del = await raw('DELETE', `${notes}/${id}`, { ...auth(), ...headers });
    expect(del.status).toBe(200);
    expect((await student.get(`${notes}/${id}`)).status).toBe(404);
  });

  it('a POST with an empty JSON body is validated as one without params', async () => {
    const empty = await raw('POST', notes, { ...auth(), 'Content-Type': 'application/json', 'Content-Length': '0' });
    const none = await raw('POST', notes, { ...auth(), 'Content-Length': '0' });
    expect(empty.status).toBe(none.status);
    expect(empty.body).toEqual(none.body);
  });

  it.each([['{'], ['{"title": '], ['not json'], [' '], ['\n']])('a malformed JSON body %j stays a 400 with a JSON error', async (body) => {
    const res = await raw('POST', notes, { ...auth(), 'Content-Type': 'application/json' }, body);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/json/);
    expect(res.body.errors[0].message).toEqual(expect.any(String));
  });

  it('a non-empty body of an unsupported type is still a 415', async () => {
    const res = await raw('POST', notes, { ...auth(), 'Content-Type': 'application/xml' }, '<note/>');
    expect(res.status).toBe(415);
    expect(res.headers['content-type']).toMatch(/json/);
  });
});
