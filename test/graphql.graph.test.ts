import fs from 'node:fs';
import path from 'node:path';
import { Api } from './support/api';
import { statementCost } from './support/graph';
import { addMembers, createCategory, createGroup, makeAccountAdmin } from './support/groups';
import { ModulesKit, ok, startModulesWorld } from './support/modules';
import type { TestServer } from './support/server';
import type { World } from './support/world';

/**
 * The navigable graph (issue 12): every nested list answers what its REST list answers for the same
 * caller, hides what the top-level query hides, and costs the same SQL statements whatever the
 * lengths of the lists it descends through.
 */

let server: TestServer;
let world: World;
let kit: ModulesKit;

beforeAll(async () => ({ server, world, kit } = await startModulesWorld()));
afterAll(() => server?.close());

async function gql(api: Api, query: string, variables: Record<string, unknown> = {}) {
  const res = await api.graphql(query, variables);
  // The errors ride along so a refusal (e.g. the cost limit) says why.
  expect({ status: res.status, errors: res.status === 200 ? undefined : res.errors }).toEqual({ status: 200, errors: undefined });
  return res;
}

async function data(api: Api, query: string, variables: Record<string, unknown> = {}) {
  const res = await gql(api, query, variables);
  expect(res.errors).toBeUndefined();
  return res.data;
}

const ids = (list: { id: number | string }[]) => list.map((x) => Number(x.id));
const _ids = (list: { _id: string }[]) => list.map((x) => Number(x._id));

/**
 * A course with `modules` published modules of `perModule` items each (assignment, page, quiz,
 * sub-header in turn), the second module requiring the first, plus one unpublished module and one
 * unpublished item that students must not see.
 */
async function modulesCourse(name: string, modules: number, perModule: number): Promise<{ k: ModulesKit; moduleIds: number[] }> {
  const k = await kit.sibling(world, name);
  const [assignment, page, quiz] = [await k.assignment(), await k.page(), await k.quiz()];
  const moduleIds: number[] = [];
  for (let m = 0; m < modules; m++) {
    const mod = await k.module({ name: `${name} M${m + 1}`, ...(m > 0 ? { prerequisite_module_ids: [moduleIds[0]] } : {}) });
    moduleIds.push(mod.id);
    for (let p = 0; p < perModule; p++) {
      const kind = p % 4;
      const fields =
        kind === 0 ? { type: 'Assignment', content_id: assignment.id } : kind === 1 ? { type: 'Page', page_url: page.url } : kind === 2 ? { type: 'Quiz', content_id: quiz.id } : { type: 'SubHeader', title: `Heading ${p}` };
      await k.addItem(mod.id, fields);
    }
    await k.publish(mod.id);
  }
  const hidden = await k.module({ name: `${name} draft` });
  await k.addItem(hidden.id, { type: 'Assignment', content_id: assignment.id });
  // (An ExternalUrl: unpublishing an item unpublishes what it links, which other items share.)
  const draft = await k.addItem(moduleIds[0], { type: 'ExternalUrl', external_url: 'https://example.com/draft', title: 'Draft' });
  ok(await k.teacher.put(k.item(moduleIds[0], draft.id), { module_item: { published: false } }), 'unpublish item');
  return { k, moduleIds };
}

// 10 modules: each one's moduleItems costs its bound (100 items), so 100 modules would be past the cost limit (issue 19).
const MODULES_QUERY = `query($c: ID!) { course(id: $c) { modulesConnection(first: 10) { totalCount nodes {
  _id name prerequisites { id name type module { _id } }
  moduleItems { _id title type module { _id } next { _id } previous { _id } content { __typename ... on Assignment { _id } ... on Page { _id } ... on Quiz { _id } } }
  moduleItemsConnection(first: 100) { totalCount nodes { _id } }
  assignmentOverrides { totalCount }
} } } }`;

describe('Course -> modules -> items -> content', () => {
  let small: Awaited<ReturnType<typeof modulesCourse>>;
  let big: Awaited<ReturnType<typeof modulesCourse>>;

  beforeAll(async () => {
    small = await modulesCourse('Small', 2, 3);
    big = await modulesCourse('Big', 5, 8);
  });

  for (const who of ['teacher', 'student'] as const) {
    it(`answers what the REST module, item and sequence lists answer (${who})`, async () => {
      const { k } = big;
      const api = who === 'teacher' ? k.teacher : k.room.student.api;
      const d = await data(api, MODULES_QUERY, { c: String(k.cid) });
      const rest = ok(await api.get(`${k.modules()}?per_page=100&include[]=items`));
      const mods = d.course.modulesConnection.nodes;
      expect(_ids(mods)).toEqual(ids(rest));
      expect(d.course.modulesConnection.totalCount).toBe(rest.length);
      // Students do not see the unpublished module; teachers do.
      expect(rest.length).toBe(who === 'teacher' ? 6 : 5);
      const sequence: number[] = [];
      for (const [i, m] of mods.entries()) {
        const items = ok(await api.get(`${k.items(Number(m._id))}?per_page=100`));
        expect(_ids(m.moduleItems)).toEqual(ids(items));
        expect(_ids(m.moduleItemsConnection.nodes)).toEqual(ids(items));
        for (const it of m.moduleItems) {
          expect(it.module._id).toBe(m._id);
          const restItem = items.find((x: any) => x.id === Number(it._id));
          if (restItem.type === 'SubHeader' || restItem.type === 'ExternalUrl') expect(it.content).toBeNull();
          else if (restItem.type === 'Page') expect(it.content.__typename).toBe('Page');
          else expect(Number(it.content._id)).toBe(restItem.content_id);
          if (it.type !== 'SubHeader') sequence.push(Number(it._id));
        }
        expect(m.prerequisites.map((p: any) => Number(p.id))).toEqual(rest[i].prerequisite_module_ids);
        for (const p of m.prerequisites) expect(p).toMatchObject({ type: 'context_module', module: { _id: p.id } });
        // Overrides are for content managers only, as moduleOverridesConnection is.
        expect(m.assignmentOverrides).toEqual(who === 'teacher' ? { totalCount: 0 } : null);
      }
      // next/previous follow module_item_sequence across module boundaries.
      const flat = mods.flatMap((m: any) => m.moduleItems).filter((it: any) => it.type !== 'SubHeader');
      for (const probe of [flat[0], flat[3], flat[flat.length - 1]]) {
        const seq = ok(await api.get(`/api/v1/courses/${k.cid}/module_item_sequence?asset_type=ModuleItem&asset_id=${probe._id}`));
        expect(probe.next?._id ?? null).toBe(seq.items[0].next ? String(seq.items[0].next.id) : null);
        expect(probe.previous?._id ?? null).toBe(seq.items[0].prev ? String(seq.items[0].prev.id) : null);
      }
      expect(sequence.length).toBe(flat.length);
    });
  }

  it('costs the same statements for 5 modules of 8 items as for 2 of 3 (teacher, student, observer)', async () => {
    for (const who of [kit.room.teacher, kit.room.student, kit.room.observer]) {
      ok(await who.api.get('/api/v1/users/self'));
      const run = (c: number) => async () => expect((await gql(who.api, MODULES_QUERY, { c: String(c) })).errors).toBeUndefined();
      // A first read evaluates and stores progressions (modules.graphql.test.ts counts that); measure reads.
      await run(big.k.cid)();
      await run(small.k.cid)();
      expect({ who: who.name, statements: await statementCost(server, run(big.k.cid)) }).toEqual({ who: who.name, statements: await statementCost(server, run(small.k.cid)) });
    }
  });

  it('hides what the top-level queries hide: unpublished items, other students’ views, outsiders', async () => {
    const { k, moduleIds } = small;
    const student = await data(k.room.student.api, `query($c: ID!, $m: ID!) { course(id: $c) { modulesConnection { nodes { moduleItems { _id title } } } } module(courseId: $c, id: $m) { moduleItems { _id } } }`, { c: String(k.cid), m: String(moduleIds[0]) });
    const teacher = await data(k.teacher, `query($c: ID!, $m: ID!) { module(courseId: $c, id: $m) { moduleItems { _id } } }`, { c: String(k.cid), m: String(moduleIds[0]) });
    // The unpublished item is the teacher's only.
    expect(teacher.module.moduleItems.length).toBe(student.module.moduleItems.length + 1);
    // A student may not look through another student's view, nested as at the top.
    const other = await gql(k.room.student.api, `query($c: ID!, $s: ID!) { course(id: $c) { modulesConnection(studentId: $s) { nodes { _id } } } }`, { c: String(k.cid), s: String(k.room.student2.id) });
    expect(other.data.course.modulesConnection).toBeNull();
    // An outsider reaches no course, module or item, by any path.
    const out = await gql(k.room.outsider.api, `query($c: ID!, $m: ID!) { course(id: $c) { _id } legacyNode(type: Module, _id: $m) { id } viewer { coursesConnection { totalCount } enrollments { _id } } }`, { c: String(k.cid), m: String(moduleIds[0]) });
    expect(out.data?.course ?? null).toBeNull();
    expect(out.data?.legacyNode ?? null).toBeNull();
  });
});

describe('Course -> group sets -> groups -> members', () => {
  async function groupsCourse(sets: number, groups: number, members: number) {
    const k = await kit.sibling(world, `Groups ${sets}x${groups}`);
    const people = [k.room.student, k.room.student2];
    for (let s = 0; s < sets; s++) {
      const cat = await createCategory(k.teacher, k.cid);
      for (let g = 0; g < groups; g++) {
        const group = await createGroup(k.teacher, cat.id);
        await addMembers(k.teacher, group.id, people.slice(0, members));
      }
    }
    return k;
  }
  const QUERY = `query($c: ID!) { course(id: $c) { groupSetsConnection(first: 10) { nodes { _id name groupsConnection(first: 10) { nodes { _id
    membersConnection(first: 10) { nodes { _id user { _id } } } membershipsConnection(first: 10) { totalCount } } } } } groupsConnection(first: 50) { nodes { _id } } } }`;

  it('answers what the REST lists answer, at a fixed statement count', async () => {
    const small = await groupsCourse(1, 2, 1);
    const big = await groupsCourse(3, 3, 2);
    const t = kit.teacher;
    ok(await t.get('/api/v1/users/self'));
    const d = await data(t, QUERY, { c: String(big.cid) });
    const cats = ok(await t.get(`/api/v1/courses/${big.cid}/group_categories?per_page=100`));
    const sets = d.course.groupSetsConnection.nodes;
    expect(_ids(sets)).toEqual(ids(cats));
    for (const s of sets) {
      const groups = ok(await t.get(`/api/v1/group_categories/${s._id}/groups?per_page=100`));
      expect(_ids(s.groupsConnection.nodes)).toEqual(ids(groups));
      for (const g of s.groupsConnection.nodes) {
        const members = ok(await t.get(`/api/v1/groups/${g._id}/memberships?per_page=100`));
        expect(_ids(g.membersConnection.nodes)).toEqual(ids(members));
        expect(g.membersConnection.nodes.map((m: any) => Number(m.user._id))).toEqual(members.map((m: any) => m.user_id));
      }
    }
    const groups = ok(await t.get(`/api/v1/courses/${big.cid}/groups?per_page=100`));
    expect(_ids(d.course.groupsConnection.nodes)).toEqual(ids(groups));
    const read = (k: ModulesKit) => async () => expect((await gql(t, QUERY, { c: String(k.cid) })).errors).toBeUndefined();
    await read(small)();
    expect(await statementCost(server, read(big))).toBe(await statementCost(server, read(small)));
  });

  it('gives an outsider and a user of another course nothing nested', async () => {
    const k = await groupsCourse(1, 1, 2);
    const group = (ok(await k.teacher.get(`/api/v1/courses/${k.cid}/groups`)) as any[])[0];
    const out = await gql(k.room.outsider.api, `query($g: ID!) { legacyNode(type: Group, _id: $g) { ... on Group { membersConnection { totalCount } } } viewer { groups { _id } groupsConnection { totalCount } } }`, { g: String(group.id) });
    expect(out.data.legacyNode).toBeNull();
    expect(out.data.viewer).toEqual({ groups: [], groupsConnection: { totalCount: 0 } });
    // A member sees their own groups through viewer, as GET /users/self/groups lists them.
    const mine = await data(k.room.student.api, `{ viewer { groups { _id } } }`);
    const rest = ok(await k.room.student.api.get('/api/v1/users/self/groups?per_page=100'));
    expect(_ids(mine.viewer.groups)).toEqual(ids(rest));
  });
});

describe('User, Account, Course and Assignment lists', () => {
  it('viewer -> enrollments, courses, planner notes and overrides match REST; another user’s personal lists are null', async () => {
    const s = kit.room.student;
    ok(await s.api.post('/api/v1/planner_notes', { title: 'Revise', todo_date: '2030-01-01T10:00:00Z' }));
    const d = await data(s.api, `{ viewer { _id enrollments { _id courseId } coursesConnection(first: 100) { nodes { _id } }
      plannerNotesConnection(first: 100) { nodes { _id } } plannerOverridesConnection(first: 100) { nodes { _id } }
      plannerItemsConnection(first: 100, startDate: "2029-01-01") { nodes { plannableId } } } }`);
    const courses = ok(await s.api.get('/api/v1/courses?per_page=100'));
    expect(_ids(d.viewer.coursesConnection.nodes)).toEqual(ids(courses));
    expect([...new Set(d.viewer.enrollments.map((e: any) => Number(e.courseId)))].sort()).toEqual(ids(courses).sort());
    const notes = ok(await s.api.get('/api/v1/planner_notes?per_page=100'));
    expect(_ids(d.viewer.plannerNotesConnection.nodes)).toEqual(ids(notes));
    const overrides = ok(await s.api.get('/api/v1/planner/overrides?per_page=100'));
    expect(_ids(d.viewer.plannerOverridesConnection.nodes)).toEqual(ids(overrides));
    const items = ok(await s.api.get('/api/v1/planner/items?per_page=100&start_date=2029-01-01'));
    expect(d.viewer.plannerItemsConnection.nodes.map((n: any) => String(n.plannableId))).toEqual(items.map((i: any) => String(i.plannable_id)));

    // The teacher sees the student's enrollments in their course, but none of the personal lists.
    const t = await gql(kit.teacher, `query($u: ID!) { user(id: $u) { enrollments(courseId: ${kit.cid}) { _id } plannerNotesConnection { totalCount } plannerOverridesConnection { totalCount } groups { _id } coursesConnection { totalCount } } }`, { u: String(s.id) });
    expect(t.errors).toBeUndefined();
    expect(t.data.user.enrollments.length).toBe(1);
    expect(t.data.user).toMatchObject({ plannerNotesConnection: null, plannerOverridesConnection: null, groups: null, coursesConnection: null });
    // A classmate sees none of the student's personal lists.
    const c = await gql(kit.room.student2.api, `query($u: ID!) { user(id: $u) { plannerNotesConnection { totalCount } groups { _id } } }`, { u: String(s.id) });
    expect(c.data?.user ?? { plannerNotesConnection: null, groups: null }).toEqual({ plannerNotesConnection: null, groups: null });
  });

  it('account -> courses, groups, group sets and blackout dates for admins only', async () => {
    const admin = await world.user('Ada Admin');
    await makeAccountAdmin(server, admin.id);
    ok(await server.admin.post('/api/v1/accounts/self/blackout_dates', { blackout_date: { event_title: 'Break', start_date: '2030-01-01', end_date: '2030-01-02' } }));
    const q = `{ account(id: "self") { _id coursesConnection(first: 100) { totalCount nodes { _id } } groupsConnection { totalCount } groupSetsConnection { totalCount } blackoutDates { _id } } }`;
    const d = await data(admin.api, q);
    expect(d.account.coursesConnection.nodes.map((c: any) => Number(c._id))).toContain(kit.cid);
    const dates = ok(await admin.api.get('/api/v1/accounts/self/blackout_dates'));
    expect(_ids(d.account.blackoutDates)).toEqual(ids(dates.blackout_dates ?? dates));
    const refused = await gql(kit.teacher, q);
    expect(refused.data?.account ?? null).toBeNull();
  });

  it('course -> blackout dates and quiz extensions for those who may read them; assignment -> submissions and module items', async () => {
    const a = await kit.assignment({ name: 'Linked' });
    const mod = await kit.module({ name: 'Has link' }, { publish: true });
    const item = await kit.addItem(mod.id, { type: 'Assignment', content_id: a.id });
    await kit.submit(kit.room.student, a.id);
    const q = `query($c: ID!, $a: ID!) { course(id: $c) { blackoutDates { _id } quizExtensions { userId } }
      assignment(courseId: $c, id: $a) { moduleItems { _id module { _id } } submissionsConnection(first: 100) { nodes { userId } } } }`;
    const vars = { c: String(kit.cid), a: String(a.id) };
    const t = await data(kit.teacher, q, vars);
    expect(t.course.blackoutDates).toEqual([]);
    expect(t.course.quizExtensions).toEqual([]);
    expect(t.assignment.moduleItems).toEqual([{ _id: String(item.id), module: { _id: String(mod.id) } }]);
    const subs = ok(await kit.teacher.get(`/api/v1/courses/${kit.cid}/assignments/${a.id}/submissions?per_page=100`));
    expect(t.assignment.submissionsConnection.nodes.map((n: any) => Number(n.userId)).sort()).toEqual(subs.map((x: any) => x.user_id).sort());
    const s = await data(kit.room.student.api, q, vars);
    expect(s.course).toEqual({ blackoutDates: null, quizExtensions: null });
    expect(s.assignment.moduleItems).toHaveLength(1);
    expect(s.assignment.submissionsConnection.nodes.map((n: any) => Number(n.userId))).toEqual([kit.room.student.id]);
  });
});

describe('docs/API.md', () => {
  it('its navigable query runs within the default cost limit and answers the course it names', async () => {
    const readme = fs.readFileSync(path.join(__dirname, '..', 'docs', 'API.md'), 'utf8');
    const query = /### A navigable graph[\s\S]*?```graphql\n([\s\S]*?)```/.exec(readme)![1];
    const d = await data(kit.room.student.api, query, { courseId: String(kit.cid) });
    expect(d.course.name).toBe(kit.room.course.name);
    expect(d.viewer.enrollments.length).toBeGreaterThan(0);
  });
});
