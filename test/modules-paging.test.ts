import { parseLinks } from './support/api';
import { captureStatements } from './support/paging';
import type { Api, ApiResponse } from './support/api';
import { ModulesKit, ok, startModulesWorld } from './support/modules';
import type { TestServer } from './support/server';
import type { World } from './support/world';

/**
 * Long modules and long module lists page in SQL by key (position, id): REST numbered pages and
 * GraphQL cursors walk every row once, whatever is inserted or deleted between pages, across ties
 * in position, with the viewer's visibility rules applied in the statement; module states on later
 * pages still follow prerequisites on earlier pages.
 */

let server: TestServer;
let world: World;
let kit: ModulesKit;

beforeAll(async () => {
  ({ server, world, kit } = await startModulesWorld());
}, 120_000);

afterAll(async () => {
  await server?.close();
});

/** Every page of a REST list through its Link next, with the rel="last" page number of the first page. */
async function restWalk(api: Api, path: string, perPage: number): Promise<{ ids: number[]; pages: number; lastPage: number | null }> {
  let url: string | null = `${path}${path.includes('?') ? '&' : '?'}per_page=${perPage}`;
  const ids: number[] = [];
  let pages = 0;
  let lastPage: number | null = null;
  while (url) {
    const res = await api.get(url);
    const body = ok(res, 'list page') as any[];
    ids.push(...body.map((x) => x.id));
    const links = parseLinks(res.headers.get('link'));
    if (pages === 0 && links.last) lastPage = Number(new URL(links.last).searchParams.get('page'));
    pages++;
    url = links.next ? links.next.replace(server.url, '') : null;
    if (pages > 100) throw new Error('runaway paging');
  }
  return { ids, pages, lastPage };
}

const ITEMS_PAGE = `query($c: ID!, $m: ID!, $first: Int, $after: String) {
  moduleItemsConnection(courseId: $c, moduleId: $m, first: $first, after: $after) { nodes { _id } pageInfo { hasNextPage endCursor } } }`;

/** One GraphQL page of a module's items. */
async function itemsPage(api: Api, moduleId: number, first: number, after: string | null) {
  const res = await api.graphql(ITEMS_PAGE, { c: String(kit.cid), m: String(moduleId), first, after });
  expect(res.errors).toBeUndefined();
  const conn = res.data.moduleItemsConnection;
  return { ids: conn.nodes.map((n: any) => Number(n._id)), next: conn.pageInfo.hasNextPage ? (conn.pageInfo.endCursor as string) : null };
}

async function graphqlWalk(api: Api, moduleId: number, first: number): Promise<number[]> {
  const ids: number[] = [];
  let after: string | null = null;
  for (let i = 0; i < 100; i++) {
    const page = await itemsPage(api, moduleId, first, after);
    ids.push(...page.ids);
    if (!page.next) return ids;
    after = page.next;
  }
  throw new Error('runaway paging');
}

/** The module's live items by (position, id), read from the table itself. */
async function itemsInOrder(moduleId: number, states = ['active', 'unpublished']): Promise<number[]> {
  const rows: { id: number }[] = await server.app.ds.query(
    `SELECT id FROM module_items WHERE module_id = ? AND workflow_state IN (${states.map(() => '?').join(', ')}) ORDER BY position, id`,
    [moduleId, ...states],
  );
  return rows.map((r) => Number(r.id));
}

const noDuplicates = (ids: number[]) => expect(new Set(ids).size).toBe(ids.length);

describe('a long module’s items', () => {
  let moduleId: number;
  let hidden: number[];

  beforeAll(async () => {
    moduleId = (await kit.module({ name: 'Long' })).id;
    for (let i = 0; i < 124; i++) await kit.addItem(moduleId, { type: 'ExternalUrl', title: `Reading ${i + 1}`, external_url: `https://example.com/r/${i}` });
    await kit.publish(moduleId);
    // Hidden from students, each by another rule: an unpublished item, an item of unpublished content.
    const draft = await kit.addItem(moduleId, { type: 'SubHeader', title: 'Draft header', position: 30 });
    const unpublished = await kit.assignment({ name: 'Not yet', published: false });
    const linked = await kit.addItem(moduleId, { type: 'Assignment', content_id: unpublished.id, position: 70 });
    hidden = [draft.id, linked.id];
  }, 180_000);

  it('REST numbered pages list every item once in order, with rel="last" (teacher)', async () => {
    const all = await itemsInOrder(moduleId);
    expect(all.length).toBe(126);
    const walk = await restWalk(kit.teacher, kit.items(moduleId), 10);
    expect(walk.ids).toEqual(all);
    expect(walk.pages).toBe(13);
    expect(walk.lastPage).toBe(13);
    // A deep page read directly is the same slice.
    const page9 = ok(await kit.teacher.get(`${kit.items(moduleId)}?per_page=10&page=9`)) as any[];
    expect(page9.map((i) => i.id)).toEqual(all.slice(80, 90));
  });

  it('GraphQL key set cursors walk every item once; students never see hidden ones', async () => {
    const all = await itemsInOrder(moduleId);
    const teacherIds = await graphqlWalk(kit.teacher, moduleId, 7);
    expect(teacherIds).toEqual(all);
    const studentIds = await graphqlWalk(kit.room.student.api, moduleId, 9);
    expect(studentIds).toEqual(all.filter((id) => !hidden.includes(id)));
    noDuplicates(studentIds);
    const rest = await restWalk(kit.room.student.api, kit.items(moduleId), 25);
    expect(rest.ids).toEqual(studentIds);
    expect(rest.lastPage).toBe(Math.ceil(studentIds.length / 25));
  });

  it('totalCount counts the viewer’s items when selected', async () => {
    const q = `query($c: ID!, $m: ID!) { moduleItemsConnection(courseId: $c, moduleId: $m, first: 5) { totalCount nodes { _id } } }`;
    const asTeacher = await kit.teacher.graphql(q, { c: String(kit.cid), m: String(moduleId) });
    const asStudent = await kit.room.student.api.graphql(q, { c: String(kit.cid), m: String(moduleId) });
    expect(asTeacher.data.moduleItemsConnection.totalCount).toBe(126);
    expect(asStudent.data.moduleItemsConnection.totalCount).toBe(124);
  });

  it('items deleted or added between pages: no gap, no repeat', async () => {
    const before = await itemsInOrder(moduleId);
    const first = await itemsPage(kit.teacher, moduleId, 20, null);
    expect(first.ids).toEqual(before.slice(0, 20));
    // Between pages: a seen item and an unseen one are deleted (later items move up), one is added
    // past the cursor and one at the end.
    const [seen, unseen] = [before[4], before[30]];
    ok(await kit.teacher.request('DELETE', kit.item(moduleId, seen)), 'delete seen');
    ok(await kit.teacher.request('DELETE', kit.item(moduleId, unseen)), 'delete unseen');
    const middle = await kit.addItem(moduleId, { type: 'ExternalUrl', title: 'Inserted', external_url: 'https://example.com/new', position: 40 });
    const end = await kit.addItem(moduleId, { type: 'ExternalUrl', title: 'Appended', external_url: 'https://example.com/end' });
    const rest: number[] = [];
    let after = first.next;
    while (after) {
      const page = await itemsPage(kit.teacher, moduleId, 20, after);
      rest.push(...page.ids);
      after = page.next;
    }
    const now = await itemsInOrder(moduleId);
    expect([...first.ids, ...rest].filter((id) => id !== seen)).toEqual(now);
    expect(rest).toContain(middle.id);
    expect(rest).toContain(end.id);
    expect(rest).not.toContain(unseen);
    noDuplicates([...first.ids, ...rest]);
  });

  it('ties in position page by id', async () => {
    const tied = (await kit.module({ name: 'Tied' })).id;
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) ids.push((await kit.addItem(tied, { type: 'SubHeader', title: `Part ${i}` })).id);
    await kit.publish(tied);
    // Positions as an import or a concurrent write can leave them (the API itself renumbers).
    await server.app.ds.query('UPDATE module_items SET position = ? WHERE module_id = ? AND id <> ?', [2, tied, ids[0]]);
    const expected = [ids[0], ...ids.slice(1).sort((a, b) => a - b)];
    expect(await graphqlWalk(kit.teacher, tied, 5)).toEqual(expected);
    expect(await graphqlWalk(kit.room.student.api, tied, 1)).toEqual(expected);
    expect((await restWalk(kit.teacher, kit.items(tied), 4)).ids).toEqual(expected);
  });
});

describe('embedded items (include[]=items, Module.moduleItems) of a long module', () => {
  it('read the first 101 items, and read on when content hides some of them', async () => {
    const k = await kit.sibling(world, 'Embedded');
    const m = (await k.module({ name: 'Hundred' })).id;
    for (let i = 0; i < 100; i++) await k.addItem(m, { type: 'SubHeader', title: `Part ${i}` });
    const draft = await k.assignment({ name: 'Later' });
    const linked: number[] = [];
    for (let i = 0; i < 3; i++) linked.push((await k.addItem(m, { type: 'Assignment', content_id: draft.id, position: 1 })).id);
    await k.publish(m);
    // The items stay published; their assignment does not: students lose the first three items.
    ok(await k.teacher.put(`/api/v1/courses/${k.cid}/assignments/${draft.id}`, { assignment: { published: false } }), 'unpublish assignment');
    const asTeacher = ok(await k.teacher.get(`${k.modules()}?include[]=items`)) as any[];
    expect(asTeacher[0]).toMatchObject({ items_count: 103 });
    expect(asTeacher[0]).not.toHaveProperty('items');
    const asStudent = ok(await k.room.student.api.get(`${k.modules()}?include[]=items`)) as any[];
    expect(asStudent[0].items_count).toBe(100);
    expect(asStudent[0].items.map((i: any) => i.id)).toEqual((await itemsInOrder(m)).filter((id) => !linked.includes(id)));
    const q = `query($c: ID!) { modulesConnection(courseId: $c) { nodes { itemsCount moduleItems { _id } } } }`;
    const g = await k.room.student.api.graphql(q, { c: String(k.cid) });
    expect(g.data.modulesConnection.nodes[0].moduleItems.length).toBe(100);
  });
});

describe('modules with items, as a student', () => {
  let chained: ModulesKit;
  let mods: { id: number; item: number }[];

  beforeAll(async () => {
    chained = await kit.sibling(world, 'Chained');
    mods = [];
    for (let i = 0; i < 12; i++) {
      const prev = mods[i - 1];
      const m = await chained.module({ name: `Week ${i + 1}`, ...(prev ? { prerequisite_module_ids: [prev.id] } : {}) });
      const item = await chained.addItem(m.id, { type: 'ExternalUrl', title: `Reading ${i + 1}`, external_url: `https://example.com/w/${i}`, completion_requirement: { type: 'must_view' } });
      await chained.publish(m.id);
      mods.push({ id: m.id, item: item.id });
    }
  }, 180_000);

  /** States over REST pages of `perPage` (include[]=items), module by module. */
  async function restStates(perPage: number): Promise<{ ids: number[]; states: string[]; items: number[][] }> {
    const out = { ids: [] as number[], states: [] as string[], items: [] as number[][] };
    let url: string | null = `${chained.modules()}?include[]=items&per_page=${perPage}`;
    while (url) {
      const res: ApiResponse = await chained.room.student.api.get(url);
      for (const m of ok(res, 'modules page') as any[]) {
        out.ids.push(m.id);
        out.states.push(m.state);
        out.items.push(m.items.map((i: any) => i.id));
      }
      url = parseLinks(res.headers.get('link')).next?.replace(server.url, '') ?? null;
    }
    return out;
  }

  const expectStates = (done: number) => mods.map((_, i) => (i < done ? 'completed' : i === done ? 'unlocked' : 'locked'));

  it('a later page read first evaluates the chain; each page shows its own modules and items', async () => {
    // The last page before anything else read the course: every module still needs evaluating.
    const last = ok(await chained.room.student.api.get(`${chained.modules()}?include[]=items&per_page=5&page=3`)) as any[];
    expect(last.map((m) => [m.id, m.state])).toEqual(mods.slice(10).map((m) => [m.id, 'locked']));
    const walk = await restStates(5);
    expect(walk.ids).toEqual(mods.map((m) => m.id));
    expect(walk.states).toEqual(expectStates(0));
    expect(walk.items).toEqual(mods.map((m) => [m.item]));
  });

  it('completion on earlier pages unlocks modules on later pages (REST pages and GraphQL cursors)', async () => {
    for (const m of mods.slice(0, 5)) ok(await chained.room.student.api.post(chained.item(m.id, m.item, '/mark_read'), {}), 'mark read');
    expect((await restStates(4)).states).toEqual(expectStates(5));
    // The teacher edits an early module: progressions go stale; a deep page is read first again.
    ok(await chained.teacher.put(chained.modules(`/${mods[1].id}`), { module: { name: 'Week 2 (edited)' } }), 'edit module');
    const page2 = ok(await chained.room.student.api.get(`${chained.modules()}?per_page=4&page=2`)) as any[];
    expect(page2.map((m) => m.state)).toEqual(expectStates(5).slice(4, 8));
    const q = `query($c: ID!, $after: String) { modulesConnection(courseId: $c, first: 3, after: $after, includeItems: true) {
      nodes { _id state items { _id } } pageInfo { hasNextPage endCursor } } }`;
    const seen: { id: number; state: string; items: number[] }[] = [];
    let after: string | null = null;
    do {
      const res: any = await chained.room.student.api.graphql(q, { c: String(chained.cid), after });
      expect(res.errors).toBeUndefined();
      const conn = res.data.modulesConnection;
      seen.push(...conn.nodes.map((n: any) => ({ id: Number(n._id), state: n.state, items: n.items.map((i: any) => Number(i._id)) })));
      after = conn.pageInfo.hasNextPage ? conn.pageInfo.endCursor : null;
    } while (after);
    expect(seen).toEqual(mods.map((m, i) => ({ id: m.id, state: expectStates(5)[i], items: [m.item] })));
  });

  it('an unpublished module is skipped by the page statement, not by cutting the page short', async () => {
    ok(await chained.teacher.put(chained.modules(`/${mods[2].id}`), { module: { published: false } }), 'unpublish');
    const page1 = ok(await chained.room.student.api.get(`${chained.modules()}?per_page=4`)) as any[];
    expect(page1.map((m) => m.id)).toEqual([mods[0].id, mods[1].id, mods[3].id, mods[4].id]);
    const walk = await restStates(4);
    expect(walk.ids).toEqual(mods.filter((_, i) => i !== 2).map((m) => m.id));
    await chained.publish(mods[2].id);
  });
});

describe('a page that is not full ends the list: its total needs no count (as will_paginate)', () => {
  let moduleId: number;
  const countsItems = (seen: { sql: string }[]) => seen.filter((s) => /COUNT\(\*\)/i.test(s.sql) && /module_items/.test(s.sql)).length;
  const lastPage = (res: ApiResponse<unknown>) => Number(new URL(parseLinks(res.headers.get('link')).last!).searchParams.get('page'));
  const TOTAL = `query($c: ID!, $m: ID!, $first: Int, $after: String) {
    moduleItemsConnection(courseId: $c, moduleId: $m, first: $first, after: $after) { totalCount nodes { _id } pageInfo { endCursor } } }`;

  beforeAll(async () => {
    moduleId = (await kit.module({ name: 'Short' })).id;
    for (let i = 0; i < 3; i++) await kit.addItem(moduleId, { type: 'SubHeader', title: `Part ${i + 1}` });
  }, 60_000);

  it('REST: a partial first or last page gives rel="last" from its own rows; a full page or a page past the end counts', async () => {
    let res!: ApiResponse<unknown>;
    const get = (q: string) => captureStatements(server, async () => (res = await kit.teacher.get(`${kit.items(moduleId)}?${q}`)));
    expect(countsItems(await get('per_page=10'))).toBe(0);
    expect((ok(res) as unknown[]).length).toBe(3);
    expect(lastPage(res)).toBe(1);
    expect(countsItems(await get('per_page=2&page=2'))).toBe(0);
    expect(lastPage(res)).toBe(2);
    // A full page says nothing of what follows, an empty one past the first nothing of where the list ended.
    expect(countsItems(await get('per_page=2&page=1'))).toBe(1);
    expect(lastPage(res)).toBe(2);
    expect(countsItems(await get('per_page=2&page=5'))).toBe(1);
    expect(ok(res)).toEqual([]);
    expect(lastPage(res)).toBe(2);
  });

  it('GraphQL: totalCount is the rows of a partial first page; after a key, for first: 0 or a full page it is counted', async () => {
    let body: any;
    const ask = (vars: { first: number; after?: string | null }) =>
      captureStatements(server, async () => {
        body = await kit.teacher.graphql(TOTAL, { c: String(kit.cid), m: String(moduleId), ...vars });
        expect(body.errors).toBeUndefined();
      });
    expect(countsItems(await ask({ first: 10 }))).toBe(0);
    expect(body.data.moduleItemsConnection.totalCount).toBe(3);
    expect(countsItems(await ask({ first: 0 }))).toBe(1);
    expect(body.data.moduleItemsConnection.totalCount).toBe(3);
    expect(countsItems(await ask({ first: 2 }))).toBe(1);
    expect(body.data.moduleItemsConnection.totalCount).toBe(3);
    // The page after a key knows not how many rows came before it.
    expect(countsItems(await ask({ first: 10, after: body.data.moduleItemsConnection.pageInfo.endCursor }))).toBe(1);
    expect(body.data.moduleItemsConnection.totalCount).toBe(3);
    expect(body.data.moduleItemsConnection.nodes).toHaveLength(1);
  });
});
