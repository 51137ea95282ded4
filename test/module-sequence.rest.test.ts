import { FORBIDDEN, moduleTables, ModulesKit, NOT_FOUND, ok, UNAUTHENTICATED, startModulesWorld } from './support/modules';
import type { TestServer } from './support/server';
import type { World, WorldUser } from './support/world';

/** module_item_sequence, module assignment overrides, and Mastery Paths (select_mastery_path). */

let server: TestServer;
let world: World;
let kit: ModulesKit;
beforeAll(async () => ({ server, world, kit } = await startModulesWorld()));
afterAll(() => server.close());

describe('GET /api/v1/courses/:course_id/module_item_sequence', () => {
  let k: ModulesKit;
  let w: Record<string, any>;
  const seq = (api = k.room.student.api, type: string, id: string | number) => api.get(`/api/v1/courses/${k.cid}/module_item_sequence?asset_type=${type}&asset_id=${id}`);
  const ids = (node: any) => [node.prev?.id ?? null, node.current.id, node.next?.id ?? null];

  beforeAll(async () => {
    k = await kit.sibling(world, 'Sequences');
    const [assignment, page, quiz, topic, file, tool, hidden] = [
      await k.assignment({ name: 'Shared assignment' }),
      await k.page({ title: 'Sequenced page' }),
      await k.quiz({ title: 'Sequenced quiz' }),
      await k.discussion({ title: 'Sequenced topic' }),
      await k.file('seq.txt'),
      await k.tool(),
      await k.assignment({ name: 'Draft only', published: false }),
    ];
    const m1 = await k.module({ name: 'One' });
    const m2 = await k.module({ name: 'Two' });
    const draft = await k.module({ name: 'Unpublished' });
    w = { assignment, page, quiz, topic, file, tool, m1, m2, draft };
    w.h1 = await k.addItem(m1.id, { type: 'SubHeader', title: 'Intro' });
    w.a1 = await k.addItem(m1.id, { type: 'Assignment', content_id: assignment.id });
    w.p1 = await k.addItem(m1.id, { type: 'Page', page_url: page.url });
    w.hiddenItem = await k.addItem(m1.id, { type: 'Assignment', content_id: hidden.id });
    w.q1 = await k.addItem(m1.id, { type: 'Quiz', content_id: quiz.id });
    w.h2 = await k.addItem(m2.id, { type: 'SubHeader', title: 'Part two' });
    w.a2 = await k.addItem(m2.id, { type: 'Assignment', content_id: assignment.id, title: 'Shared again' });
    w.qa = await k.addItem(m2.id, { type: 'Assignment', content_id: quiz.assignment_id, title: 'Quiz by its assignment' });
    w.d2 = await k.addItem(m2.id, { type: 'Discussion', content_id: topic.id });
    w.f2 = await k.addItem(m2.id, { type: 'File', content_id: file.id });
    w.t2 = await k.addItem(m2.id, { type: 'ExternalTool', content_id: tool.id, external_url: 'https://lab.example.com/launch' });
    w.x = await k.addItem(draft.id, { type: 'Assignment', content_id: assignment.id, title: 'In a draft module' });
    await k.publish(m1.id);
    await k.publish(m2.id);
    // The draft assignment's item stays unpublished (publishing the module published it: undo).
    ok(await k.teacher.put(k.item(m1.id, w.hiddenItem.id), { module_item: { published: false } }));
  });

  it('finds every appearance of an asset with prev/next across modules, skipping sub-headers and what students cannot see', async () => {
    const res = await seq(undefined, 'Assignment', w.assignment.id);
    expect(res.status).toBe(200);
    expect(res.body.items.map(ids)).toEqual([
      [null, w.a1.id, w.p1.id],
      [w.q1.id, w.a2.id, w.qa.id],
    ]);
    const node = res.body.items[0];
    expect(node.current).toMatchObject({ id: w.a1.id, module_id: w.m1.id, title: 'Shared assignment', type: 'Assignment' });
    expect(node.next).toMatchObject({ type: 'Page', page_url: w.page.url });
    expect(node.mastery_path).toBeNull();
    expect(res.body.modules.map((m: any) => [m.id, m.name])).toEqual([[w.m1.id, 'One'], [w.m2.id, 'Two']]);
    expect(res.body.modules[0]).toMatchObject({ state: expect.any(String) });
    expect(res.body.modules[0]).not.toHaveProperty('published');
  });

  it('shows teachers unpublished items and modules in the sequence too', async () => {
    const res = ok(await seq(k.teacher, 'Assignment', w.assignment.id));
    expect(res.items.map((n: any) => n.current.id)).toEqual([w.a1.id, w.a2.id, w.x.id]);
    expect(res.items[0].next.id).toBe(w.p1.id);
    expect(res.items[1].prev.id).toBe(w.q1.id);
    const afterPage = ok(await seq(k.teacher, 'Page', w.page.url)).items[0];
    expect(afterPage.next.id).toBe(w.hiddenItem.id);
    expect(res.items[2].prev.id).toBe(w.t2.id);
    expect(res.items[2].next).toBeNull();
    expect(res.modules.map((m: any) => m.name)).toEqual(['One', 'Two', 'Unpublished']);
    expect(res.modules[2].published).toBe(false);
  });

  it('matches each asset type: ModuleItem, Page (by url), Quiz (and items of its assignment), Discussion, File, ExternalTool; case-insensitively', async () => {
    expect(ok(await seq(undefined, 'ModuleItem', w.a2.id)).items.map(ids)).toEqual([[w.q1.id, w.a2.id, w.qa.id]]);
    expect(ok(await seq(undefined, 'moduleitem', w.q1.id)).items.map(ids)).toEqual([[w.p1.id, w.q1.id, w.a2.id]]);
    expect(ok(await seq(undefined, 'Page', w.page.url)).items.map(ids)).toEqual([[w.a1.id, w.p1.id, w.q1.id]]);
    expect(ok(await seq(undefined, 'Quiz', w.quiz.id)).items.map((n: any) => n.current.id)).toEqual([w.q1.id, w.qa.id]);
    expect(ok(await seq(undefined, 'discussion', w.topic.id)).items.map(ids)).toEqual([[w.qa.id, w.d2.id, w.f2.id]]);
    expect(ok(await seq(undefined, 'File', w.file.id)).items.map(ids)).toEqual([[w.d2.id, w.f2.id, w.t2.id]]);
    expect(ok(await seq(undefined, 'ExternalTool', w.tool.id)).items.map(ids)).toEqual([[w.f2.id, w.t2.id, null]]);
    // A sub-header is never in the sequence.
    expect(ok(await seq(undefined, 'ModuleItem', w.h1.id))).toEqual({ items: [], modules: [] });
    expect(ok(await seq(undefined, 'Assignment', 999999))).toEqual({ items: [], modules: [] });
    expect(ok(await seq(undefined, 'Page', 'no-such-page'))).toEqual({ items: [], modules: [] });
  });

  it('returns at most 10 nodes', async () => {
    const k2 = await kit.sibling(world, 'Many');
    const a = await k2.assignment({ name: 'Everywhere' });
    const m = await k2.module({ name: 'Repeats' });
    for (let i = 0; i < 12; i++) await k2.addItem(m.id, { type: 'Assignment', content_id: a.id });
    await k2.publish(m.id);
    const res = ok(await k2.room.student.api.get(`/api/v1/courses/${k2.cid}/module_item_sequence?asset_type=Assignment&asset_id=${a.id}`));
    expect(res.items).toHaveLength(10);
    expect(res.items[9].next).not.toBeNull();
    expect(res.modules).toHaveLength(1);
  });

  it('refuses a missing or unknown asset_type and a missing asset_id (400), outsiders (403) and anonymous callers (401)', async () => {
    const base = `/api/v1/courses/${k.cid}/module_item_sequence`;
    const s = k.room.student.api;
    expect(await s.get(`${base}?asset_id=1`)).toMatchObject({ status: 400, body: { message: 'invalid asset_type' } });
    expect(await s.get(`${base}?asset_type=Video&asset_id=1`)).toMatchObject({ status: 400, body: { message: 'invalid asset_type' } });
    expect(await s.get(`${base}?asset_type=Assignment`)).toMatchObject({ status: 400, body: { message: 'missing asset_id' } });
    expect(await k.room.outsider.api.get(`${base}?asset_type=Assignment&asset_id=1`)).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await server.as(null).get(`${base}?asset_type=Assignment&asset_id=1`)).toMatchObject({ status: 401, body: UNAUTHENTICATED });
    expect(await s.get(`/api/v1/courses/999999/module_item_sequence?asset_type=Assignment&asset_id=1`)).toMatchObject({ status: 404 });
  });
});

describe('module assignment overrides', () => {
  let k: ModulesKit;
  let section: { id: number; name: string };
  let sectioned: WorldUser;
  const overridesPath = (moduleId: number) => `/api/v1/courses/${k.cid}/modules/${moduleId}/assignment_overrides`;
  const put = (moduleId: number, overrides: unknown, api = k.teacher) => api.put(overridesPath(moduleId), { overrides }, { json: true });

  beforeAll(async () => {
    k = await kit.sibling(world, 'Overrides');
    section = { ...(await world.section(k.cid, 'Section Blue')), name: 'Section Blue' };
    sectioned = await world.user('Sid Sectioned');
    await world.enroll(k.cid, sectioned.id, 'StudentEnrollment', { sectionId: section.id });
  });

  it('creates, lists, updates and deletes overrides in one bulk PUT (204)', async () => {
    const m = await k.module({ name: 'Targeted' });
    expect(ok(await k.teacher.get(overridesPath(m.id)))).toEqual([]);
    const res = await put(m.id, [{ course_section_id: section.id }, { student_ids: [k.room.student.id, k.room.student2.id], title: 'Pair' }]);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const list = ok(await k.teacher.get(overridesPath(m.id)));
    expect(list).toEqual([
      { id: expect.any(Number), context_module_id: m.id, title: 'Section Blue', students: null, course_section: { id: section.id, name: 'Section Blue' } },
      {
        id: expect.any(Number),
        context_module_id: m.id,
        title: 'Pair',
        students: [
          { id: k.room.student.id, name: k.room.student.name },
          { id: k.room.student2.id, name: k.room.student2.name },
        ],
        course_section: null,
      },
    ]);
    const [sectionOverride, pair] = list;
    // Update the pair to one student (no title given: Canvas names it by its size), keep the section
    // one, add a new ad-hoc one.
    expect((await put(m.id, [{ id: pair.id, student_ids: [k.room.student.id] }, { id: sectionOverride.id }, { student_ids: [sectioned.id] }])).status).toBe(204);
    const next = ok(await k.teacher.get(overridesPath(m.id)));
    expect(next.map((o: any) => [o.id, o.title, o.students?.map((s: any) => s.id) ?? null, o.course_section?.id ?? null])).toEqual([
      [sectionOverride.id, 'Section Blue', null, section.id],
      [pair.id, '1 student', [k.room.student.id], null],
      [expect.any(Number), '1 student', [sectioned.id], null],
    ]);
    // Switching an ad-hoc override to a section clears its students; absent ones are deleted.
    expect((await put(m.id, [{ id: pair.id, course_section_id: section.id }])).status).toBe(204);
    const switched = ok(await k.teacher.get(overridesPath(m.id)));
    expect(switched).toEqual([{ id: pair.id, context_module_id: m.id, title: 'Section Blue', students: null, course_section: { id: section.id, name: 'Section Blue' } }]);
    // An empty list deletes all; a body without overrides is Canvas's 400 and changes nothing.
    expect((await put(m.id, [])).status).toBe(204);
    expect(ok(await k.teacher.get(overridesPath(m.id)))).toEqual([]);
    expect((await put(m.id, [{ student_ids: [k.room.student.id] }])).status).toBe(204);
    expect(await k.teacher.put(overridesPath(m.id), {}, { json: true })).toMatchObject({ status: 400, body: { error: 'List of overrides required' } });
    expect(ok(await k.teacher.get(overridesPath(m.id)))).toHaveLength(1);
    expect((await put(m.id, [])).status).toBe(204);
    // Form-encoded bodies work as Canvas clients send them.
    expect((await k.teacher.put(overridesPath(m.id), { overrides: [{ student_ids: [k.room.student2.id] }] })).status).toBe(204);
    expect(ok(await k.teacher.get(overridesPath(m.id)))[0].students).toEqual([{ id: k.room.student2.id, name: k.room.student2.name }]);
  });

  it('limits the module to its targets: others do not see it, its items, or its progress', async () => {
    const m = await k.module({ name: 'Only some' });
    const link = await k.addItem(m.id, { type: 'ExternalUrl', external_url: 'https://example.com/t', title: 'T', completion_requirement: { type: 'must_view' } });
    await k.publish(m.id);
    const open = await k.module({ name: 'Open to all', prerequisite_module_ids: [m.id] }, { publish: true });
    expect((await put(m.id, [{ student_ids: [k.room.student.id] }, { course_section_id: section.id }])).status).toBe(204);

    const names = async (who: WorldUser) => ok(await who.api.get(k.modules())).map((x: any) => x.name);
    expect(await names(k.room.student)).toContain('Only some');
    expect(await names(sectioned)).toContain('Only some');
    expect(await names(k.room.student2)).not.toContain('Only some');
    expect(await k.room.student2.api.get(k.modules(`/${m.id}`))).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(await k.room.student2.api.get(k.items(m.id))).toMatchObject({ status: 404 });
    expect(await k.room.student2.api.post(k.item(m.id, link.id, '/mark_read'))).toMatchObject({ status: 404 });
    expect(ok(await k.teacher.get(`${k.modules()}?student_id=${k.room.student2.id}`)).map((x: any) => x.name)).not.toContain('Only some');
    expect(ok(await k.teacher.get(k.modules())).map((x: any) => x.name)).toContain('Only some');
    // A prerequisite the student cannot see does not lock them out; a targeted student must complete it.
    expect(await k.stateOf(k.room.student2.api, open.id)).toBe('completed');
    expect(await k.stateOf(k.room.student.api, open.id)).toBe('locked');
    ok(await k.room.student.api.post(k.item(m.id, link.id, '/mark_read')));
    expect(await k.stateOf(k.room.student.api, open.id)).toBe('completed');
    // Without overrides everyone sees it again.
    expect((await put(m.id, [])).status).toBe(204);
    expect(await names(k.room.student2)).toContain('Only some');
    expect(await k.stateOf(k.room.student2.api, m.id)).toBe('unlocked');
  });

  it('shows observers what their observed students are assigned (together); an observer following nobody sees none of the restricted ones (issue 19 item 10)', async () => {
    const forStudent = await k.module({ name: 'For Sam' }, { publish: true });
    const forSally = await k.module({ name: 'For Sally' }, { publish: true });
    const forSection = await k.module({ name: 'For Blue' }, { publish: true });
    const header = await k.addItem(forSally.id, { type: 'SubHeader', title: 'Sally only' });
    ok(await k.teacher.put(k.item(forSally.id, header.id), { module_item: { published: true } }));
    expect((await put(forStudent.id, [{ student_ids: [k.room.student.id] }])).status).toBe(204);
    expect((await put(forSally.id, [{ student_ids: [k.room.student2.id] }])).status).toBe(204);
    expect((await put(forSection.id, [{ course_section_id: section.id }])).status).toBe(204);
    const [both, nobody, sectionObserver] = await Promise.all([world.user('Bo Both'), world.user('Nina Nobody'), world.user('Sue Section')]);
    await world.enroll(k.cid, both.id, 'ObserverEnrollment', { associatedUserId: k.room.student.id });
    await world.enroll(k.cid, both.id, 'ObserverEnrollment', { associatedUserId: k.room.student2.id });
    await world.enroll(k.cid, nobody.id, 'ObserverEnrollment');
    // An observer in the targeted section who observes nobody there is not assigned by their own section.
    await world.enroll(k.cid, sectionObserver.id, 'ObserverEnrollment', { sectionId: section.id, associatedUserId: k.room.student.id });

    const names = async (who: WorldUser) => ok(await who.api.get(`${k.modules()}?per_page=100`)).map((x: any) => x.name);
    const targeted = ['For Sam', 'For Sally', 'For Blue'];
    const seen = async (who: WorldUser) => (await names(who)).filter((n: string) => targeted.includes(n));
    expect(await seen(k.room.observer)).toEqual(['For Sam']);
    expect(await seen(sectionObserver)).toEqual(['For Sam']);
    expect(await seen(both)).toEqual(['For Sam', 'For Sally']);
    // No audience: no override targets them, so only modules without overrides (none of these) show.
    expect(await seen(nobody)).toEqual([]);
    expect(await nobody.api.get(k.modules(`/${forSection.id}`))).toMatchObject({ status: 404, body: NOT_FOUND });
    // Shows and item lists follow the same rule; observers get no progress state.
    expect(await k.room.observer.api.get(k.modules(`/${forSally.id}`))).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(await k.room.observer.api.get(k.items(forSally.id))).toMatchObject({ status: 404 });
    const shown = ok(await both.api.get(`${k.modules(`/${forSally.id}`)}?include[]=items`));
    expect(shown).not.toHaveProperty('state');
    expect(shown.items.map((i: any) => i.title)).toEqual(['Sally only']);
    // With student_id the named student's view applies.
    expect((ok(await both.api.get(`${k.modules()}?student_id=${k.room.student2.id}&per_page=100`)) as any[]).map((x) => x.name).filter((n) => targeted.includes(n))).toEqual(['For Sally']);
    for (const m of [forStudent, forSally, forSection]) expect((await put(m.id, [])).status).toBe(204);
  });

  it('refuses bad override lists with Canvas’s messages (400) or 404, storing nothing', async () => {
    const m = await k.module({ name: 'Guarded overrides' });
    expect((await put(m.id, [{ student_ids: [k.room.student.id] }])).status).toBe(204);
    const [existing] = ok(await k.teacher.get(overridesPath(m.id)));
    const before = await moduleTables(server);
    const bad = async (overrides: unknown, status: number, body?: unknown) => {
      const res = await put(m.id, overrides);
      expect([JSON.stringify(overrides), res.status]).toEqual([JSON.stringify(overrides), status]);
      if (body) expect(res.body).toEqual(body);
    };
    await bad('all of them', 400, { error: 'List of overrides required' });
    await bad(42, 400, { error: 'List of overrides required' });
    await bad([{ title: 'Nobody' }], 400, { error: 'id, student_ids, or course_section_id required with each override' });
    await bad([{ student_ids: [k.room.student.id], course_section_id: section.id }], 400, { error: 'cannot provide course_section_id and student_ids on the same override' });
    await bad([{ group_id: 1 }], 400, { error: 'group_id is not allowed as an override' });
    // Hostile shapes are refused by the route's declared params, naming the field.
    for (const hostile of [[{ student_ids: ['abc'] }], [{ student_ids: [{ id: 1 }] }], [{ student_ids: ['99999999999999999999'] }], [{ title: { x: 1 } }], [{ course_section_id: [1] }]]) {
      const res = await put(m.id, hostile);
      expect([JSON.stringify(hostile), res.status]).toEqual([JSON.stringify(hostile), 400]);
      expect(Object.keys(res.body.errors)[0]).toMatch(/^overrides\[\]\[(student_ids|title|course_section_id)\]/);
    }
    // A valid entry before a bad one: the whole list is refused.
    await bad([{ id: existing.id }, { course_section_id: 999999 }], 404, NOT_FOUND);
    await bad([{ id: 999999 }], 404, NOT_FOUND);
    await bad([{ student_ids: [k.room.outsider.id] }], 404, NOT_FOUND);
    await bad([{ student_ids: [k.room.teacher.id] }], 404, NOT_FOUND);
    expect(await k.teacher.put(`/api/v1/courses/${k.cid}/modules/999999/assignment_overrides`, { overrides: [] }, { json: true })).toMatchObject({ status: 404 });
    expect(await k.teacher.get(`/api/v1/courses/${k.cid}/modules/999999/assignment_overrides`)).toMatchObject({ status: 404 });
    expect(await moduleTables(server)).toEqual(before);
  });

  it('lets content managers read and replace overrides; refuses students, observers, outsiders (403) and anonymous callers (401)', async () => {
    const m = await k.module({ name: 'Who overrides' });
    for (const who of [k.room.teacher, k.room.ta, k.room.designer]) {
      expect((await who.api.get(overridesPath(m.id))).status).toBe(200);
      expect((await put(m.id, [{ student_ids: [k.room.student.id] }], who.api)).status).toBe(204);
    }
    const before = await moduleTables(server);
    for (const who of [k.room.student, k.room.observer, k.room.outsider]) {
      expect(await who.api.get(overridesPath(m.id))).toMatchObject({ status: 403, body: FORBIDDEN });
      expect(await put(m.id, [], who.api)).toMatchObject({ status: 403, body: FORBIDDEN });
    }
    expect(await server.as(null).get(overridesPath(m.id))).toMatchObject({ status: 401 });
    expect(await put(m.id, [], server.as(null))).toMatchObject({ status: 401, body: UNAUTHENTICATED });
    expect(await moduleTables(server)).toEqual(before);
  });
});

describe('Mastery Paths: select_mastery_path', () => {
  let k: ModulesKit;
  let w: Record<string, any>;
  const gql = (api: any, query: string, variables: Record<string, unknown>): Promise<any> => api.graphql(query, variables);
  const SET_RULE = `mutation($courseId: ID!, $trigger: ID!, $ranges: [ScoreRangeInput!]!) {
    setMasteryPathRule(courseId: $courseId, triggerAssignmentId: $trigger, scoringRanges: $ranges) {
      rule { _id triggerAssignmentId scoringRanges { lowerBound upperBound assignmentSets { id assignmentIds } } } errors { attribute message } } }`;
  const select = (who: WorldUser, body: Record<string, unknown>, itemId = w.triggerItem.id) => who.api.post(k.item(w.m.id, itemId, '/select_mastery_path'), body);

  beforeAll(async () => {
    k = await kit.sibling(world, 'Mastery');
    const trigger = await k.assignment({ name: 'Pretest', points_possible: 10 });
    const [easy, hard1, hard2, remedial] = [await k.assignment({ name: 'Easy path' }), await k.assignment({ name: 'Hard A' }), await k.assignment({ name: 'Hard B' }), await k.assignment({ name: 'Remedial' })];
    const m = await k.module({ name: 'Paths' });
    const triggerItem = await k.addItem(m.id, { type: 'Assignment', content_id: trigger.id });
    const items = {
      easy: await k.addItem(m.id, { type: 'Assignment', content_id: easy.id }),
      hard1: await k.addItem(m.id, { type: 'Assignment', content_id: hard1.id }),
      hard2: await k.addItem(m.id, { type: 'Assignment', content_id: hard2.id }),
      remedial: await k.addItem(m.id, { type: 'Assignment', content_id: remedial.id }),
    };
    const header = await k.addItem(m.id, { type: 'SubHeader', title: 'Not an assignment' });
    await k.publish(m.id);
    w = { trigger, easy, hard1, hard2, remedial, m, triggerItem, items, header };
  });

  it('is refused while the course feature is off (400), and rules need it too', async () => {
    expect(await select(k.room.student, { assignment_set_id: 1 })).toMatchObject({ status: 400, body: { message: 'mastery paths not enabled' } });
    const res = await gql(k.teacher, SET_RULE, { courseId: String(k.cid), trigger: String(w.trigger.id), ranges: [{ lowerBound: 0, upperBound: 100, assignmentSets: [{ assignmentIds: [String(w.easy.id)] }] }] });
    expect(res.errors[0].message).toBe('mastery paths not enabled');
    // Sequence nodes carry no mastery_path while it is off.
    const node = ok(await k.room.student.api.get(`/api/v1/courses/${k.cid}/module_item_sequence?asset_type=ModuleItem&asset_id=${w.triggerItem.id}`)).items[0];
    expect(node.mastery_path).toBeNull();
  });

  it('with the feature on: the trigger score picks the range; students choose among its sets; chosen assignments appear', async () => {
    expect(ok(await k.teacher.put(`/api/v1/courses/${k.cid}`, { course: { conditional_release: true } })).conditional_release).toBe(true);
    const rule = await gql(k.teacher, SET_RULE, {
      courseId: String(k.cid),
      trigger: String(w.trigger.id),
      ranges: [
        { lowerBound: 70, upperBound: 100, assignmentSets: [{ assignmentIds: [String(w.easy.id)] }, { assignmentIds: [String(w.hard1.id), String(w.hard2.id)] }] },
        { lowerBound: 0, upperBound: 70, assignmentSets: [{ assignmentIds: [String(w.remedial.id)] }] },
      ],
    });
    expect(rule.errors).toBeUndefined();
    expect(rule.data.setMasteryPathRule.errors).toBeNull();
    const ranges = rule.data.setMasteryPathRule.rule.scoringRanges;
    const [easySet, hardSet] = ranges[0].assignmentSets;
    const remedialSet = ranges[1].assignmentSets[0];

    // Before grading, the path assignments are withheld from students; teachers see them all.
    const titles = async (who: WorldUser) => ok(await who.api.get(k.items(w.m.id))).map((i: any) => i.title);
    expect(await titles(k.room.student)).toEqual(['Pretest', 'Not an assignment']);
    expect(ok(await k.teacher.get(k.items(w.m.id)))).toHaveLength(6);
    const pending = ok(await k.room.student.api.get(`/api/v1/courses/${k.cid}/module_item_sequence?asset_type=Assignment&asset_id=${w.trigger.id}`)).items[0].mastery_path;
    expect(pending).toMatchObject({ locked: true, assignment_sets: [], selected_set_id: null, awaiting_choice: false, still_processing: false, modules_tab_disabled: false });
    expect(pending.modules_url).toBe(`${server.url}/courses/${k.cid}/modules`);
    expect(await select(k.room.student, { assignment_set_id: easySet.id })).toMatchObject({ status: 400, body: { message: 'invalid assignment_set_id' } });

    // Scored 8/10: the top range, two sets to choose from.
    await k.submit(k.room.student, w.trigger.id);
    await k.grade(w.trigger.id, k.room.student.id, 8);
    const awaiting = ok(await k.room.student.api.get(`/api/v1/courses/${k.cid}/module_item_sequence?asset_type=Assignment&asset_id=${w.trigger.id}`)).items[0].mastery_path;
    expect(awaiting).toMatchObject({ locked: false, awaiting_choice: true, selected_set_id: null });
    expect(awaiting.assignment_sets.map((s: any) => s.id)).toEqual([Number(easySet.id), Number(hardSet.id)]);
    expect(await titles(k.room.student)).toEqual(['Pretest', 'Not an assignment']);
    // A set of another range is not theirs to pick.
    expect(await select(k.room.student, { assignment_set_id: remedialSet.id })).toMatchObject({ status: 400, body: { message: 'invalid assignment_set_id' } });

    const chosen = await select(k.room.student, { assignment_set_id: hardSet.id });
    expect(chosen.status).toBe(200);
    expect(chosen.body.meta).toEqual({ primaryCollection: 'assignments' });
    expect(chosen.body.assignments.map((a: any) => [a.id, a.name])).toEqual([[w.hard1.id, 'Hard A'], [w.hard2.id, 'Hard B']]);
    expect(chosen.body.assignments[0]).toMatchObject({ points_possible: 10, published: true, course_id: k.cid });
    expect(chosen.body.items.map((i: any) => i.id)).toEqual([w.items.hard1.id, w.items.hard2.id]);
    expect(await titles(k.room.student)).toEqual(['Pretest', 'Hard A', 'Hard B', 'Not an assignment']);
    const picked = ok(await k.room.student.api.get(`/api/v1/courses/${k.cid}/module_item_sequence?asset_type=ModuleItem&asset_id=${w.triggerItem.id}`)).items[0];
    expect(picked.mastery_path).toMatchObject({ selected_set_id: Number(hardSet.id), awaiting_choice: false });
    expect(picked.next.id).toBe(w.items.hard1.id);

    // A low score gets the only set of its range at once, without choosing.
    await k.submit(k.room.student2, w.trigger.id);
    await k.grade(w.trigger.id, k.room.student2.id, 3);
    expect(await titles(k.room.student2)).toEqual(['Pretest', 'Remedial', 'Not an assignment']);
    // A teacher may choose for a student.
    const forStudent = await select(k.room.teacher, { assignment_set_id: easySet.id, student_id: k.room.student.id });
    expect(forStudent.status).toBe(200);
    expect(await titles(k.room.student)).toEqual(['Pretest', 'Easy path', 'Not an assignment']);
  });

  it('refuses bad selections (400), other students (403), anonymous callers (401) and unpublished items (404), storing nothing', async () => {
    await k.standing(k.room.student.api);
    const before = await moduleTables(server);
    expect(await select(k.room.student, {})).toMatchObject({ status: 400, body: { message: 'assignment_set_id required' } });
    expect(await select(k.room.student, { assignment_set_id: 1 }, w.header.id)).toMatchObject({ status: 400, body: { message: 'requested item is not an assignment' } });
    expect(await select(k.room.student, { assignment_set_id: 1, student_id: k.room.student2.id })).toMatchObject({ status: 403, body: FORBIDDEN });
    // A teacher choosing for nobody in particular.
    expect(await select(k.room.teacher, { assignment_set_id: 1 })).toMatchObject({ status: 403 });
    expect(await select(k.room.outsider, { assignment_set_id: 1 })).toMatchObject({ status: 403 });
    expect(await server.as(null).post(k.item(w.m.id, w.triggerItem.id, '/select_mastery_path'), { assignment_set_id: 1 })).toMatchObject({ status: 401 });
    const draft = await k.addItem(w.m.id, { type: 'Assignment', content_id: (await k.assignment({ name: 'Draft trigger', published: false })).id });
    await k.standing(k.room.student.api);
    const draftBefore = await moduleTables(server);
    expect(await select(k.room.student, { assignment_set_id: 1 }, draft.id)).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(await moduleTables(server)).toEqual(draftBefore);
    expect(draftBefore['mastery_path_selections']).toEqual(before['mastery_path_selections']);
  });
});
