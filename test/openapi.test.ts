import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { restRoutes } from '../src/app/routes';
import { startTestServer, TestServer } from './support/server';
import { answerProblem } from './support/response-schemas';

/**
 * The OpenAPI document generates clients: every row declares the Canvas JSON it answers (named schemas
 * under components/schemas), Redocly's recommended rules report no error, and a client generated with
 * openapi-typescript types the answers (test/support/response-schemas.ts holds every answer the suite
 * produces to the same schemas).
 */
let server: TestServer;
let doc: any;
let dir: string;

beforeAll(async () => {
  server = await startTestServer();
  doc = (await server.as(null).get('/api/openapi.json')).body;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-'));
  fs.writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(doc));
});
afterAll(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const ROOT = path.join(__dirname, '..');
/** A dev dependency's executable: the project's own, else one from OPENAPI_TOOLS_BIN (a separate install). */
function tool(name: string): string {
  for (const bin of [path.join(ROOT, 'node_modules', '.bin'), process.env.OPENAPI_TOOLS_BIN].filter(Boolean) as string[]) {
    const file = path.join(bin, name);
    if (fs.existsSync(file)) return file;
  }
  throw new Error(`${name} is not installed: run npm install (it is a devDependency)`);
}
const QUIET = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

describe('the OpenAPI document', () => {
  it('declares the answer of every route with shared, named schemas', () => {
    expect(doc.servers?.length).toBeGreaterThan(0);
    const schemas = doc.components.schemas as Record<string, unknown>;
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(['Course', 'User', 'Group', 'Assignment', 'DiscussionTopic', 'ModuleItem', 'PlannerItem', 'File']));
    const untyped: string[] = [];
    const refs = new Set<string>();
    for (const [p, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [status, res] of Object.entries(op.responses as Record<string, any>)) {
          if (!/^2/.test(status) || status === '204') continue;
          const schema = res.content?.['application/json']?.schema;
          if (!schema || Object.keys(schema).length === 0) untyped.push(`${method.toUpperCase()} ${p} ${status}`);
        }
      }
    }
    expect(untyped).toEqual([]);
    JSON.stringify(doc, (k, v) => (k === '$ref' ? refs.add(v) : v));
    // Every reference resolves, and the course rows share one schema.
    for (const ref of refs) expect(schemas[ref.replace('#/components/schemas/', '')]).toBeDefined();
    const course = (p: string, m: string) => doc.paths[p][m].responses['200'].content['application/json'].schema;
    expect(course('/api/v1/courses/{id}', 'get')).toEqual({ $ref: '#/components/schemas/Course' });
    expect(course('/api/v1/courses', 'get')).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Course' } });
    // Only a 204 or a redirect goes without a declared answer.
    expect(restRoutes.filter((r) => !r.response && r.status !== 204 && !r.redirect).map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });

  it('lists path params as path parameters only, never as required body fields', () => {
    const op = doc.paths['/api/v1/accounts/{account_id}/users'].post;
    expect(op.parameters).toEqual([expect.objectContaining({ name: 'account_id', in: 'path', required: true })]);
    const body = op.requestBody.content['application/json'].schema;
    expect(body.properties.account_id).toBeUndefined();
    expect(body.required ?? []).not.toContain('account_id');
    // One Canvas path, one parameter name (OpenAPI cannot tell two apart).
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/api/v1/group_categories/{') && p.endsWith('}/groups'))).toEqual(['/api/v1/group_categories/{group_category_id}/groups']);
  });

  it('passes redocly lint (recommended rules) without errors or warnings', () => {
    let output = '';
    try {
      output = execFileSync(tool('redocly'), ['lint', path.join(dir, 'openapi.json'), '--config', path.join(ROOT, 'redocly.yaml'), '--format=json', '--max-problems=1000'], { encoding: 'utf8', env: QUIET, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e: any) {
      output = e.stdout;
    }
    const problems = (JSON.parse(output).problems as { ruleId: string; severity: string; message: string }[]).map((p) => `${p.severity} ${p.ruleId}: ${p.message}`);
    expect(problems).toEqual([]);
  }, 120_000);

  it('generates a typed client with openapi-typescript that types the answers', () => {
    execFileSync(tool('openapi-typescript'), [path.join(dir, 'openapi.json'), '-o', path.join(dir, 'api.d.ts')], { env: QUIET, stdio: 'pipe' });
    const calls = `import type { paths, components } from './api';
type Answer<P extends keyof paths, M extends 'get' | 'post' | 'put' | 'delete', S extends number = 200> =
  paths[P][M] extends { responses: Record<S, { content: { 'application/json': infer T } }> } ? T : never;
declare function call<P extends keyof paths, M extends 'get' | 'post' | 'put' | 'delete', S extends number = 200>(p: P, m: M): Answer<P, M, S>;

const course = call('/api/v1/courses/{id}', 'get');
const id: number = course.id;
const name: string = course.name;
const start: string | null = course.start_at;
// @ts-expect-error a course has no such field
course.no_such_field;
const courses = call('/api/v1/courses', 'get');
const first: components['schemas']['Course'] | undefined = courses[0];
const memberships = call('/api/v1/groups/{group_id}/memberships', 'get');
const userId: number = memberships[0].user_id;
const quiz = call('/api/v1/courses/{course_id}/quizzes/{quiz_id}/submissions', 'post');
const attempt: number = quiz.quiz_submissions[0].attempt;
const sub = call<'/api/v1/courses/{course_id}/assignments/{assignment_id}/submissions', 'post', 201>('/api/v1/courses/{course_id}/assignments/{assignment_id}/submissions', 'post');
const comments: unknown[] = sub.submission_comments;
// @ts-expect-error an id is a number, not a string
const wrong: string = course.id;
export { id, name, start, first, userId, attempt, comments, wrong };
`;
    fs.writeFileSync(path.join(dir, 'calls.ts'), calls);
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    let out = '';
    try {
      execFileSync(process.execPath, [tsc, '--noEmit', '--strict', '--skipLibCheck', '--target', 'es2022', '--module', 'commonjs', path.join(dir, 'calls.ts')], { encoding: 'utf8', stdio: 'pipe' });
    } catch (e: any) {
      out = `${e.stdout}${e.stderr}`;
    }
    expect(out).toBe('');
  }, 120_000);
});

describe('the response schema check of the test servers', () => {
  it('passes a real answer and fails one with an undeclared field or a wrong type', async () => {
    const res = await server.admin.get('/api/v1/users/self');
    expect(res.status).toBe(200);
    const check = (body: unknown) => answerProblem('GET', '/api/v1/users/:id', 200, 'application/json; charset=utf-8', JSON.stringify(body));
    expect(check(res.body)).toBeNull();
    expect(check({ ...res.body, secret_field: 'x' })).toMatch(/must NOT have additional properties \(secret_field\)/);
    expect(check({ ...res.body, name: 5 })).toMatch(/\/name must be string/);
    const { name: _dropped, ...withoutName } = res.body;
    expect(check(withoutName)).toMatch(/must have required property 'name'/);
  });
});
