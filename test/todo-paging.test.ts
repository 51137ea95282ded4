import { parseLinks } from './support/api';
import { statementCost } from './support/graph';
import { startTestServer, TestServer } from './support/server';
import { World, WorldUser } from './support/world';

/**
 * The to-do and missing lists read only what a page needs (the planner a page at a time, grading
 * assignments with LIMIT): walking them in small pages gives exactly the one big page, ties in the
 * due date included, and a first page costs the same statements as the lists grow.
 */
let server: TestServer;
let world: World;
let teacher: WorldUser;
let student: WorldUser;
let cid: number;
const DAY = 86_400_000;

async function assignment(name: string, dueInDays: number): Promise<number> {
  const due = new Date(Math.floor(Date.now() / DAY) * DAY + dueInDays * DAY + 12 * 3_600_000).toISOString();
  const res = await teacher.api.post(`/api/v1/courses/${cid}/assignments`, { assignment: { name, submission_types: ['online_text_entry'], published: true, due_at: due } });
  if (res.status >= 300) throw new Error(`assignment: ${res.status} ${res.text}`);
  return res.body.id as number;
}

/** A REST list walked by its Link next, as `key` of each entry. */
async function walk(api: WorldUser['api'], path: string, key: (x: any) => string): Promise<string[]> {
  const out: string[] = [];
  let next: string | undefined = path;
  for (let i = 0; next && i < 50; i++) {
    const res: Awaited<ReturnType<WorldUser['api']['get']>> = await api.get(next);
    expect(res.status).toBe(200);
    out.push(...(res.body as any[]).map(key));
    next = parseLinks(res.headers.get('link')).next?.replace(server.url, '');
  }
  return out;
}

const todoKey = (t: any) => `${t.type}:${t.assignment?.id ?? t.quiz?.id}`;

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
  [teacher, student] = await Promise.all([world.user('Tia Teacher'), world.user('Stu Student')]);
  cid = (await world.course({ name: 'To-do' })).id;
  await world.enroll(cid, teacher.id, 'TeacherEnrollment');
  await world.enroll(cid, student.id, 'StudentEnrollment');
  // Due in the to-do window (two on the same day: ties in the sort key), and some past due (missing).
  for (const [i, d] of [1, 2, 2, 2, 3, 4, -1].entries()) await assignment(`Work ${i}`, d);
  for (const [i, d] of [-3, -2, -2, -5].entries()) await assignment(`Old ${i}`, d);
  const toSubmit = await assignment('Turned in', 5);
  const res = await student.api.post(`/api/v1/courses/${cid}/assignments/${toSubmit}/submissions`, { submission: { submission_type: 'online_text_entry', body: 'done' } });
  expect(res.status).toBe(201);
}, 300_000);
afterAll(() => server?.close());

it("a student's to-do list walked in pages of 2 is the list in one page", async () => {
  const whole = await walk(student.api, '/api/v1/users/self/todo?per_page=50', todoKey);
  expect(whole.length).toBeGreaterThanOrEqual(7);
  expect(await walk(student.api, '/api/v1/users/self/todo?per_page=2', todoKey)).toEqual(whole);
});

it("a teacher's grading entries page the same way", async () => {
  const whole = await walk(teacher.api, '/api/v1/users/self/todo?per_page=50', todoKey);
  expect(whole).toHaveLength(1);
  expect(await walk(teacher.api, '/api/v1/users/self/todo?per_page=1', todoKey)).toEqual(whole);
});

it('missing submissions walked in pages of 1 are the list in one page, with its total when selected', async () => {
  const whole = await walk(student.api, '/api/v1/users/self/missing_submissions?per_page=50', (x) => String(x.id));
  expect(whole.length).toBe(5);
  expect(await walk(student.api, '/api/v1/users/self/missing_submissions?per_page=1', (x) => String(x.id))).toEqual(whole);
  const res = await student.api.graphql('{ missingSubmissions(first: 1) { totalCount nodes { assignment { _id } } } }');
  expect(res.data.missingSubmissions.totalCount).toBe(5);
});

it('a first page costs the same statements as the lists grow', async () => {
  const todo = () => student.api.get('/api/v1/users/self/todo?per_page=2');
  const missing = () => student.api.get('/api/v1/users/self/missing_submissions?per_page=2');
  const before = [await statementCost(server, todo), await statementCost(server, missing)];
  for (let i = 0; i < 4; i++) await assignment(`More ${i}`, 3);
  for (let i = 0; i < 4; i++) await assignment(`Older ${i}`, -4);
  expect([await statementCost(server, todo), await statementCost(server, missing)]).toEqual(before);
});

describe('a page with no entry after it ends the list: its total needs no second read (as will_paginate)', () => {
  const LISTS = [{ name: 'todoItems' }, { name: 'missingSubmissions' }];
  const query = (name: string, first: number, total: boolean) => `{ ${name}(first: ${first}) { ${total ? 'totalCount ' : ''}nodes { __typename } } }`;
  const lastPage = (link: string | null) => Number(new URL(parseLinks(link).last!).searchParams.get('page'));

  it.each(LISTS)('GraphQL $name: a partial first page reads no more for totalCount than without it; a full page reads the list again', async ({ name }) => {
    const all = (await student.api.graphql(query(name, 100, true))).data[name];
    const n: number = all.totalCount;
    expect(n).toBe(all.nodes.length);
    expect(n).toBeGreaterThan(2);
    const cost = (first: number, total: boolean) => statementCost(server, async () => expect((await student.api.graphql(query(name, first, total))).errors).toBeUndefined());
    expect(await cost(100, true)).toBe(await cost(100, false));
    // A full page says nothing of what follows it: the list is read again for its total.
    expect(await cost(1, true)).toBeGreaterThan(await cost(1, false));
    expect((await student.api.graphql(query(name, 1, true))).data[name].totalCount).toBe(n);
  });

  // The to-do list's Link has no rel="last" (as Canvas's): missing submissions has one.
  it('REST missing_submissions: rel="last" of a partial page comes from its own rows, and is the same as counted', async () => {
    const rest = '/api/v1/users/self/missing_submissions';
    const whole = await student.api.get(`${rest}?per_page=100`);
    const n = (whole.body as unknown[]).length;
    expect(lastPage(whole.headers.get('link'))).toBe(1);
    // The last page of pages of 2 (partial when n is odd, else full), and a full first page: all say the same last page.
    const pages = Math.ceil(n / 2);
    const last = await student.api.get(`${rest}?per_page=2&page=${pages}`);
    expect((last.body as unknown[]).length).toBe(n - 2 * (pages - 1));
    expect(lastPage(last.headers.get('link'))).toBe(pages);
    expect(lastPage((await student.api.get(`${rest}?per_page=2`)).headers.get('link'))).toBe(pages);
    expect(await statementCost(server, () => student.api.get(`${rest}?per_page=100`))).toBeLessThan(await statementCost(server, () => student.api.get(`${rest}?per_page=1`)));
  });
});
