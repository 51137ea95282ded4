import { Kind, OperationDefinitionNode, parse } from 'graphql';
import { EXPENSIVE_MUTATIONS } from '../src/graphql/limits';
import { isExpensiveRoute } from '../src/http/throttle-hooks';
import { withFragments } from '../src/api/rest/route';
import { restRoutes } from '../src/app/routes';
import type { ApiResponse } from './support/api';
import { startTestServer, TestServer } from './support/server';

/**
 * Mutations in bulk (issue 19 item 3): aliases hidden in inline or named fragments count as aliases,
 * a mutation operation has few root fields, and the GraphQL twins of the throttle's expensive REST
 * routes pay the same surcharge.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT: 'on', RATE_LIMIT_UP_FRONT: '300' });
});
afterAll(() => server.close());

const reports = async (): Promise<number> => Number((await server.app.ds.query('SELECT COUNT(*) AS n FROM error_reports'))[0].n);
const report = (i: number) => `a${i}: createErrorReport(input: { subject: "s${i}" }) { logged }`;
const errorOf = (res: ApiResponse) => res.body.errors?.[0] ?? {};
const cost = (res: ApiResponse) => Number(res.headers.get('x-request-cost'));
const post = (query: string) => server.as(null).request('POST', '/graphql', { query }, { json: true });

describe('aliases through fragments', () => {
  it('counts aliases spread over inline fragments, and stores nothing of the refused mutation', async () => {
    const before = await reports();
    const inline = `mutation { ${Array.from({ length: 25 }, (_, i) => `... on Mutation { ${report(i)} }`).join(' ')} }`;
    const res = await server.as(null).request('POST', '/graphql', { query: inline }, { json: true });
    expect(res.status).toBe(400);
    expect(errorOf(res).extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', limit: 'aliases', max: 20, actual: 24 });
    expect(await reports()).toBe(before);
  });

  it('counts aliases of a named fragment once per spread', async () => {
    const fields = Array.from({ length: 6 }, (_, i) => `t${i}: __typename`).join(' ');
    // 6 selections of __typename per spread (5 repeats), spread in 5 places of one selection set: 29 repeats.
    const query = `query { ...F ...G } fragment F on Query { ${fields} ...G ...H } fragment G on Query { ${fields} } fragment H on Query { ${fields} ...G }`;
    const res = await server.as(null).request('POST', '/graphql', { query }, { json: true });
    expect(res.status).toBe(400);
    expect(errorOf(res).extensions).toMatchObject({ limit: 'aliases', actual: 29 });
  });
});

describe('root fields of a mutation', () => {
  it('refuses more than 5 root fields, fragments expanded, and runs none of them', async () => {
    const before = await reports();
    const ok = await server.as(null).graphql(`mutation { ${Array.from({ length: 5 }, (_, i) => report(i)).join(' ')} }`);
    expect(ok.errors).toBeUndefined();
    expect(await reports()).toBe(before + 5);
    const six = `mutation { ${report(0)} ... on Mutation { ${report(1)} } ...M } fragment M on Mutation { ${[2, 3, 4, 5].map(report).join(' ')} }`;
    const res = await server.as(null).request('POST', '/graphql', { query: six }, { json: true });
    expect(res.status).toBe(400);
    expect(errorOf(res).extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', limit: 'mutationFields', max: 5, actual: 6 });
    expect(await reports()).toBe(before + 5);
  });
});

describe('the surcharge of expensive mutations', () => {
  it('charges createErrorReport over GraphQL what POST /api/v1/error_reports pays, once per root field', async () => {
    const rest = await server.as(null).post('/api/v1/error_reports', { error: { subject: 'rest' } });
    expect(rest.status).toBe(200);
    expect(cost(rest)).toBeGreaterThanOrEqual(10);
    const one = await post(`mutation { ${report(0)} }`);
    expect(one.body.errors).toBeUndefined();
    expect(cost(one)).toBeGreaterThanOrEqual(10);
    expect(cost(one)).toBeLessThan(20);
    const three = await post(`mutation { ${report(0)} ... on Mutation { ${report(1)} ${report(2)} } }`);
    expect(cost(three)).toBeGreaterThanOrEqual(30);
    // A plain query pays no surcharge.
    expect(cost(await post('{ __typename }'))).toBeLessThan(1);
  });

  it('names exactly the root fields of the expensive REST routes', () => {
    const twins = new Set<string>();
    for (const route of restRoutes) {
      if (!isExpensiveRoute(`${route.method} ${route.path}`)) continue;
      const op = parse(withFragments(route.operation)).definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
      for (const sel of op.selectionSet.selections) if (sel.kind === Kind.FIELD) twins.add(sel.name.value);
    }
    expect([...twins].sort()).toEqual([...EXPENSIVE_MUTATIONS].sort());
  });
});
