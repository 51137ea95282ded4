import type { DataSource } from 'typeorm';
import { parseLinks } from './support/api';
import { ExplainHarness } from './support/explain';
import { captureStatements } from './support/paging';
import { createCategory, createGroup, expectOk } from './support/groups';
import { startTestServer, TestServer } from './support/server';
import { World, WorldUser } from './support/world';

/**
 * Deep numbered pages (Canvas's page=N, above all its rel="last"): a page past DEEP_OFFSET rows is
 * read from the nearer end of the list once the list is counted (src/common/keyset.ts deepPage).
 * Lists of N rows, with ties in the sort key, walked page by page through REST and through GraphQL
 * offset cursors, must give every row once in the list's order (checked against the database's own
 * ORDER BY), the last page must be the list's tail, a page past the end empty, and a deep page must
 * cost the statements a shallow one costs (the count is read once, for the page and its Link).
 */
const N = 460;
const PER = 50;

let server: TestServer;
let ds: DataSource;
let teacher: WorldUser;
let student: WorldUser;
let group: { id: number };
let category: { id: number };
let course: { id: number };
let deepModule: { id: number };
let assignment: { id: number };

type Row = Record<string, unknown>;

/** `n` copies of row `id` of `table` with `change(k)` applied to copy k, in multi-row INSERTs (a fast world). */
async function copies(table: string, id: number, n: number, change: (k: number) => Row): Promise<number[]> {
  const esc = (c: string) => ds.driver.escape(c);
  const [template] = (await ds.query(`SELECT * FROM ${esc(table)} WHERE id = ?`, [id])) as Row[];
  const [{ top }] = (await ds.query(`SELECT MAX(id) AS top FROM ${esc(table)}`)) as { top: number }[];
  const columns = Object.keys(template).filter((c) => c !== 'id');
  for (let start = 0; start < n; start += 200) {
    const count = Math.min(200, n - start);
    const values: unknown[] = [];
    for (let k = start; k < start + count; k++) {
      const row = { ...template, ...change(k) };
      for (const c of columns) values.push(row[c] ?? null);
    }
    const tuple = `(${columns.map(() => '?').join(', ')})`;
    await ds.query(`INSERT INTO ${esc(table)} (${columns.map(esc).join(', ')}) VALUES ${Array.from({ length: count }, () => tuple).join(', ')}`, values);
  }
  return ((await ds.query(`SELECT id FROM ${esc(table)} WHERE id > ? ORDER BY id`, [Number(top)])) as { id: number }[]).map((r) => Number(r.id));
}

/** Every numbered page of a REST list (page=1, 2, … as Canvas's links name them), and the first page's Link. */
async function numberedPages(path: string, key = 'id'): Promise<{ pages: number[][]; last: string | undefined }> {
  const pages: number[][] = [];
  let last: string | undefined;
  for (let page = 1; page <= Math.ceil(N / PER) + 1; page++) {
    const res = expectOk(await teacher.api.get(`${path}${path.includes('?') ? '&' : '?'}page=${page}&per_page=${PER}`), `page ${page} of ${path}`);
    if (page === 1) last = parseLinks(res.headers.get('link')).last;
    pages.push((res.body as Record<string, number>[]).map((x) => x[key]));
  }
  return { pages, last };
}

const pad = (i: number) => String(i).padStart(4, '0');

beforeAll(async () => {
  server = await startTestServer();
  ds = server.app.ds;
  const world = new World(server);
  teacher = await world.user('Deep Teacher');
  student = await world.user('Deep Student 0000');
  course = await world.course({ name: 'Deep Course' });
  await world.enroll(course.id, teacher.id, 'TeacherEnrollment');
  await world.enroll(course.id, student.id, 'StudentEnrollment');
  category = await createCategory(teacher.api, course.id);
  group = await createGroup(teacher.api, category.id, { name: 'Team Same' });
  expectOk(await teacher.api.post(`/api/v1/groups/${group.id}/memberships`, { user_id: student.id }), 'add member');
  const note = await teacher.api.post('/api/v1/planner_notes', { title: 'Deep note 0000', todo_date: '2026-03-01T10:00:00Z' });
  expect(note.status).toBe(201);

  // Copies: a third of the members share one sortable name, half the groups one name (ties in the key).
  const name = (k: number) => (k % 3 === 0 ? 'Same, Sam' : `Student ${pad(k + 1)}`);
  const users = await copies('users', student.id, N - 1, (k) => ({ name: name(k), sortable_name: name(k), short_name: name(k), uuid: `deep-${Date.now()}-${k}` }));
  const [login] = (await ds.query('SELECT id FROM pseudonyms WHERE user_id = ?', [student.id])) as { id: number }[];
  const [enrollment] = (await ds.query('SELECT id FROM enrollments WHERE user_id = ? AND course_id = ?', [student.id, course.id])) as { id: number }[];
  await copies('enrollments', enrollment.id, N - 1, (k) => ({ user_id: users[k], sortable_name: name(k) }));
  await copies('pseudonyms', login.id, N - 1, (k) => ({ user_id: users[k], unique_id: `deep${k}@example.com`, unique_id_normalized: `deep${k}@example.com`, sortable_name: name(k) }));
  const [membership] = (await ds.query('SELECT id FROM group_memberships WHERE group_id = ?', [group.id])) as { id: number }[];
  await copies('group_memberships', membership.id, N - 1, (k) => ({ user_id: users[k], sortable_name: name(k), uuid: `deep-m-${Date.now()}-${k}` }));
  await copies('groups', group.id, N - 1, (k) => ({ name: k % 2 ? 'Team Same' : `Team ${pad(k)}`, sis_group_id: null, uuid: `deep-g-${Date.now()}-${k}` }));
  // A module of N items and a course of N modules, positions shared by pairs (ties in the key).
  const mod = expectOk(await teacher.api.post(`/api/v1/courses/${course.id}/modules`, { module: { name: 'Deep module 0000', position: 1 } }), 'module').body;
  deepModule = { id: mod.id };
  const item = expectOk(
    await teacher.api.post(`/api/v1/courses/${course.id}/modules/${mod.id}/items`, { module_item: { title: 'Item 0000', type: 'ExternalUrl', external_url: 'https://example.com/deep/0' } }),
    'item',
  ).body;
  await copies('module_items', item.id, N - 1, (k) => ({ title: `Item ${pad(k + 1)}`, position: 2 + Math.floor(k / 2) }));
  await copies('context_modules', mod.id, N - 1, (k) => ({ name: `Deep module ${pad(k + 1)}`, position: 2 + Math.floor(k / 2) }));
  const notes = await copies('planner_notes', note.body.id, N - 1, (k) => ({ title: `Deep note ${pad(k + 1)}` }));
  // Overrides page through keysetPage (one range), the others through pagePerParent.
  const made = await teacher.api.post(`/api/v1/courses/${course.id}/assignments`, { assignment: { name: 'Deep essay', submission_types: ['online_text_entry'], points_possible: 10, published: true } });
  expect(made.status).toBe(201);
  assignment = made.body;
  const override = await teacher.api.post('/api/v1/planner/overrides', { plannable_type: 'planner_note', plannable_id: note.body.id, marked_complete: true });
  expect(override.status).toBe(201);
  await copies('planner_overrides', override.body.id, N - 1, (k) => ({ plannable_id: notes[k] }));
}, 120_000);
afterAll(() => server?.close());

/** The ids the database itself orders, the oracle every walk is held to. */
const ordered = async (sql: string, params: unknown[]) => ((await ds.query(sql, params)) as { id: number }[]).map((r) => Number(r.id));

const lists = () => [
  {
    what: "a group's users",
    path: `/api/v1/groups/${group.id}/users`,
    oracle: () => ordered("SELECT user_id AS id FROM group_memberships WHERE group_id = ? AND workflow_state = 'accepted' ORDER BY sortable_name, user_id", [group.id]),
  },
  {
    what: "a category's groups",
    path: `/api/v1/group_categories/${category.id}/groups`,
    oracle: () => ordered("SELECT id FROM `groups` WHERE group_category_id = ? AND workflow_state = 'available' ORDER BY name, id", [category.id]),
  },
  {
    what: "a course's groups",
    path: `/api/v1/courses/${course.id}/groups`,
    oracle: () => ordered("SELECT id FROM `groups` WHERE context_id = ? AND context_type = 'Course' AND workflow_state = 'available' ORDER BY group_category_id, name, id", [course.id]),
  },
  {
    what: "the user's planner notes",
    path: '/api/v1/planner_notes',
    oracle: () => ordered("SELECT id FROM planner_notes WHERE user_id = ? AND workflow_state <> 'deleted' ORDER BY id", [teacher.id]),
  },
  {
    what: "a module's items",
    path: `/api/v1/courses/${course.id}/modules/${deepModule.id}/items`,
    oracle: () => ordered("SELECT id FROM module_items WHERE module_id = ? AND workflow_state <> 'deleted' ORDER BY position, id", [deepModule.id]),
  },
  {
    what: "a course's modules",
    path: `/api/v1/courses/${course.id}/modules`,
    oracle: () => ordered("SELECT id FROM context_modules WHERE course_id = ? AND workflow_state <> 'deleted' ORDER BY position, id", [course.id]),
  },
  {
    // Rows are submissions (placeholders made on the first read); the list is its students by id.
    what: "an assignment's submissions",
    path: `/api/v1/courses/${course.id}/assignments/${assignment.id}/submissions`,
    key: 'user_id',
    oracle: () => ordered("SELECT DISTINCT user_id AS id FROM enrollments WHERE course_id = ? AND type = 'StudentEnrollment' AND workflow_state IN ('active', 'invited') ORDER BY user_id", [course.id]),
  },
  {
    what: "the user's planner overrides",
    path: '/api/v1/planner/overrides',
    oracle: () => ordered("SELECT id FROM planner_overrides WHERE user_id = ? AND workflow_state = 'active' ORDER BY id", [teacher.id]),
  },
];

describe.each([0, 1, 2, 3, 4, 5, 6, 7])('deep numbered pages, list %i', (i) => {
  it('walks every page in the order the database gives, ties included; the last page is the tail, past it nothing', async () => {
    const list = lists()[i];
    const expected = await list.oracle();
    expect(expected).toHaveLength(N);
    const { pages, last } = await numberedPages(list.path, list.key);
    expect(pages.flat()).toEqual(expected);
    expect(pages[Math.ceil(N / PER) - 1]).toEqual(expected.slice(-(N % PER || PER)));
    expect(pages[Math.ceil(N / PER)]).toEqual([]);
    expect(last).toContain(`page=${Math.ceil(N / PER)}&per_page=${PER}`);
  });

  it('costs the statements of a shallow page (the count read once, for the page and its Link)', async () => {
    const list = lists()[i];
    const cost = async (page: number) => {
      const before = server.queryCount();
      expectOk(await teacher.api.get(`${list.path}?page=${page}&per_page=${PER}`));
      return server.queryCount() - before;
    };
    // Page 2 is read forwards (and, like every page here, holds only copies: page 1 holds the rows
    // made through the API, whose neighbours may cost their own reads).
    await cost(2);
    const shallow = await cost(2);
    expect(await cost(Math.ceil(N / PER))).toBe(shallow);
    expect(await cost(Math.ceil(N / PER) - 2)).toBe(shallow);
  });
});

it('answers a GraphQL offset cursor deep in a list with the rows of the same numbered page', async () => {
  const offsetCursor = (n: number) => Buffer.from(`offset:${n}`).toString('base64');
  const q = 'query($id: ID!, $after: String) { group(id: $id) { usersConnection(first: 50, after: $after) { nodes { _id } pageInfo { hasNextPage hasPreviousPage } } } }';
  const expected = await lists()[0].oracle();
  for (const page of [6, 9, 10]) {
    const res = await teacher.api.graphql(q, { id: String(group.id), after: offsetCursor((page - 1) * PER - 1) });
    expect(res.errors).toBeUndefined();
    const conn = res.data.group.usersConnection;
    expect(conn.nodes.map((n: { _id: string }) => Number(n._id))).toEqual(expected.slice((page - 1) * PER, page * PER));
    expect(conn.pageInfo).toEqual({ hasNextPage: page * PER < N, hasPreviousPage: true });
  }
});

it("reads a student's progress on a page of modules by the page's module ids, not the course's whole module range", async () => {
  // Published, the course's N modules are the student's; their progress is checked per page.
  await ds.query("UPDATE context_modules SET workflow_state = 'active' WHERE course_id = ?", [course.id]);
  const seen = await captureStatements(server, async () => expectOk(await student.api.get(`/api/v1/courses/${course.id}/modules?per_page=${PER}`)));
  const fresh = seen.find((st) => /COUNT\(\*\) AS n FROM context_modules m WHERE .*\bm\.id IN \(/s.test(st.sql));
  expect(fresh).toBeDefined();
  if (server.db.kind === 'mysql') {
    const plan = (await ds.query(`EXPLAIN ${fresh!.sql}`, [...fresh!.params])) as { table: string; key: string | null; rows: number }[];
    expect(plan.find((r) => r.table === 'm')).toMatchObject({ key: 'PRIMARY' });
  } else {
    const plan = (await ds.query(`EXPLAIN QUERY PLAN ${fresh!.sql}`, [...fresh!.params])) as { detail: string }[];
    // Without statistics SQLite takes the (course, state) index and filters all N modules by the ids.
    expect(plan.find((r) => /^SEARCH m\b/.test(r.detail))?.detail).toMatch(/PRIMARY KEY/);
  }
});

// Last: it grows the tables with other parents' rows (as the EXPLAIN tests do), which the oracles above would see.
describe('the statements of deep pages', () => {
  const h = new ExplainHarness(['group_memberships', 'groups', 'planner_notes', 'planner_overrides', 'module_items', 'context_modules', 'enrollments']);
  beforeAll(async () => {
    h.server = server;
    await h.grow('group_memberships', 'group_id', 3);
    await h.grow('groups', ['context_id', 'group_category_id'], 3);
    await h.grow('planner_notes', 'user_id', 3);
    await h.grow('planner_overrides', 'user_id', 3);
    await h.grow('module_items', 'module_id', 3);
    await h.grow('context_modules', 'course_id', 3);
    await h.grow('enrollments', 'course_id', 3);
    await h.analyze();
  }, 120_000);

  it.each([
    ['group_memberships', 0],
    ['groups', 1],
    ['groups', 2],
    ['planner_notes', 3],
    ['module_items', 4],
    ['context_modules', 5],
    ['enrollments', 6],
    ['planner_overrides', 7],
  ] as const)('%s: list %i reads its last page backwards from an index, sorting nothing', async (table, i) => {
    const path = `${lists()[i].path}?page=${Math.ceil(N / PER)}&per_page=${PER}`;
    const plans = await h.explainPages(table, () => teacher.api.get(path));
    // The page read is the reversed one (a deep page's), and its plan has no scan and no sort.
    expect(Object.keys(plans).some((sql) => /\bDESC\b.*LIMIT \d+ OFFSET \d+/s.test(sql) || /ORDER BY [^)]*\b(ASC|DESC)\b[^)]*LIMIT \d+ OFFSET \d+$/s.test(sql))).toBe(true);
    h.clean(plans);
  });
});
