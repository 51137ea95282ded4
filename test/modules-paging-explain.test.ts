import { ModulesKit, ok, startModulesWorld } from './support/modules';
import { captureStatements } from './support/paging';
import type { TestServer } from './support/server';
import type { World } from './support/world';

/**
 * The page statements of a long module's items and of a course's modules read their rows from an
 * ordered index: no full scan of module_items or context_modules, no temporary sort of a whole
 * module or course. The statements are the ones real requests run (captured while the requests go
 * through REST and GraphQL), explained with their own parameters.
 */

let server: TestServer;
let world: World;
let kit: ModulesKit;
const mysql = (process.env.DATABASE_URL ?? '').startsWith('mysql');

/** Statements (with parameters) run while `fn` runs: the server's own statement listener. */
const capture = (fn: () => Promise<unknown>) => captureStatements(server, fn);

/** Problems of the statement's plan: full scans of the paged tables, temporary sorts. */
async function planProblems(stmt: { sql: string; params: readonly unknown[] }): Promise<string[]> {
  const ds = server.app.ds;
  if (mysql) {
    const rows: Record<string, unknown>[] = await ds.query(`EXPLAIN ${stmt.sql}`, [...stmt.params]);
    return rows
      .filter((r) => ['m', 'mi'].includes(String(r.table)) && (r.type === 'ALL' || /filesort|temporary/i.test(String(r.Extra ?? ''))))
      .map((r) => `${r.table}: type=${r.type} ${r.Extra ?? ''}`);
  }
  const rows: { detail: string }[] = await ds.query(`EXPLAIN QUERY PLAN ${stmt.sql}`, [...stmt.params]);
  return rows.map((r) => r.detail).filter((d) => /^SCAN (mi|m|module_items|context_modules)\b/.test(d) || /TEMP B-TREE/.test(d));
}

/** The one statement of `captured` matching `re`. */
function only(captured: { sql: string; params: readonly unknown[] }[], re: RegExp) {
  const found = captured.filter((s) => re.test(s.sql));
  expect(found.length).toBeGreaterThanOrEqual(1);
  return found[0];
}

const ITEM_PAGE = /FROM module_items mi WHERE mi\.module_id = \? .*ORDER BY mi\.position ASC, mi\.id ASC LIMIT/;
const MODULE_PAGE = /FROM context_modules m WHERE m\.course_id = \? .*ORDER BY m\.position ASC, m\.id ASC LIMIT/;

let longModule: number;

beforeAll(async () => {
  ({ server, world, kit } = await startModulesWorld());
  longModule = (await kit.module({ name: 'Long' })).id;
  for (let i = 0; i < 40; i++) await kit.addItem(longModule, { type: 'ExternalUrl', title: `Reading ${i}`, external_url: `https://example.com/${i}` });
  const assignment = await kit.assignment({ name: 'Graded' });
  await kit.addItem(longModule, { type: 'Assignment', content_id: assignment.id });
  await kit.publish(longModule);
  for (let i = 0; i < 12; i++) {
    const m = await kit.module({ name: `Week ${i}` });
    await kit.addItem(m.id, { type: 'SubHeader', title: `Week ${i}` });
    await kit.publish(m.id);
  }
  // Other modules' rows around, so an unindexed read would have something to scan.
  const other = await kit.sibling(world, 'Other');
  const om = await other.module({ name: 'Other' });
  for (let i = 0; i < 30; i++) await other.addItem(om.id, { type: 'SubHeader', title: `x${i}` });
  if (mysql) await server.app.ds.query('ANALYZE TABLE module_items, context_modules');
}, 180_000);

afterAll(async () => {
  await server?.close();
});

describe('EXPLAIN of the module list page statements', () => {
  it('a module’s items: a deep key set page (GraphQL), a numbered page (REST), as teacher and student', async () => {
    const q = `query($c: ID!, $m: ID!, $after: String) { moduleItemsConnection(courseId: $c, moduleId: $m, first: 10, after: $after) { nodes { _id } pageInfo { endCursor } } }`;
    const vars = { c: String(kit.cid), m: String(longModule) };
    const first = await kit.teacher.graphql(q, vars);
    const after = first.data.moduleItemsConnection.pageInfo.endCursor;
    for (const api of [kit.teacher, kit.room.student.api]) {
      const keyed = await capture(() => api.graphql(q, { ...vars, after }));
      const numbered = await capture(async () => ok(await api.get(`${kit.items(longModule)}?per_page=10&page=3`)));
      for (const stmt of [only(keyed, ITEM_PAGE), only(numbered, ITEM_PAGE)]) expect({ sql: stmt.sql, problems: await planProblems(stmt) }).toEqual({ sql: stmt.sql, problems: [] });
    }
  });

  it('a course’s modules with items, as a student (and a teacher): first, numbered and key set pages', async () => {
    const student = kit.room.student.api;
    const firstPage = await capture(async () => ok(await student.get(`${kit.modules()}?include[]=items&per_page=5`)));
    const laterPage = await capture(async () => ok(await student.get(`${kit.modules()}?include[]=items&per_page=5&page=2`)));
    const q = `query($c: ID!) { modulesConnection(courseId: $c, first: 4, includeItems: true) { nodes { _id items { _id } } pageInfo { endCursor } } }`;
    const gql = await capture(() => student.graphql(q, { c: String(kit.cid) }));
    const after = (await student.graphql(q, { c: String(kit.cid) })).data.modulesConnection.pageInfo.endCursor;
    const keyed = await capture(() => student.graphql(q.replace('first: 4', 'first: 4, after: $after').replace('$c: ID!', '$c: ID!, $after: String'), { c: String(kit.cid), after }));
    // Teachers see unpublished modules too: another condition, the same index order.
    const teacher = await capture(async () => ok(await kit.teacher.get(`${kit.modules()}?include[]=items&per_page=5&page=2`)));
    for (const stmt of [only(firstPage, MODULE_PAGE), only(laterPage, MODULE_PAGE), only(gql, MODULE_PAGE), only(keyed, MODULE_PAGE), only(teacher, MODULE_PAGE)]) {
      expect({ sql: stmt.sql, problems: await planProblems(stmt) }).toEqual({ sql: stmt.sql, problems: [] });
    }
  });
});
