import { ModuleItem } from '../src/modules/module-item.entity';
import { parseLinks } from './support/api';
import { FORBIDDEN, ISO, MODULE_KEYS, moduleTables, ModulesKit, NOT_FOUND, ok, UNAUTHENTICATED, startModulesWorld } from './support/modules';
import type { TestServer } from './support/server';
import type { World, WorldUser } from './support/world';

/** Modules themselves: create, list, show, update, publish, delete, relock, with Canvas shapes and refusals. */

let server: TestServer;
let world: World;
let kit: ModulesKit;
beforeAll(async () => ({ server, world, kit } = await startModulesWorld()));
afterAll(() => server.close());

const sorted = (o: object) => Object.keys(o).sort();

/** A fresh course for tests that count positions from 1. */
function freshKit(): Promise<ModulesKit> {
  return kit.sibling(world);
}

describe('POST /api/v1/courses/:course_id/modules', () => {
  it('creates an unpublished module at the end, with the Canvas keys a teacher sees', async () => {
    const k = await freshKit();
    const res = await k.teacher.post(k.modules(), {
      module: { name: '  Week 1  ', unlock_at: '2031-01-01T10:00:00Z', require_sequential_progress: 'true', publish_final_grade: '1' },
    });
    expect(res.status).toBe(200);
    expect(sorted(res.body)).toEqual([...MODULE_KEYS, 'published'].sort());
    expect(res.body).toEqual({
      id: expect.any(Number),
      workflow_state: 'active',
      position: 1,
      name: 'Week 1',
      unlock_at: '2031-01-01T10:00:00Z',
      require_sequential_progress: true,
      requirement_type: 'all',
      prerequisite_module_ids: [],
      items_count: 0,
      items_url: `${server.url}/api/v1/courses/${k.cid}/modules/${res.body.id}/items`,
      publish_final_grade: true,
      published: false,
    });
    const second = ok(await k.teacher.post(k.modules(), { module: { name: 'Week 2' } }));
    expect(second).toMatchObject({ position: 2, require_sequential_progress: false, publish_final_grade: false, unlock_at: null, published: false });
  });

  it('inserts at a 1-based position and renumbers the modules after it', async () => {
    const k = await freshKit();
    const [a, b, c] = [await k.module({ name: 'A' }), await k.module({ name: 'B' }), await k.module({ name: 'C' })];
    const d = ok(await k.teacher.post(k.modules(), { module: { name: 'D', position: 2 } }));
    expect(d.position).toBe(2);
    const list = ok(await k.teacher.get(k.modules()));
    expect(list.map((m: any) => [m.name, m.position])).toEqual([['A', 1], ['D', 2], ['B', 3], ['C', 4]]);
    // A position past the end appends.
    const e = ok(await k.teacher.post(k.modules(), { module: { name: 'E', position: 99 } }));
    expect(e.position).toBe(5);
    expect([a.id, b.id, c.id].length).toBe(3);
  });

  it('keeps only prerequisites at lower positions (others, unknown ids and itself are dropped silently)', async () => {
    const k = await freshKit();
    const first = await k.module({ name: 'First' });
    const second = await k.module({ name: 'Second' });
    const third = ok(await k.teacher.post(k.modules(), { module: { name: 'Third', prerequisite_module_ids: [String(first.id), `module_${second.id}`, '999999'] } }));
    expect(third.prerequisite_module_ids).toEqual([first.id, second.id]);
    // Inserted at position 1, nothing is below it: every prerequisite is dropped.
    const top = ok(await k.teacher.post(k.modules(), { module: { name: 'Top', position: 1, prerequisite_module_ids: [first.id, second.id] } }));
    expect(top.prerequisite_module_ids).toEqual([]);
    // JSON bodies work the same.
    const json = ok(await k.teacher.post(k.modules(), { module: { name: 'Json', prerequisite_module_ids: [third.id] } }, { json: true }));
    expect(json.prerequisite_module_ids).toEqual([third.id]);
  });

  it('lets teachers, TAs and designers create; refuses students, observers and outsiders (403) and anonymous callers (401), storing nothing', async () => {
    for (const who of [kit.room.teacher, kit.room.ta, kit.room.designer]) {
      expect((await who.api.post(kit.modules(), { module: { name: `By ${who.name}` } })).status).toBe(200);
    }
    const before = await moduleTables(server);
    for (const who of [kit.room.student, kit.room.observer, kit.room.outsider]) {
      const res = await who.api.post(kit.modules(), { module: { name: 'Nope' } });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    }
    const anon = await server.as(null).post(kit.modules(), { module: { name: 'Nope' } });
    expect(anon.status).toBe(401);
    expect(anon.body).toEqual(UNAUTHENTICATED);
    expect(await moduleTables(server)).toEqual(before);
  });

  it('refuses bad input with Canvas bodies (400), and unknown courses (404), storing nothing', async () => {
    const before = await moduleTables(server);
    const bad = async (body: Record<string, unknown>, json = false) => kit.teacher.post(kit.modules(), body, { json });
    expect(await bad({})).toMatchObject({ status: 400, body: { message: 'missing module parameter' } });
    expect(await bad({ module: 'x' })).toMatchObject({ status: 400, body: { message: 'missing module parameter' } });
    expect(await bad({ module: { name: '   ' } })).toMatchObject({ status: 400, body: { message: 'missing module name' } });
    expect(await bad({ module: { position: 1 } })).toMatchObject({ status: 400, body: { message: 'missing module name' } });
    for (const position of ['-1', '0', '1.5']) {
      const res = await bad({ module: { name: 'P', position } });
      expect(res.status).toBe(400);
      expect(res.body.errors.position[0]).toMatchObject({ attribute: 'position' });
    }
    const nan = await bad({ module: { name: 'P', position: 'abc' } });
    expect(nan.status).toBe(400);
    expect(nan.body.errors).toHaveProperty('position');
    const date = await bad({ module: { name: 'D', unlock_at: 'next tuesday' } });
    expect(date.status).toBe(400);
    expect(date.body.errors).toHaveProperty('unlock_at');
    const prereq = await bad({ module: { name: 'Q', prerequisite_module_ids: ['abc'] } });
    expect(prereq.status).toBe(400);
    expect(prereq.body.errors).toHaveProperty('prerequisite_module_ids');
    expect(await bad({ module: { name: 'x'.repeat(256) } })).toMatchObject({ status: 400, body: { errors: { name: [expect.objectContaining({ type: 'too_long' })] } } });
    expect(await bad({ module: { name: 'J', position: -3 } }, true)).toMatchObject({ status: 400 });
    const missing = await kit.teacher.post('/api/v1/courses/999999/modules', { module: { name: 'Ghost' } });
    expect(missing).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(await moduleTables(server)).toEqual(before);
  });
});

describe('GET /api/v1/courses/:course_id/modules and /modules/:id', () => {
  let k: ModulesKit;
  let published: any;
  let draft: any;
  let assignment: any;
  beforeAll(async () => {
    k = await freshKit();
    assignment = await k.assignment({ name: 'Lab report' });
    published = await k.module({ name: 'Published Week' });
    await k.addItem(published.id, { type: 'Assignment', content_id: assignment.id, completion_requirement: { type: 'must_submit' } });
    await k.addItem(published.id, { type: 'SubHeader', title: 'Reading' });
    published = await k.publish(published.id);
    draft = await k.module({ name: 'Draft Week' });
  });

  it('shows teachers every module with `published`, and no progress keys', async () => {
    const list = ok(await k.teacher.get(k.modules()));
    expect(list.map((m: any) => [m.name, m.published])).toEqual([['Published Week', true], ['Draft Week', false]]);
    for (const m of list) {
      expect(sorted(m)).toEqual([...MODULE_KEYS, 'published'].sort());
      expect(m).not.toHaveProperty('items');
    }
    expect(list[0].items_count).toBe(2);
    const one = ok(await k.room.ta.api.get(k.modules(`/${draft.id}`)));
    expect(one).toMatchObject({ id: draft.id, published: false });
  });

  it('shows students published modules only, with state and completed_at and without `published`', async () => {
    const list = ok(await k.room.student.api.get(k.modules()));
    expect(list).toHaveLength(1);
    expect(sorted(list[0])).toEqual([...MODULE_KEYS, 'state', 'completed_at'].sort());
    expect(list[0]).toMatchObject({ id: published.id, state: 'unlocked', completed_at: null, items_count: 2 });
    expect(ok(await k.room.student.api.get(k.modules(`/${published.id}`)))).toMatchObject({ state: 'unlocked' });
    expect(await k.room.student.api.get(k.modules(`/${draft.id}`))).toMatchObject({ status: 404, body: NOT_FOUND });
  });

  it('shows observers published modules without state or published; outsiders 403, anonymous 401', async () => {
    const list = ok(await k.room.observer.api.get(k.modules()));
    expect(list.map((m: any) => m.id)).toEqual([published.id]);
    expect(sorted(list[0])).toEqual([...MODULE_KEYS].sort());
    expect(await k.room.outsider.api.get(k.modules())).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await k.room.outsider.api.get(k.modules(`/${published.id}`))).toMatchObject({ status: 403 });
    expect(await server.as(null).get(k.modules())).toMatchObject({ status: 401, body: UNAUTHENTICATED });
  });

  it('with student_id shows that student’s progress to the teacher and the student’s observer only', async () => {
    await k.submit(k.room.student, assignment.id);
    const asTeacher = ok(await k.teacher.get(`${k.modules()}?student_id=${k.room.student.id}`));
    expect(asTeacher.map((m: any) => m.id)).toEqual([published.id]);
    expect(asTeacher[0]).toMatchObject({ state: 'completed', completed_at: expect.stringMatching(ISO) });
    expect(asTeacher[0]).not.toHaveProperty('published');
    const other = ok(await k.teacher.get(`${k.modules(`/${published.id}`)}?student_id=${k.room.student2.id}`));
    expect(other).toMatchObject({ state: 'unlocked', completed_at: null });
    expect(ok(await k.room.observer.api.get(`${k.modules()}?student_id=${k.room.student.id}`))[0]).toMatchObject({ state: 'completed' });
    expect(ok(await k.room.student.api.get(`${k.modules()}?student_id=${k.room.student.id}`))[0]).toMatchObject({ state: 'completed' });
    expect(await k.room.observer.api.get(`${k.modules()}?student_id=${k.room.student2.id}`)).toMatchObject({ status: 403 });
    expect(await k.room.student2.api.get(`${k.modules()}?student_id=${k.room.student.id}`)).toMatchObject({ status: 403 });
    // Not a student of the course.
    expect(await k.teacher.get(`${k.modules()}?student_id=${k.room.ta.id}`)).toMatchObject({ status: 404 });
  });

  it('embeds items only with include[]=items, and content_details only with include[]=content_details', async () => {
    const plain = ok(await k.room.student.api.get(k.modules()));
    expect(plain[0]).not.toHaveProperty('items');
    const withItems = ok(await k.room.student.api.get(`${k.modules()}?include[]=items`));
    expect(withItems[0].items.map((i: any) => i.type)).toEqual(['Assignment', 'SubHeader']);
    expect(withItems[0].items[0]).not.toHaveProperty('content_details');
    expect(withItems[0].items[0].completion_requirement).toEqual({ type: 'must_submit', completed: expect.any(Boolean) });
    const details = ok(await k.room.student.api.get(`${k.modules(`/${published.id}`)}?include[]=items&include[]=content_details`));
    expect(details.items[0].content_details).toEqual({ points_possible: 10, locked_for_user: false });
    // Teachers see `published` on items; students do not.
    const teacherItems = ok(await k.teacher.get(`${k.modules(`/${published.id}`)}?include[]=items`)).items;
    expect(teacherItems.map((i: any) => i.published)).toEqual([true, true]);
    expect(withItems[0].items[0]).not.toHaveProperty('published');
    // include[] as a comma list works too.
    expect(ok(await k.teacher.get(`${k.modules()}?include=items`))[0].items).toHaveLength(2);
  });

  it('omits items of a module with more than 100 items (items_count still given)', async () => {
    const big = await k.module({ name: 'Huge' });
    const repo = server.app.ds.getRepository(ModuleItem);
    const rows = Array.from({ length: 101 }, (_, i) =>
      repo.create({ courseId: k.cid, moduleId: big.id, contentType: 'SubHeader', contentId: null, title: `Header ${i + 1}`, indent: 0, position: i + 1, url: null, newTab: null, iframeWidth: null, iframeHeight: null, requirementType: null, requirementMinScore: null, requirementMinPercentage: null, workflowState: 'active' }),
    );
    await repo.save(rows, { chunk: 50 });
    const list = ok(await k.teacher.get(`${k.modules()}?include[]=items&per_page=50`));
    const huge = list.find((m: any) => m.id === big.id);
    expect(huge.items_count).toBe(101);
    expect(huge).not.toHaveProperty('items');
    expect(list.find((m: any) => m.id === published.id).items).toHaveLength(2);
    // Exactly 100 still embeds.
    await repo.update({ moduleId: big.id, position: 101 }, { workflowState: 'deleted' });
    const hundred = ok(await k.teacher.get(`${k.modules(`/${big.id}`)}?include[]=items`));
    expect(hundred.items).toHaveLength(100);
    await k.teacher.delete(k.modules(`/${big.id}`));
  });

  it('searches module names, and with include[]=items item titles too; refuses terms under 2 characters', async () => {
    expect(ok(await k.teacher.get(`${k.modules()}?search_term=draft`)).map((m: any) => m.name)).toEqual(['Draft Week']);
    expect(ok(await k.teacher.get(`${k.modules()}?search_term=lab`))).toEqual([]);
    const byItem = ok(await k.teacher.get(`${k.modules()}?search_term=lab&include[]=items`));
    expect(byItem.map((m: any) => m.name)).toEqual(['Published Week']);
    expect(byItem[0].items.map((i: any) => i.title)).toEqual(['Lab report']);
    // A module whose name matches keeps all its items.
    expect(ok(await k.teacher.get(`${k.modules()}?search_term=published&include[]=items`))[0].items).toHaveLength(2);
    const short = await k.teacher.get(`${k.modules()}?search_term=a`);
    expect(short.status).toBe(400);
    expect(short.body).toEqual({ errors: [{ field: 'search_term', code: 'invalid', message: '2 or more characters is required' }] });
  });

  it('paginates with Canvas Link headers, in position order', async () => {
    const res = await k.teacher.get(`${k.modules()}?per_page=1`);
    expect(res.body.map((m: any) => m.name)).toEqual(['Published Week']);
    const links = parseLinks(res.headers.get('link'));
    expect(links.next).toContain('page=2');
    const next = await k.teacher.get(links.next.replace(server.url, ''));
    expect(next.body.map((m: any) => m.name)).toEqual(['Draft Week']);
  });

  it('answers 404 for unknown, malformed or deleted module ids, and for modules of another course', async () => {
    const other = await freshKit();
    const foreign = await other.module({ name: 'Elsewhere' });
    for (const id of ['999999', 'abc', String(foreign.id)]) expect(await k.teacher.get(k.modules(`/${id}`))).toMatchObject({ status: 404, body: NOT_FOUND });
  });
});

describe('an observer linked to no student (issue 19 item 10)', () => {
  // With nobody to stand in for, no override targets them: only modules without overrides show.
  let k: ModulesKit;
  let lonely: WorldUser;
  const m = {} as Record<'open' | 'bySection' | 'byStudent', any>;
  const names = (list: any[]) => list.map((x: any) => x.name);
  beforeAll(async () => {
    k = await freshKit();
    const section = await world.section(k.cid, 'Section Red');
    lonely = await world.user('Lonely Observer');
    await world.enroll(k.cid, lonely.id, 'ObserverEnrollment');
    for (const [key, overrides] of [['open', null], ['bySection', [{ course_section_id: section.id }]], ['byStudent', [{ student_ids: [k.room.student.id] }]]] as const) {
      const made = await k.module({ name: `Week ${key}` });
      await k.addItem(made.id, { type: 'SubHeader', title: `Heading ${key}` });
      if (overrides) expect((await k.teacher.put(k.modules(`/${made.id}/assignment_overrides`), { overrides }, { json: true })).status).toBe(204);
      m[key] = await k.publish(made.id);
    }
  });

  it('lists, shows and opens only the modules without overrides, over REST', async () => {
    expect(names(ok(await lonely.api.get(k.modules())))).toEqual(['Week open']);
    expect(ok(await lonely.api.get(k.modules(`/${m.open.id}/items`))).map((i: any) => i.title)).toEqual(['Heading open']);
    for (const key of ['bySection', 'byStudent'] as const) {
      expect(await lonely.api.get(k.modules(`/${m[key].id}`))).toMatchObject({ status: 404, body: NOT_FOUND });
      expect(await lonely.api.get(k.modules(`/${m[key].id}/items`))).toMatchObject({ status: 404, body: NOT_FOUND });
    }
  });

  it('gives the same through GraphQL', async () => {
    const list = await lonely.api.graphql(`query($c: ID!) { modulesConnection(courseId: $c) { nodes { name items { title } } } }`, { c: String(k.cid) });
    expect(list.data?.modulesConnection.nodes).toEqual([{ name: 'Week open', items: [{ title: 'Heading open' }] }]);
    for (const key of ['bySection', 'byStudent'] as const) {
      const one = await lonely.api.graphql(`query($c: ID!, $id: ID!) { module(courseId: $c, id: $id) { name } }`, { c: String(k.cid), id: String(m[key].id) });
      expect({ key, module: one.data?.module ?? null, code: one.errors?.[0].extensions.code }).toEqual({ key, module: null, code: 'NOT_FOUND' });
      const node = await lonely.api.graphql(`query($id: ID!) { legacyNode(type: Module, _id: $id) { ... on Module { name } } }`, { id: String(m[key].id) });
      expect({ key, node: node.data?.legacyNode ?? null }).toEqual({ key, node: null });
    }
  });

  it('leaves linked observers, students and teachers as they were (the controls)', async () => {
    expect(names(ok(await k.room.observer.api.get(k.modules())))).toEqual(['Week open', 'Week byStudent']);
    expect(names(ok(await k.room.student.api.get(k.modules())))).toEqual(['Week open', 'Week byStudent']);
    expect(names(ok(await k.room.student2.api.get(k.modules())))).toEqual(['Week open']);
    expect(names(ok(await k.teacher.get(k.modules())))).toEqual(['Week open', 'Week bySection', 'Week byStudent']);
  });
});

describe('PUT /api/v1/courses/:course_id/modules/:id', () => {
  it('updates the fields given and leaves the others', async () => {
    const k = await freshKit();
    const m = await k.module({ name: 'Old', require_sequential_progress: true, unlock_at: '2030-01-01T00:00:00Z' });
    const res = await k.teacher.put(k.modules(`/${m.id}`), { module: { name: 'New', publish_final_grade: 'true' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'New', require_sequential_progress: true, unlock_at: '2030-01-01T00:00:00Z', publish_final_grade: true, published: false });
    const cleared = ok(await k.teacher.put(k.modules(`/${m.id}`), { module: { unlock_at: '', require_sequential_progress: 'false' } }));
    expect(cleared).toMatchObject({ unlock_at: null, require_sequential_progress: false, name: 'New' });
  });

  it('moves a module and renumbers the others (list semantics)', async () => {
    const k = await freshKit();
    const mods = [];
    for (const name of ['A', 'B', 'C', 'D']) mods.push(await k.module({ name }));
    ok(await k.teacher.put(k.modules(`/${mods[0].id}`), { module: { position: 3 } }));
    expect(ok(await k.teacher.get(k.modules())).map((m: any) => `${m.name}${m.position}`)).toEqual(['B1', 'C2', 'A3', 'D4']);
    ok(await k.teacher.put(k.modules(`/${mods[3].id}`), { module: { position: 1 } }));
    expect(ok(await k.teacher.get(k.modules())).map((m: any) => `${m.name}${m.position}`)).toEqual(['D1', 'B2', 'C3', 'A4']);
  });

  it('sets prerequisites (lower positions only), keeps them when omitted, clears them when blank', async () => {
    const k = await freshKit();
    const a = await k.module({ name: 'A' });
    const b = await k.module({ name: 'B' });
    const c = await k.module({ name: 'C' });
    expect(ok(await k.teacher.put(k.modules(`/${b.id}`), { module: { prerequisite_module_ids: [a.id, c.id] } })).prerequisite_module_ids).toEqual([a.id]);
    expect(ok(await k.teacher.put(k.modules(`/${b.id}`), { module: { name: 'B2' } })).prerequisite_module_ids).toEqual([a.id]);
    expect(ok(await k.teacher.put(k.modules(`/${b.id}`), { module: { prerequisite_module_ids: '' } })).prerequisite_module_ids).toEqual([]);
    expect(ok(await k.teacher.put(k.modules(`/${c.id}`), { module: { prerequisite_module_ids: [a.id, b.id] } }, { json: true })).prerequisite_module_ids).toEqual([a.id, b.id]);
    expect(ok(await k.teacher.put(k.modules(`/${c.id}`), { module: { prerequisite_module_ids: [] } }, { json: true })).prerequisite_module_ids).toEqual([]);
  });

  it('drops blank prerequisite ids as Canvas does: one empty value clears the list, in any encoding', async () => {
    const k = await freshKit();
    const a = await k.module({ name: 'A' });
    const b = await k.module({ name: 'B' });
    const path = k.modules(`/${b.id}`);
    const set = async () => expect(ok(await k.teacher.put(path, { module: { prerequisite_module_ids: [a.id] } })).prerequisite_module_ids).toEqual([a.id]);
    const clears: [string, () => Promise<any>][] = [
      ['form module[prerequisite_module_ids][]=', () => k.teacher.put(path, [['module[prerequisite_module_ids][]', '']])],
      ['form module[prerequisite_module_ids]=', () => k.teacher.put(path, [['module[prerequisite_module_ids]', '']])],
      ['query string module[prerequisite_module_ids][]=', () => k.teacher.request('PUT', `${path}?module[prerequisite_module_ids][]=`, [['module[name]', 'B']])],
      ['JSON [""]', () => k.teacher.put(path, { module: { prerequisite_module_ids: [''] } }, { json: true })],
      ['JSON [" ", null]', () => k.teacher.put(path, { module: { prerequisite_module_ids: [' ', null] } }, { json: true })],
      ['JSON ""', () => k.teacher.put(path, { module: { prerequisite_module_ids: '' } }, { json: true })],
      ['JSON null', () => k.teacher.put(path, { module: { prerequisite_module_ids: null } }, { json: true })],
    ];
    for (const [how, clear] of clears) {
      await set();
      const res = await clear();
      expect({ how, status: res.status, prerequisites: res.body?.prerequisite_module_ids }).toEqual({ how, status: 200, prerequisites: [] });
      expect(ok(await k.teacher.get(path)).prerequisite_module_ids).toEqual([]);
    }
    // Blanks beside real ids are dropped, the ids kept; on create too.
    const c = ok(await k.teacher.post(k.modules(), [['module[name]', 'C'], ['module[prerequisite_module_ids][]', ''], ['module[prerequisite_module_ids][]', String(a.id)]]));
    expect(c.prerequisite_module_ids).toEqual([a.id]);
    const d = ok(await k.teacher.post(k.modules(), { module: { name: 'D', prerequisite_module_ids: [''] } }, { json: true }));
    expect(d.prerequisite_module_ids).toEqual([]);
    // A word that is no module id is still refused, naming the field.
    const bad = await k.teacher.put(path, { module: { prerequisite_module_ids: ['', 'abc'] } }, { json: true });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toHaveProperty('prerequisite_module_ids');
    // GraphQL callers get the same rule.
    await set();
    const gql = await k.teacher.graphql(`mutation($input: UpdateModuleInput!) { updateModule(input: $input) { module { prerequisiteModuleIds } errors { attribute message } } }`, {
      input: { courseId: String(k.cid), id: String(b.id), prerequisiteModuleIds: [''] },
    });
    expect(gql.errors).toBeUndefined();
    expect(gql.data.updateModule).toEqual({ module: { prerequisiteModuleIds: [] }, errors: null });
  });

  it('publishing a module publishes its items and their content; unpublishing does the reverse except content with submissions', async () => {
    const k = await freshKit();
    const [assignment, taken, quiz, page, topic] = [
      await k.assignment({ name: 'Draft assignment', published: false }),
      await k.assignment({ name: 'Taken', published: true }),
      await k.quiz({ title: 'Draft quiz', published: false }),
      await k.page({ title: 'Draft page', published: false }),
      await k.discussion({ title: 'Draft topic', published: false }),
    ];
    const m = await k.module({ name: 'Unit' });
    await k.addItem(m.id, { type: 'Assignment', content_id: assignment.id });
    await k.addItem(m.id, { type: 'Assignment', content_id: taken.id });
    await k.addItem(m.id, { type: 'Quiz', content_id: quiz.id });
    await k.addItem(m.id, { type: 'Page', page_url: page.url });
    await k.addItem(m.id, { type: 'Discussion', content_id: topic.id });
    await k.addItem(m.id, { type: 'ExternalUrl', external_url: 'https://example.com/x', title: 'Link' });
    await k.addItem(m.id, { type: 'SubHeader', title: 'Header' });
    const before = ok(await k.teacher.get(`${k.modules(`/${m.id}`)}?include[]=items`));
    expect(before.items.map((i: any) => i.published)).toEqual([false, true, false, false, false, false, false]);
    // Students see nothing of it yet.
    expect(ok(await k.room.student.api.get(k.modules()))).toEqual([]);

    const res = await k.teacher.put(k.modules(`/${m.id}`), { module: { published: true } });
    expect(res.status).toBe(200);
    expect(res.body.published).toBe(true);
    const after = ok(await k.teacher.get(`${k.modules(`/${m.id}`)}?include[]=items`));
    expect(after.items.every((i: any) => i.published)).toBe(true);
    const cid = k.cid;
    expect(ok(await k.teacher.get(`/api/v1/courses/${cid}/assignments/${assignment.id}`)).published).toBe(true);
    expect(ok(await k.teacher.get(`/api/v1/courses/${cid}/quizzes/${quiz.id}`)).published).toBe(true);
    expect(ok(await k.teacher.get(`/api/v1/courses/${cid}/pages/${page.url}`)).published).toBe(true);
    expect(ok(await k.teacher.get(`/api/v1/courses/${cid}/discussion_topics/${topic.id}`)).published).toBe(true);
    const seen = ok(await k.room.student.api.get(`${k.modules()}?include[]=items`));
    expect(seen[0].items).toHaveLength(7);

    await k.submit(k.room.student, taken.id);
    ok(await k.teacher.put(k.modules(`/${m.id}`), { module: { published: false } }));
    expect(ok(await k.teacher.get(`/api/v1/courses/${cid}/assignments/${assignment.id}`)).published).toBe(false);
    expect(ok(await k.teacher.get(`/api/v1/courses/${cid}/assignments/${taken.id}`)).published).toBe(true);
    expect(ok(await k.teacher.get(`/api/v1/courses/${cid}/pages/${page.url}`)).published).toBe(false);
    expect(ok(await k.room.student.api.get(k.modules()))).toEqual([]);
    expect(await k.room.student.api.get(k.modules(`/${m.id}`))).toMatchObject({ status: 404 });
  });

  it('lets teachers, TAs and designers update; refuses others and bad input (nothing changes)', async () => {
    const m = await kit.module({ name: 'Target' });
    for (const who of [kit.room.teacher, kit.room.ta, kit.room.designer]) {
      expect((await who.api.put(kit.modules(`/${m.id}`), { module: { name: `By ${who.name}` } })).status).toBe(200);
    }
    const before = await moduleTables(server);
    for (const who of [kit.room.student, kit.room.observer, kit.room.outsider]) {
      expect(await who.api.put(kit.modules(`/${m.id}`), { module: { name: 'Nope', published: true } })).toMatchObject({ status: 403, body: FORBIDDEN });
    }
    expect(await server.as(null).put(kit.modules(`/${m.id}`), { module: { name: 'Nope' } })).toMatchObject({ status: 401 });
    const put = (body: Record<string, unknown>, id: number | string = m.id) => kit.teacher.put(kit.modules(`/${id}`), body);
    expect(await put({})).toMatchObject({ status: 400, body: { message: 'missing module parameter' } });
    expect(await put({ module: { name: '' } })).toMatchObject({ status: 400, body: { message: 'missing module name' } });
    expect((await put({ module: { position: '-2' } })).status).toBe(400);
    expect((await put({ module: { position: '0' } })).status).toBe(400);
    expect((await put({ module: { unlock_at: 'soon' } })).status).toBe(400);
    expect((await put({ module: { prerequisite_module_ids: ['x1'] } })).status).toBe(400);
    expect(await put({ module: { name: 'Ghost' } }, 999999)).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(await kit.teacher.put(`/api/v1/courses/999999/modules/${m.id}`, { module: { name: 'Ghost' } })).toMatchObject({ status: 404 });
    expect(await moduleTables(server)).toEqual(before);
  });
});

describe('DELETE /api/v1/courses/:course_id/modules/:id', () => {
  it('deletes the module and its items, moves later modules up and drops it as a prerequisite', async () => {
    const k = await freshKit();
    const a = await k.module({ name: 'A' });
    const b = await k.module({ name: 'B' });
    const c = await k.module({ name: 'C', prerequisite_module_ids: [a.id, b.id] });
    const header = await k.addItem(b.id, { type: 'SubHeader', title: 'In B' });
    const res = await k.teacher.delete(k.modules(`/${b.id}`));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: b.id, name: 'B', workflow_state: 'deleted' });
    const list = ok(await k.teacher.get(k.modules()));
    expect(list.map((m: any) => [m.name, m.position])).toEqual([['A', 1], ['C', 2]]);
    expect(list[1].prerequisite_module_ids).toEqual([a.id]);
    expect(await k.teacher.get(k.modules(`/${b.id}`))).toMatchObject({ status: 404 });
    expect(await k.teacher.get(k.item(b.id, header.id))).toMatchObject({ status: 404 });
    const rows = await server.app.ds.query('SELECT workflow_state FROM module_items WHERE id = ?', [header.id]);
    expect(rows[0].workflow_state).toBe('deleted');
    // Deleting again: it is gone.
    expect(await k.teacher.delete(k.modules(`/${b.id}`))).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(c.prerequisite_module_ids).toEqual([a.id, b.id]);
  });

  it('lets teachers, TAs and designers delete; refuses others (nothing changes)', async () => {
    const targets = [await kit.module({ name: 'Del 1' }), await kit.module({ name: 'Del 2' }), await kit.module({ name: 'Del 3' })];
    const before = await moduleTables(server);
    for (const who of [kit.room.student, kit.room.observer, kit.room.outsider]) {
      expect(await who.api.delete(kit.modules(`/${targets[0].id}`))).toMatchObject({ status: 403, body: FORBIDDEN });
    }
    expect(await server.as(null).delete(kit.modules(`/${targets[0].id}`))).toMatchObject({ status: 401 });
    expect(await kit.teacher.delete(kit.modules('/999999'))).toMatchObject({ status: 404 });
    expect(await moduleTables(server)).toEqual(before);
    for (const [i, who] of [kit.room.teacher, kit.room.ta, kit.room.designer].entries()) {
      expect((await who.api.delete(kit.modules(`/${targets[i].id}`))).status).toBe(200);
    }
  });
});

describe('PUT /api/v1/courses/:course_id/modules/:id/relock', () => {
  it('answers the module JSON to content managers; refuses others and unknown modules (nothing changes)', async () => {
    const m = await kit.module({ name: 'Relockable' }, { publish: true });
    await kit.standing(kit.room.student.api);
    for (const who of [kit.room.teacher, kit.room.ta, kit.room.designer]) {
      const res = await who.api.put(kit.modules(`/${m.id}/relock`));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: m.id, name: 'Relockable', published: true });
    }
    await kit.standing(kit.room.student.api);
    const before = await moduleTables(server);
    for (const who of [kit.room.student, kit.room.observer, kit.room.outsider]) {
      expect(await who.api.put(kit.modules(`/${m.id}/relock`))).toMatchObject({ status: 403, body: FORBIDDEN });
    }
    expect(await server.as(null).put(kit.modules(`/${m.id}/relock`))).toMatchObject({ status: 401 });
    expect(await kit.teacher.put(kit.modules('/999999/relock'))).toMatchObject({ status: 404 });
    expect(await moduleTables(server)).toEqual(before);
  });
});
