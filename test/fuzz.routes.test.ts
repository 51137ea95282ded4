import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { demo } from '../src/app/cli';
import type { CliSession } from '../src/cli/common';
import { openApiDocument } from '../src/rest/openapi';
import { restRoutes } from '../src/app/routes';
import type { RestRoute } from '../src/api/rest/route';
import { Api, formEncode } from './support/api';
import { demoRouteIds } from './support/route-ids';
import { startTestServer, TestServer } from './support/server';

/**
 * Property-based fuzz of the whole route table (seeded and bounded, so a failure replays): hostile
 * params and bodies, sent by a site admin (who reaches the deepest code) and by a student, must never
 * get a 5xx; every 4xx carries a JSON body; and a refused request changes no stored row.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const RUNS = Number(process.env.FUZZ_RUNS ?? 4);

let server: TestServer;
let filesDir: string;
let student: Api;
const ids = new Map<string, string>();

const HOSTILE_STRINGS = [
  '',
  ' ',
  '0',
  '-1',
  '1.5',
  '99999999999999999999',
  '9007199254740993',
  '1e400',
  'NaN',
  'Infinity',
  'null',
  'undefined',
  'true',
  'self',
  'sis_user_id:nobody',
  'sis_course_id:',
  "' OR 1=1 --",
  '%00',
  '\u0000',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  'bookmark:!!!',
  `bookmark:${Buffer.from('["x"]').toString('base64url')}`,
  '2026-13-45T99:99:99Z',
  'x'.repeat(70_000),
  '😀',
  'constructor',
  '__proto__',
];

const scalar = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double({ noNaN: false }),
  fc.boolean(),
  fc.constant(null),
);

const { value: hostile } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(fc.constantFrom('x', '0', '1', 'id', 'name', '__proto__', 'type', '[]'), tie('value'), { maxKeys: 3 })),
}));

/** The keys a route declares (from the same document the service serves), plus keys many routes read. */
const COMMON_KEYS = ['include', 'page', 'per_page', 'search_term', 'as_user_id', 'order', 'sort', 'context_codes', 'start_date', 'end_date', 'user_id', 'student_ids'];

function declaredKeys(route: RestRoute): string[] {
  const doc = openApiDocument([route], { version: 'fuzz' });
  const op = Object.values(doc.paths as Record<string, Record<string, any>>)[0][route.method.toLowerCase()];
  const keys = new Set<string>();
  for (const p of op.parameters ?? []) if (p.in === 'query') keys.add(p.name);
  const body = op.requestBody?.content?.['application/json']?.schema;
  for (const k of Object.keys(body?.properties ?? {})) keys.add(k);
  return [...keys];
}

/** A real id for a path param, found by the param's name or the path segment before `:id`. */
function pathId(route: RestRoute, name: string): string {
  if (name !== 'id') return ids.get(name) ?? '1';
  const segments = route.path.split('/');
  const before = segments[segments.indexOf(':id') - 1] ?? '';
  return ids.get(`id:${before}`) ?? '1';
}

/**
 * Columns that legitimately change outside the request under test: a token's coarse last_used_at
 * (authentication touches it, as Canvas does), the dispatcher's bookkeeping on outbox rows, and module
 * progressions, a read-through cache of derived state that any read re-evaluates when an earlier
 * (accepted) request marked it stale.
 */
function stableColumns(table: string, row: Record<string, unknown>): Record<string, unknown> {
  if (table === 'access_tokens') return Object.fromEntries(Object.entries(row).filter(([k]) => !/^last_?used_?at$/i.test(k)));
  if (table === 'outbox_messages') return Object.fromEntries(Object.entries(row).filter(([k]) => /^(id|message_?id|subscription_?id|event_?name|payload)$/i.test(k)));
  if (table === 'module_progressions') return {};
  return row;
}

async function rowsDigest(): Promise<string> {
  const hash = createHash('sha256');
  for (const meta of [...server.app.ds.entityMetadatas].sort((a, b) => a.tableName.localeCompare(b.tableName))) {
    // The dispatcher's per-attempt log grows in the background while earlier (accepted) events are delivered.
    if (meta.tableName === 'webhook_attempts') continue;
    const rows: Record<string, unknown>[] = await server.app.ds.query(`SELECT * FROM ${server.app.ds.driver.escape(meta.tableName)}`);
    hash.update(meta.tableName).update(JSON.stringify(rows.map((r) => stableColumns(meta.tableName, r))));
  }
  return hash.digest('hex');
}

async function firstId(table: string, column = 'id', where = '1=1'): Promise<string | undefined> {
  const rows = await server.app.ds.query(`SELECT ${column} AS v FROM ${server.app.ds.driver.escape(table)} WHERE ${where} ORDER BY 1 LIMIT 1`);
  return rows[0]?.v == null ? undefined : String(rows[0].v);
}

beforeAll(async () => {
  filesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lms-fuzz-files-'));
  server = await startTestServer({ FILES_DIR: filesDir });
  // The demo seeds every area (groups, modules, planner, quizzes, blackout dates, webhooks …).
  let printed = '';
  const session = { config: server.app.config, app: server.app, installation: { rootAccountId: 1, adminUserId: 1 } } as unknown as CliSession;
  const result = await demo(session, { write: (t: string) => (printed += t) });
  const studentRow = result.rows.find((r) => r.role === 'student')!;
  student = server.as(studentRow.token);
  expect(printed).toContain('Seeded the demo');

  await demoRouteIds(ids, firstId, result.courseId, studentRow.userId!);
}, 120_000);

afterAll(async () => {
  await server?.close();
  fs.rmSync(filesDir, { recursive: true, force: true });
});

interface Sent {
  caller: 'admin' | 'student';
  path: string;
  params: Record<string, unknown>;
  json: boolean;
}

async function send(route: RestRoute, req: Sent) {
  const api = req.caller === 'admin' ? server.admin : student;
  const withBody = route.method === 'POST' || route.method === 'PUT';
  if (withBody) return api.request(route.method, req.path, req.params, { json: req.json });
  const query = formEncode(req.params);
  return api.request(route.method, query ? `${req.path}?${query}` : req.path);
}

// Reads first, then writes, deletes last: a fuzzed request that succeeds must not empty the world early.
const ORDER = { GET: 0, POST: 1, PUT: 2, DELETE: 3 } as const;
const routes = [...restRoutes].sort((a, b) => ORDER[a.method] - ORDER[b.method]);

describe('fuzzing every REST route with hostile params', () => {
  it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s: no 5xx, JSON 4xx, refused requests store nothing', async (_name, route) => {
    const keys = [...new Set([...declaredKeys(route), ...COMMON_KEYS])];
    const pathNames = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
    const request = fc.record({
      caller: fc.constantFrom<'admin' | 'student'>('admin', 'student'),
      params: fc.dictionary(fc.constantFrom(...keys), hostile, { maxKeys: 4 }),
      json: fc.boolean(),
      // Mostly real ids (to reach deep code), sometimes a hostile path segment.
      hostilePath: fc.option(fc.tuple(fc.constantFrom(...(pathNames.length ? pathNames : ['-'])), fc.constantFrom(...HOSTILE_STRINGS.filter(Boolean))), { freq: 4 }),
    });
    await fc.assert(
      fc.asyncProperty(request, async ({ caller, params, json, hostilePath }) => {
        const p = route.path.replace(/:(\w+)/g, (_m, name: string) =>
          encodeURIComponent(hostilePath && hostilePath[0] === name ? hostilePath[1].slice(0, 90) : pathId(route, name)),
        );
        const before = await rowsDigest();
        const res = await send(route, { caller, path: p, params, json });
        const what = `${route.method} ${p} ${JSON.stringify(params).slice(0, 300)} as ${caller} (${json ? 'json' : 'form'}) → ${res.status} ${res.text.slice(0, 200)}`;
        if (res.status >= 500) throw new Error(`5xx: ${what}`);
        if (res.status >= 400) {
          if (!String(res.headers.get('content-type')).includes('json') || res.body === undefined) throw new Error(`4xx without a JSON body: ${what}`);
          if ((await rowsDigest()) !== before) throw new Error(`refused request changed stored rows: ${what}`);
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  });
});

/**
 * The validator is an ES module, which jest's CommonJS runtime cannot load; it runs in a child
 * process of its own instead.
 */
function validateOpenApi(doc: unknown): { valid: boolean; errors?: unknown } {
  const file = path.join(filesDir, 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(doc));
  const script = `import('@seriousme/openapi-schema-validator').then(async ({ Validator }) => {
    const r = await new Validator().validate(JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8')));
    process.stdout.write(JSON.stringify({ valid: r.valid, errors: r.errors }));
  })`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script, file], { cwd: path.join(__dirname, '..'), encoding: 'utf8' }));
}

describe('the OpenAPI document', () => {
  it('is served and lists every route of the table with its declared params', async () => {
    const res = await server.as(null).get('/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const missing = restRoutes.filter((r) => !res.body.paths[r.path.replace(/:(\w+)/g, '{$1}')]?.[r.method.toLowerCase()]);
    expect(missing.map((r) => `${r.method} ${r.path}`)).toEqual([]);
    const undeclared = restRoutes.filter((r) => !r.accepts);
    expect(undeclared.map((r) => `${r.method} ${r.path}`)).toEqual([]);
    // It is a valid OpenAPI 3.1 document, checked by an independent validator.
    const checked = validateOpenApi(res.body);
    expect(checked.errors ?? []).toEqual([]);
    expect(checked.valid).toBe(true);
    // Path params are documented as required path parameters.
    const groupGet = res.body.paths['/api/v1/groups/{group_id}']?.get;
    expect(groupGet.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'group_id', in: 'path', required: true })]));
  });
});
