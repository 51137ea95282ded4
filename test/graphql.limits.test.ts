import { getIntrospectionQuery, parse, specifiedRules, validate } from 'graphql';
import WebSocket from 'ws';
import { loadConfig } from '../src/config';
import { operationCost } from '../src/graphql/cost';
import { buildAppSchema } from '../src/app/schema';
import { graphqlLimits, limitRules, parseOptions } from '../src/graphql/limits';
import { withFragments } from '../src/api/rest/route';
import { restRoutes } from '../src/app/routes';
import { startTestServer, TestServer } from './support/server';
import { World, WorldUser } from './support/world';
import { wsClient, wsRequest } from './support/ws';

/**
 * Bounds on client GraphQL (issue 10 finding 4): depth, duplicate aliases, directives, tokens, cost and
 * introspection, alike on HTTP and graphql-ws, with a capped HTTP body and ws frame; the REST router's
 * own operations are exempt and all fit the defaults.
 */
let server: TestServer;
let world: World;
let teacher: WorldUser;
let courseId: number;

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
  const room = await world.classroom();
  teacher = room.teacher;
  courseId = room.course.id;
});
afterAll(() => server.close());

const errorOf = (res: { errors?: any[] }) => res.errors?.[0] ?? {};

/** `levels` nested course → enrollments → course hops; each hop adds three levels of depth. */
function nestedEnrollments(levels: number, first?: number): string {
  const page = first === undefined ? '' : `(first: ${first})`;
  let inner = '_id';
  for (let i = 0; i < levels; i++) inner = `_id user { name } course { enrollmentsConnection${page} { nodes { ${inner} } } }`;
  return `query($id: ID!) { course(id: $id) { enrollmentsConnection${page} { nodes { ${inner} } } } }`;
}

/** A query of exactly `depth` levels: viewer { enrollmentsConnection { nodes { course { … } } } }. */
function queryOfDepth(depth: number): string {
  const hops = ['enrollmentsConnection(first: 1)', 'nodes', 'course'];
  let open = '';
  let close = '';
  for (let i = 0; i < depth - 1; i++) {
    open += `${i === 0 ? 'course(id: $id)' : hops[(i - 1) % 3]} { `;
    close += ' }';
  }
  return `query($id: ID!) { ${open}__typename${close} }`;
}

const aliased = (n: number, field = '__typename') => `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ')} }`;
const directives = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `f${i}: __typename @include(if: true)`).join(' ')} }`;

describe('GraphQL limits on HTTP', () => {
  it('refuses a query deeper than 15 levels and answers one of exactly 15', async () => {
    const ok = await teacher.api.graphql(queryOfDepth(15), { id: String(courseId) });
    expect(ok.errors).toBeUndefined();
    const res = await teacher.api.request('POST', '/graphql', { query: queryOfDepth(16), variables: { id: String(courseId) } }, { json: true });
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    expect(errorOf(res.body)).toMatchObject({
      message: 'Query depth 16 exceeds the maximum of 15.',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: 'depth', max: 15, actual: 16 },
    });
    expect(errorOf(res.body).extensions.http).toBeUndefined();
  });

  it('refuses 1,000 aliases of one field but allows 20 and renaming fields freely', async () => {
    const res = await teacher.api.request('POST', '/graphql', { query: aliased(1000) }, { json: true });
    expect(res.status).toBe(400);
    expect(errorOf(res.body).extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', limit: 'aliases', max: 20, actual: 999 });
    // The finding's 2,000 aliases (6,000 tokens) no longer get past the parser.
    expect(errorOf(await teacher.api.graphql(aliased(2000))).extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    // 21 selections of one field are 20 aliases beyond the first.
    expect((await teacher.api.graphql(aliased(21))).errors).toBeUndefined();
    // Canvas-shaped renames (`display_name: name`) are not repeats; the route table test uses dozens.
    expect((await teacher.api.graphql('{ viewer { id: _id display_name: name } }')).errors).toBeUndefined();
  });

  it('runs nothing of a refused mutation', async () => {
    const creates = Array.from({ length: 22 }, (_, i) => `n${i}: createPlannerNote(input: { title: "note ${i}" }) { plannerNote { _id } }`);
    const res = await teacher.api.request('POST', '/graphql', { query: `mutation { ${creates.join(' ')} }` }, { json: true });
    expect(res.status).toBe(400);
    expect(errorOf(res.body).extensions.limit).toBe('aliases');
    const notes = await teacher.api.graphql('{ plannerNotes { totalCount } }');
    expect(notes.data.plannerNotes.totalCount).toBe(0);
  });

  it('refuses more than 5 directives', async () => {
    expect((await teacher.api.graphql(directives(5))).errors).toBeUndefined();
    const res = await teacher.api.request('POST', '/graphql', { query: directives(6) }, { json: true });
    expect(res.status).toBe(400);
    expect(errorOf(res.body).extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', limit: 'directives', max: 5, actual: 6 });
  });

  it('stops parsing a document of more than 5,000 tokens', async () => {
    // 32 tokens of query around a list of state names, one token each (values rather than repeated
    // fields, which graphql's own overlap check would abort on first).
    const doc = (states: number) => `query($id: ID!) { course(id: $id) { enrollmentsConnection(first: 1, states: [${'"active" '.repeat(states)}]) { totalCount } } }`;
    expect((await teacher.api.graphql(doc(4968), { id: String(courseId) })).errors).toBeUndefined();
    const res = await teacher.api.request('POST', '/graphql', { query: doc(4969), variables: { id: String(courseId) } }, { json: true });
    expect(res.status).toBe(400);
    expect(errorOf(res.body).extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    expect(errorOf(res.body).message).toMatch(/5000 tokens/);
  });

  it("refuses the teacher's three-level nested enrollments query by cost, before running it", async () => {
    const res = await teacher.api.request('POST', '/graphql', { query: nestedEnrollments(2), variables: { id: String(courseId) } }, { json: true });
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    expect(errorOf(res.body).extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'complexity', max: 250000 });
    expect(errorOf(res.body).extensions.actual).toBeGreaterThan(1_000_000);
    expect(errorOf(res.body).message).toMatch(/estimated cost \d+ exceeds the maximum of 250000/);
    // The same shape with small pages is cheap, and answered.
    const small = await teacher.api.graphql(nestedEnrollments(2, 5), { id: String(courseId) });
    expect(small.errors).toBeUndefined();
    expect(small.data.course.enrollmentsConnection.nodes.length).toBeGreaterThan(0);
  });

  it('takes page sizes from variables when costing', async () => {
    const query = `query($id: ID!, $n: Int) { course(id: $id) { enrollmentsConnection(first: $n) { nodes { course { enrollmentsConnection(first: $n) { nodes { course { enrollmentsConnection(first: $n) { nodes { _id user { name } } } } } } } } } } }`;
    expect((await teacher.api.graphql(query, { id: String(courseId), n: 3 })).errors).toBeUndefined();
    const res = await teacher.api.graphql(query, { id: String(courseId), n: 100 });
    expect(res.status).toBe(400);
    expect(errorOf(res).extensions.code).toBe('QUERY_TOO_COMPLEX');
    // No page size means the largest page.
    expect(errorOf(await teacher.api.graphql(query, { id: String(courseId) })).extensions?.code).toBe('QUERY_TOO_COMPLEX');
  });

  it('answers introspection to authenticated callers only', async () => {
    const anonymous = server.as(null);
    const res = await anonymous.request('POST', '/graphql', { query: '{ __schema { types { name } } }' }, { json: true });
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    expect(errorOf(res.body)).toMatchObject({
      message: 'GraphQL introspection is available to authenticated callers only.',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: 'introspection' },
    });
    const viaType = await anonymous.graphql('{ t: __type(name: "Course") { fields { name } } }');
    expect(viaType.status).toBe(400);
    // The 20 aliased introspection queries of the finding: one 1.9 KB request for megabytes of schema.
    const flood = `{ ${Array.from({ length: 20 }, (_, i) => `s${i}: __schema { types { name fields { name type { name } } } }`).join(' ')} }`;
    expect((await anonymous.graphql(flood)).status).toBe(400);
    // __typename is not introspection of the schema.
    expect((await anonymous.graphql('{ __typename }')).data).toEqual({ __typename: 'Query' });

    const full = await teacher.api.graphql(getIntrospectionQuery());
    expect(full.errors).toBeUndefined();
    expect(full.data.__schema.types.length).toBeGreaterThan(50);
  });

  it('refuses a request body over 1 MiB with a 413 JSON error', async () => {
    const padding = 'x'.repeat(1024 * 1024);
    const res = await teacher.api.request('POST', '/graphql', { query: '{ __typename }', variables: { padding } }, { json: true });
    expect(res.status).toBe(413);
    expect(res.body.errors[0].message).toBeDefined();
  });
});

describe('GraphQL limits on graphql-ws', () => {
  const refusal = async (query: string, variables: Record<string, unknown> = {}) => {
    const { client } = wsClient(server.url, teacher.token);
    try {
      const outcome = await wsRequest(client, query, variables).then(
        (r) => ({ result: r, errors: undefined as any[] | undefined }),
        (errors) => ({ result: undefined, errors: errors as any[] }),
      );
      return outcome;
    } finally {
      await client.dispose();
    }
  };

  it('applies depth, aliases, directives, tokens and cost to every operation', async () => {
    const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
      [queryOfDepth(16), { id: String(courseId) }, { code: 'GRAPHQL_VALIDATION_FAILED', limit: 'depth' }],
      [aliased(1000), {}, { code: 'GRAPHQL_VALIDATION_FAILED', limit: 'aliases' }],
      [directives(6), {}, { code: 'GRAPHQL_VALIDATION_FAILED', limit: 'directives' }],
      [`{ viewer { ${'_id '.repeat(5000)}} }`, {}, { code: 'GRAPHQL_PARSE_FAILED' }],
      [nestedEnrollments(2), { id: String(courseId) }, { code: 'QUERY_TOO_COMPLEX', limit: 'complexity' }],
    ];
    for (const [query, variables, extensions] of cases) {
      const { errors } = await refusal(query, variables);
      expect(errors?.[0]?.extensions).toMatchObject(extensions);
      expect(errors?.[0]?.extensions.http).toBeUndefined();
    }
    const { result } = await refusal(nestedEnrollments(2, 5), { id: String(courseId) });
    expect(result?.errors).toBeUndefined();
    expect(result?.data.course.enrollmentsConnection.nodes.length).toBeGreaterThan(0);
  });

  it('runs nothing of a refused mutation', async () => {
    const creates = Array.from({ length: 22 }, (_, i) => `n${i}: createPlannerNote(input: { title: "ws ${i}" }) { plannerNote { _id } }`);
    const { errors } = await refusal(`mutation { ${creates.join(' ')} }`);
    expect(errors?.[0]?.extensions.limit).toBe('aliases');
    const notes = await teacher.api.graphql('{ plannerNotes { totalCount } }');
    expect(notes.data.plannerNotes.totalCount).toBe(0);
  });

  it('answers introspection to the authenticated socket', async () => {
    const { result } = await refusal(getIntrospectionQuery());
    expect(result?.data.__schema.types.length).toBeGreaterThan(50);
  });

  it('closes the socket with 1009 on a frame over 1 MiB', async () => {
    const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${teacher.token}`, padding: 'x'.repeat(1024 * 1024) } }));
    expect(await closed).toBe(1009);
  });
});

describe('configured limits', () => {
  let strict: TestServer;
  let strictWorld: World;
  let user: WorldUser;
  let course: { id: number };

  beforeAll(async () => {
    strict = await startTestServer({
      GRAPHQL_MAX_DEPTH: '3',
      GRAPHQL_MAX_COMPLEXITY: '50',
      GRAPHQL_INTROSPECTION: 'off',
      GRAPHQL_MAX_BODY_BYTES: '4096',
      GRAPHQL_WS_MAX_PAYLOAD_BYTES: '4096',
    });
    strictWorld = new World(strict);
    const room = await strictWorld.classroom();
    user = room.teacher;
    course = room.course;
  });
  afterAll(() => strict.close());

  it('takes depth, cost, body size and introspection from configuration', async () => {
    const deep = await user.api.graphql('query($id: ID!) { course(id: $id) { enrollmentsConnection(first: 1) { nodes { _id } } } }', { id: String(course.id) });
    expect(errorOf(deep).extensions).toMatchObject({ limit: 'depth', max: 3 });
    const dear = await user.api.graphql('query($id: ID!) { course(id: $id) { enrollmentsConnection { totalCount } sectionsConnection { totalCount } _id name } }', {
      id: String(course.id),
    });
    expect(errorOf(dear).extensions?.code).toBeUndefined();
    const listed = await user.api.graphql('{ coursesConnection { nodes { _id } } }');
    expect(errorOf(listed).extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', max: 50 });
    const intro = await user.api.graphql('{ __schema { queryType { name } } }');
    expect(intro.status).toBe(400);
    expect(errorOf(intro).message).toBe('GraphQL introspection is disabled on this server.');
    const big = await user.api.request('POST', '/graphql', { query: '{ __typename }', variables: { padding: 'x'.repeat(5000) } }, { json: true });
    expect(big.status).toBe(413);
  });

  it('refuses introspection over graphql-ws when it is off, and caps frames at the configured size', async () => {
    const { client } = wsClient(strict.url, user.token);
    try {
      await expect(wsRequest(client, '{ __type(name: "Course") { name } }')).rejects.toEqual([
        expect.objectContaining({ message: 'GraphQL introspection is disabled on this server.' }),
      ]);
    } finally {
      await client.dispose();
    }
    const socket = new WebSocket(`${strict.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { padding: 'x'.repeat(5000) } }));
    expect(await closed).toBe(1009);
  });

  it('does not apply the limits to the REST routes, which run their own fixed operations', async () => {
    // The modules list is the dearest route operation (cost ~32,500, depth 6): far past this server's limits.
    const modules = await user.api.get(`/api/v1/courses/${course.id}/modules?include[]=items&per_page=100`);
    expect(modules.status).toBe(200);
    const enrollments = await user.api.get(`/api/v1/courses/${course.id}/enrollments?per_page=100`);
    expect(enrollments.status).toBe(200);
    expect(enrollments.body.length).toBe(4);
  });
});

/**
 * REST routes whose operation, at its largest page, truly fans out past what one client query may ask
 * since every list costs its real bound (issue 19): groups with up to 1,000 users each, modules with up
 * to 100 items each. They run through REST's own pagination and are exempt from the limits.
 */
const FAN_OUT_ROUTES = new Set([
  'GET /api/v1/group_categories/:group_category_id/groups',
  'GET /api/v1/users/self/groups',
  'GET /api/v1/courses/:course_id/groups',
  'GET /api/v1/accounts/:account_id/groups',
  'GET /api/v1/courses/:course_id/modules',
  'POST /api/v1/courses/:course_id/quiz_extensions',
  'GET /api/v1/courses/:course_id/module_item_sequence',
]);

describe('the REST route table', () => {
  it('fits every default limit, so the defaults leave room for every Canvas endpoint we serve', () => {
    const schema = buildAppSchema();
    const limits = graphqlLimits(loadConfig({}));
    const rules = [...specifiedRules, ...limitRules(limits)];
    const over: string[] = [];
    let dearest = 0;
    for (const route of restRoutes) {
      const name = `${route.method} ${route.path}`;
      let document;
      try {
        document = parse(withFragments(route.operation), parseOptions(limits));
      } catch (e) {
        over.push(`${name}: ${(e as Error).message}`);
        continue;
      }
      for (const e of validate(schema, document, rules)) over.push(`${name}: ${e.message}`);
      // No variables: every page is costed at its largest size, as a per_page=100 request would be.
      const cost = operationCost(schema, document, null, {});
      dearest = Math.max(dearest, cost);
      if (cost > limits.maxComplexity && !FAN_OUT_ROUTES.has(name)) over.push(`${name}: cost ${cost}`);
    }
    expect(over).toEqual([]);
    expect(restRoutes.length).toBeGreaterThan(100);
    expect(dearest).toBeGreaterThan(10_000);
  });
});
