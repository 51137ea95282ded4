import type { AddressInfo } from 'node:net';
import { buildServer, BuiltServer } from '../src/app/server';
import { CourseService } from '../src/courses/course.service';
import { GraphqlFastPath } from '../src/graphql/fast-path';
import { startTestServer, TestServer } from './support/server';
import { World, WorldUser } from './support/world';

/**
 * The GraphQL fast path (src/graphql/fast-path.ts) answers exactly as Apollo does: every request of a
 * corpus goes to a server with the fast path on (three times: Apollo's first answer, then cached
 * answers) and to one with GRAPHQL_FAST_PATH=off on the same database (twice), and the status, content
 * type, headers and body must be the same. The corpus also says which requests the fast path must
 * answer itself, so equality cannot come from it never running.
 */

interface Pair {
  fast: TestServer;
  slow: { url: string; server: BuiltServer };
}

async function startPair(env: Record<string, string>): Promise<Pair> {
  // One PUBLIC_URL, so absolute URLs in answers (e.g. the graphql-ws endpoint) do not name the port.
  const fast = await startTestServer({ PUBLIC_URL: 'http://lms.example', ...env });
  const server = await buildServer({ ...fast.app, config: { ...fast.app.config, GRAPHQL_FAST_PATH: 'off' } });
  await server.fastify.listen({ port: 0, host: '127.0.0.1' });
  return { fast, slow: { url: `http://127.0.0.1:${(server.fastify.server.address() as AddressInfo).port}`, server } };
}

async function stopPair(p: Pair | undefined): Promise<void> {
  await p?.slow.server.close();
  await p?.fast.close();
}

interface Req {
  body?: unknown;
  /** A raw body, sent as it is. */
  raw?: string;
  token?: string | null;
  headers?: Record<string, string>;
  method?: string;
  path?: string;
}

/** Headers whose values differ between any two requests (or servers), whatever answered them. */
const VARYING = new Set(['date', 'x-request-id', 'connection', 'keep-alive', 'x-request-cost', 'x-rate-limit-remaining']);

async function send(base: string, r: Req): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...r.headers };
  if (r.token) headers.authorization = `Bearer ${r.token}`;
  const method = r.method ?? 'POST';
  const body = method === 'GET' ? undefined : (r.raw ?? JSON.stringify(r.body));
  const res = await fetch(`${base}${r.path ?? '/graphql'}`, { method, headers, body });
  const shown: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    shown[name] = VARYING.has(name) ? '(varies)' : value;
  });
  return { status: res.status, headers: shown, body: await res.text() };
}

/** How many requests the fast path answered itself (not handed to Apollo). */
let answered = 0;
const answer = (GraphqlFastPath.prototype as any).answer as (...args: unknown[]) => Promise<unknown>;
jest.spyOn(GraphqlFastPath.prototype as any, 'answer').mockImplementation(async function (this: unknown, ...args: unknown[]) {
  const out = await answer.apply(this, args);
  if (out !== null) answered++;
  return out;
});

/** Sends `r` to both servers (fast: three times, the first one Apollo's) and compares every answer; returns the fast path's count. */
async function compare(p: Pair, r: Req | (() => Req)): Promise<{ fastAnswers: number; status: number; body: string }> {
  const make = typeof r === 'function' ? r : () => r;
  const before = answered;
  const reference = await send(p.slow.url, make());
  const fast = [];
  for (let i = 0; i < 3; i++) fast.push(await send(p.fast.url, make()));
  const fastAnswers = answered - before;
  const again = await send(p.slow.url, make());
  for (const got of [...fast, again]) expect(got).toEqual(reference);
  return { fastAnswers, status: reference.status, body: reference.body };
}

describe('GraphQL fast path against Apollo', () => {
  let pair: Pair;
  let teacher: WorldUser;
  let student: WorldUser;
  let outsider: WorldUser;
  let courseId: number;
  let trap: 'internal' | 'unavailable' | null = null;

  beforeAll(async () => {
    pair = await startPair({ GRAPHQL_MAX_COMPLEXITY: '150', GRAPHQL_MAX_RESOLVER_CALLS: '8', GRAPHQL_MAX_RESPONSE_BYTES: '2048' });
    const room = await new World(pair.fast).classroom();
    ({ teacher, student, outsider } = room);
    courseId = room.course.id;
    const find = CourseService.prototype.find;
    jest.spyOn(CourseService.prototype, 'find').mockImplementation(function (this: CourseService, ...args) {
      if (trap === 'internal') throw new Error('connect to db1.internal:3306 failed: SELECT * FROM courses');
      if (trap === 'unavailable') throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:3306'), { code: 'ECONNREFUSED' });
      return find.apply(this, args);
    });
  });
  afterAll(() => stopPair(pair));

  const course = 'query C($id: ID!) { course(id: $id) { _id name } }';
  const doc3 = 'query A { viewer { name } } query B { __typename } mutation M($id: ID!) { updateCourse(input: { id: $id, name: "Biology 101" }) { course { name } } }';

  // Each: the request, and whether the fast path must answer its repeats itself.
  const corpus: [string, () => Req, boolean][] = [
    ['anonymous { __typename }', () => ({ body: { query: '{ __typename }' } }), true],
    ['a query with variables', () => ({ token: teacher.token, body: { query: course, variables: { id: String(courseId) } } }), true],
    ['null variables and operationName', () => ({ token: teacher.token, body: { query: '{ viewer { name } }', variables: null, operationName: null } }), true],
    ['a variable of the wrong type', () => ({ token: teacher.token, body: { query: course, variables: { id: { x: 1 } } } }), true],
    ['a missing variable', () => ({ token: teacher.token, body: { query: course, variables: {} } }), true],
    ['NOT_FOUND from a resolver', () => ({ token: teacher.token, body: { query: course, variables: { id: '987654' } } }), true],
    ['FORBIDDEN from a resolver', () => ({ token: outsider.token, body: { query: course, variables: { id: String(courseId) } } }), true],
    ['operation A of three', () => ({ token: teacher.token, body: { query: doc3, operationName: 'A' } }), true],
    ['operation B of three', () => ({ token: teacher.token, body: { query: doc3, operationName: 'B' } }), true],
    ['mutation M of three (teacher)', () => ({ token: teacher.token, body: { query: doc3, operationName: 'M', variables: { id: String(courseId) } } }), true],
    ['mutation M of three (student)', () => ({ token: student.token, body: { query: doc3, operationName: 'M', variables: { id: String(courseId) } } }), true],
    ['no operationName among three', () => ({ token: teacher.token, body: { query: doc3 } }), false],
    ['an unknown operationName', () => ({ token: teacher.token, body: { query: doc3, operationName: 'Z' } }), false],
    ['an empty operationName', () => ({ token: teacher.token, body: { query: '{ __typename }', operationName: '' } }), false],
    ['a syntax error', () => ({ token: teacher.token, body: { query: '{ viewer { name }' } }), false],
    ['an unknown field', () => ({ token: teacher.token, body: { query: '{ viewer { nope } }' } }), false],
    ['too deep', () => ({ token: teacher.token, body: { query: `{ __schema { types { fields { type ${'{ ofType '.repeat(13)}{ name }${' }'.repeat(13)} } } } }` } }), false],
    ['too many aliases', () => ({ token: teacher.token, body: { query: `{ ${Array.from({ length: 22 }, (_, i) => `a${i}: __typename`).join(' ')} }` } }), false],
    ['too many mutation fields', () => ({ token: teacher.token, body: { query: `mutation { ${Array.from({ length: 6 }, (_, i) => `m${i}: updateCourse(input: { id: "${i}" }) { errors { message } }`).join(' ')} }` } }), false],
    ['cost within the limit', () => ({ token: teacher.token, body: { query: 'query L($n: Int) { coursesConnection(first: $n) { nodes { _id name } } }', variables: { n: 5 } } }), true],
    ['cost over the limit (same text)', () => ({ token: teacher.token, body: { query: 'query L($n: Int) { coursesConnection(first: $n) { nodes { _id name } } }', variables: { n: 100 } } }), false],
    ['the execution budget', () => ({ token: teacher.token, body: { query: `{ ${Array.from({ length: 10 }, (_, i) => `v${i}: viewer { name }`).join(' ')} }` } }), true],
    ['introspection, anonymous', () => ({ body: { query: '{ __schema { queryType { name } } }' } }), false],
    ['introspection, authenticated', () => ({ token: teacher.token, body: { query: '{ __schema { queryType { name } } }' } }), true],
    ['a response over the byte limit', () => ({ token: teacher.token, body: { query: '{ __schema { types { name } } }' } }), true],
    ['a subscription over POST', () => ({ token: teacher.token, body: { query: 'subscription { plannerChanged { change } }' } }), false],
    ['a subscription beside a query, chosen', () => ({ token: teacher.token, body: { query: 'query Me { viewer { name } } subscription S { plannerChanged { change } }', operationName: 'S' } }), false],
    ['a query beside a subscription, chosen', () => ({ token: teacher.token, body: { query: 'query Me { viewer { name } } subscription S { plannerChanged { change } }', operationName: 'Me' } }), true],
    ['an invalid token', () => ({ token: 'not-a-token', body: { query: '{ __typename }' } }), false],
    ['a form body (CSRF)', () => ({ token: teacher.token, raw: 'query=%7B__typename%7D', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), false],
    ['a form body with a preflight header', () => ({ token: teacher.token, raw: 'query=%7B__typename%7D', headers: { 'content-type': 'application/x-www-form-urlencoded', 'apollo-require-preflight': 'true' } }), false],
    ['text/plain', () => ({ token: teacher.token, body: { query: '{ __typename }' }, headers: { 'content-type': 'text/plain' } }), false],
    ['JSON with a charset', () => ({ token: teacher.token, body: { query: '{ __typename }' }, headers: { 'content-type': 'application/json; charset=utf-8' } }), true],
    ['JSON in capitals', () => ({ token: teacher.token, body: { query: '{ __typename }' }, headers: { 'content-type': 'Application/JSON' } }), false],
    ['Accept: application/json', () => ({ body: { query: '{ __typename }' }, headers: { accept: 'application/json' } }), true],
    ['Accept: graphql-response+json', () => ({ body: { query: '{ __typename }' }, headers: { accept: 'application/graphql-response+json' } }), true],
    ['Accept: both, json second', () => ({ body: { query: '{ __typename }' }, headers: { accept: 'application/graphql-response+json, application/json;q=0.9' } }), true],
    ['Accept: */*', () => ({ body: { query: '{ __typename }' }, headers: { accept: '*/*' } }), true],
    ['Accept: text/html', () => ({ body: { query: '{ __typename }' }, headers: { accept: 'text/html' } }), false],
    ['Accept: an error answer', () => ({ token: teacher.token, body: { query: course, variables: { id: '987654' } }, headers: { accept: 'application/graphql-response+json' } }), true],
    ['a batch', () => ({ body: [{ query: '{ __typename }' }] }), false],
    ['a persisted query extension', () => ({ body: { query: '{ __typename }', extensions: { persistedQuery: { version: 1, sha256Hash: 'x' } } } }), false],
    ['variables as a string', () => ({ body: { query: '{ __typename }', variables: '{}' } }), false],
    ['variables as an array', () => ({ body: { query: '{ __typename }', variables: [] } }), false],
    ['operationName as a number', () => ({ body: { query: '{ __typename }', operationName: 1 } }), false],
    ['an empty query', () => ({ body: { query: '' } }), false],
    ['no query', () => ({ body: { variables: {} } }), false],
    ['GET', () => ({ method: 'GET', path: '/graphql?query=%7B__typename%7D', headers: { 'apollo-require-preflight': 'true' } }), false],
  ];

  it.each(corpus)('%s', async (_name, req, fast) => {
    const { fastAnswers } = await compare(pair, req);
    // The first fast-side request may be Apollo's (it learns the document and the Accept value); the repeats are the fast path's.
    if (fast) expect(fastAnswers).toBeGreaterThanOrEqual(2);
    else expect(fastAnswers).toBe(0);
  });

  it('masks an internal error and answers an unreachable database with 503, as Apollo does', async () => {
    for (const t of ['internal', 'unavailable'] as const) {
      trap = t;
      try {
        const r = await compare(pair, { token: teacher.token, body: { query: course, variables: { id: String(courseId) } } });
        expect(r.fastAnswers).toBeGreaterThanOrEqual(2);
        expect(r.status).toBe(t === 'internal' ? 200 : 503);
        expect(r.body).not.toMatch(/db1|10\.0\.0\.5|SELECT/);
      } finally {
        trap = null;
      }
    }
  });
});

describe('GraphQL fast path and the throttle', () => {
  let pair: Pair | undefined;
  afterAll(() => stopPair(pair));

  it('charges cached operations as Apollo does: the bucket fills after as many requests', async () => {
    // `{ viewer { __typename } }` costs 2, one throttle unit here: the third request reaches the high-water mark.
    pair = await startPair({ RATE_LIMIT: 'on', RATE_LIMIT_HWM: '3', RATE_LIMIT_MAX: '4', RATE_LIMIT_OUTFLOW: '0.01', RATE_LIMIT_UP_FRONT: '0', GRAPHQL_COST_PER_RATE_LIMIT_UNIT: '2' });
    const world = new World(pair.fast);
    const [a, b] = [await world.user('Fast Fay'), await world.user('Slow Sid')];
    const run = async (base: string, token: string) => {
      const out = [];
      for (let i = 0; i < 6; i++) {
        const r = await send(base, { token, body: { query: '{ viewer { __typename } }' } });
        out.push({ status: r.status, type: r.headers['content-type'], body: r.body });
      }
      return out;
    };
    const before = answered;
    const fast = await run(pair.fast.url, a.token);
    expect(answered - before).toBeGreaterThan(0);
    expect(fast).toEqual(await run(pair.slow.url, b.token));
    expect(fast.map((r) => r.status)).toContain(429);
  });
});
