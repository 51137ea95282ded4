import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildAppSchema } from '../src/app/schema';
import { unboundedLists } from '../src/common/list-bounds';
import { ModulesKit, startModulesWorld } from './support/modules';
import { startTestServer, TestServer } from './support/server';
import { World } from './support/world';
import { wsClient, wsRequest } from './support/ws';

describe('list bounds', () => {
  it('every list field of the schema is a bounded connection page or declares its maximum', () => {
    expect(unboundedLists(buildAppSchema())).toEqual([]);
  });
});

/**
 * Issue 19 item 1: a list without a page size was costed as 10 items, so item -> module -> items
 * cycles ran for seconds inside the estimate; now each list costs its declared bound, and whatever
 * the estimate says, an operation stops at its resolver-call and response-size budget.
 */
const ATTACK = `query($c: ID!, $m: ID!) { module(courseId: $c, id: $m) { moduleItems { _id module { moduleItems { _id module {
  moduleItems { _id module { moduleItems { _id } } } } } } } } }`;

async function moduleOf20(kit: ModulesKit): Promise<number> {
  const m = await kit.module({}, { publish: true });
  for (let i = 0; i < 20; i++) {
    // Headers start unpublished; published ones are what a student sees.
    const item = await kit.addItem(m.id, { type: 'SubHeader', title: `Header ${i} ${'x'.repeat(120)}` });
    expect((await kit.teacher.put(kit.item(m.id, item.id), { module_item: { published: true } })).status).toBe(200);
  }
  return m.id;
}

describe('the estimate of unpaginated lists', () => {
  let server: TestServer;
  let world: World;
  let kit: ModulesKit;
  let moduleId: number;
  beforeAll(async () => {
    ({ server, world, kit } = await startModulesWorld());
    moduleId = await moduleOf20(kit);
  });
  afterAll(() => server.close());

  it("refuses the finding's item -> module -> items query of a student before running it", async () => {
    const student = kit.room.student.api;
    const vars = { c: String(kit.cid), m: String(moduleId) };
    // The student sees the module's 20 items (so the refusal is the estimate's, not a hidden module).
    const one = await student.graphql(`query($c: ID!, $m: ID!) { module(courseId: $c, id: $m) { moduleItems { _id } } }`, vars);
    expect(one.data.module.moduleItems).toHaveLength(20);
    const res = await student.request('POST', '/graphql', { query: ATTACK, variables: vars }, { json: true });
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    // Each moduleItems level fans out 100 (its bound) times: four levels are 100^4 items.
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'complexity' });
    expect(res.body.errors[0].extensions.actual).toBeGreaterThan(100 ** 4);
    void world;
  });
});

describe('the execution budget', () => {
  let server: TestServer;
  let kit: ModulesKit;
  let moduleId: number;
  beforeAll(async () => {
    const filesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lms-budget-files-'));
    server = await startTestServer({ FILES_DIR: filesDir, GRAPHQL_MAX_RESOLVER_CALLS: '30', GRAPHQL_MAX_RESPONSE_BYTES: '2048' });
    kit = await ModulesKit.create(new World(server));
    moduleId = await moduleOf20(kit);
  });
  afterAll(() => server.close());

  const vars = () => ({ c: String(kit.cid), m: String(moduleId) });

  it('stops an operation past its resolver calls with one clear error, over HTTP and graphql-ws', async () => {
    // 1 module + 1 moduleItems + 20 modules + 20 next: within the estimate, past 30 resolver calls.
    const query = `query($c: ID!, $m: ID!) { module(courseId: $c, id: $m) { moduleItems { _id module { _id } next { _id } } } }`;
    const res = await kit.teacher.graphql(query, vars());
    expect(res.data).toBeNull();
    expect(res.errors).toEqual([
      { message: expect.stringMatching(/stopped after 30 resolver calls/), extensions: { code: 'EXECUTION_LIMIT_EXCEEDED', limit: 'resolverCalls', max: 30, actual: 31 } },
    ]);
    const { client } = wsClient(server.url, kit.room.teacher.token);
    try {
      const ws = await wsRequest(client, query, vars()).then((r: any) => r.errors, (errors: any[]) => errors);
      expect(ws[0].extensions).toMatchObject({ code: 'EXECUTION_LIMIT_EXCEEDED', limit: 'resolverCalls' });
    } finally {
      await client.dispose();
    }
    // Within the budget, the same shape answers.
    const small = await kit.teacher.graphql(`query($c: ID!, $m: ID!) { module(courseId: $c, id: $m) { moduleItems { _id } } }`, vars());
    expect(small.errors).toBeUndefined();
    expect(small.data.module.moduleItems).toHaveLength(20);
  });

  it('answers an over-size response with the limit instead of the data', async () => {
    const query = `query($c: ID!, $m: ID!) { module(courseId: $c, id: $m) { moduleItems { _id title } } }`;
    const res: any = await kit.teacher.graphql(query, vars());
    expect(res.data).toBeUndefined();
    expect(res.errors[0].extensions).toMatchObject({ code: 'EXECUTION_LIMIT_EXCEEDED', limit: 'responseBytes', max: 2048 });
    expect(res.errors[0].extensions.actual).toBeGreaterThan(2048);
  });

  it('leaves REST routes, which run their own fixed operations, outside the budget', async () => {
    const items = await kit.teacher.get(`/api/v1/courses/${kit.cid}/modules/${moduleId}/items?per_page=100`);
    expect(items.status).toBe(200);
    expect(items.body).toHaveLength(20);
  });
});
