import { FORBIDDEN, ISO, moduleTables, ModulesKit, NOT_FOUND, ok, UNAUTHENTICATED, startModulesWorld } from './support/modules';
import type { TestServer } from './support/server';
import type { World } from './support/world';

/**
 * Student progress driven by what students really do through the API: viewing content, mark_read,
 * submitting, posting, being graded, marking done; and the lock rules (prerequisites, unlock_at,
 * sequential progress, relock).
 */

let server: TestServer;
let world: World;
let kit: ModulesKit;
beforeAll(async () => ({ server, world, kit } = await startModulesWorld()));
afterAll(() => server.close());

const LOCKED = { message: 'The module item is locked.' };

describe('requirements met by real actions', () => {
  it('must_view: GET of an assignment, a page, a quiz and a discussion as a student; mark_read for files, links and tools', async () => {
    const [assignment, page, quiz, topic, file, tool] = [await kit.assignment(), await kit.page(), await kit.quiz(), await kit.discussion(), await kit.file('reading.txt'), await kit.tool()];
    const m = await kit.module({ name: 'Views' });
    const items = {
      assignment: await kit.addItem(m.id, { type: 'Assignment', content_id: assignment.id, completion_requirement: { type: 'must_view' } }),
      page: await kit.addItem(m.id, { type: 'Page', page_url: page.url, completion_requirement: { type: 'must_view' } }),
      quiz: await kit.addItem(m.id, { type: 'Quiz', content_id: quiz.id, completion_requirement: { type: 'must_view' } }),
      topic: await kit.addItem(m.id, { type: 'Discussion', content_id: topic.id, completion_requirement: { type: 'must_view' } }),
      file: await kit.addItem(m.id, { type: 'File', content_id: file.id, completion_requirement: { type: 'must_view' } }),
      link: await kit.addItem(m.id, { type: 'ExternalUrl', external_url: 'https://example.com', title: 'Link', completion_requirement: { type: 'must_view' } }),
      tool: await kit.addItem(m.id, { type: 'ExternalTool', content_id: tool.id, external_url: 'https://lab.example.com/launch', completion_requirement: { type: 'must_view' } }),
    };
    await kit.publish(m.id);
    const s = kit.room.student.api;
    const cid = kit.cid;
    expect(await kit.stateOf(s, m.id)).toBe('unlocked');
    // Staff and observers looking at the content record nothing.
    ok(await kit.teacher.get(`/api/v1/courses/${cid}/assignments/${assignment.id}`));
    ok(await kit.room.observer.api.get(`/api/v1/courses/${cid}/pages/${page.url}`));
    expect(await kit.stateOf(s, m.id)).toBe('unlocked');

    ok(await s.get(`/api/v1/courses/${cid}/assignments/${assignment.id}`));
    expect(await kit.completed(s, m.id, items.assignment.id)).toBe(true);
    const started = (await kit.standing(s)).get(m.id);
    expect(started).toMatchObject({ state: 'started', completed_at: null });
    ok(await s.get(`/api/v1/courses/${cid}/pages/${page.url}`));
    ok(await s.get(`/api/v1/courses/${cid}/quizzes/${quiz.id}`));
    ok(await s.get(`/api/v1/courses/${cid}/discussion_topics/${topic.id}`));
    for (const key of ['page', 'quiz', 'topic'] as const) expect([key, await kit.completed(s, m.id, items[key].id)]).toEqual([key, true]);
    for (const key of ['file', 'link', 'tool'] as const) {
      expect(await kit.completed(s, m.id, items[key].id)).toBe(false);
      const res = await s.post(kit.item(m.id, items[key].id, '/mark_read'));
      expect(res).toMatchObject({ status: 200, body: { message: 'OK' } });
    }
    const done = (await kit.standing(s)).get(m.id);
    expect(done).toMatchObject({ state: 'completed', completed_at: expect.stringMatching(ISO) });
    // The other student has done nothing.
    expect(await kit.stateOf(kit.room.student2.api, m.id)).toBe('unlocked');
    // Items show each requirement completed for the student, and no `completed` key to the teacher.
    const list = ok(await s.get(`${kit.modules(`/${m.id}`)}?include[]=items`));
    expect(list.items.every((i: any) => i.completion_requirement.completed === true)).toBe(true);
    const teacherView = ok(await kit.teacher.get(`${kit.modules(`/${m.id}`)}?include[]=items`));
    expect(teacherView.items[0].completion_requirement).toEqual({ type: 'must_view' });
    expect(teacherView).not.toHaveProperty('state');
  });

  it('must_submit: a submission completes it; a grade entered without a submission does not', async () => {
    const assignment = await kit.assignment({ name: 'Submit me' });
    const m = await kit.module({ name: 'Submit' });
    const item = await kit.addItem(m.id, { type: 'Assignment', content_id: assignment.id, completion_requirement: { type: 'must_submit' } });
    await kit.publish(m.id);
    await kit.grade(assignment.id, kit.room.student2.id, 10);
    expect(await kit.stateOf(kit.room.student2.api, m.id)).not.toBe('completed');
    expect(await kit.completed(kit.room.student2.api, m.id, item.id)).toBe(false);
    await kit.submit(kit.room.student, assignment.id);
    expect(await kit.completed(kit.room.student.api, m.id, item.id)).toBe(true);
    expect(await kit.stateOf(kit.room.student.api, m.id)).toBe('completed');
  });

  it('min_score: an attempt below starts the module; grading up to the threshold completes it; excusing completes it too', async () => {
    const assignment = await kit.assignment({ name: 'Scored', points_possible: 20 });
    const m = await kit.module({ name: 'Score' });
    const item = await kit.addItem(m.id, { type: 'Assignment', content_id: assignment.id, completion_requirement: { type: 'min_score', min_score: 15 } });
    await kit.publish(m.id);
    const s = kit.room.student.api;
    await kit.submit(kit.room.student, assignment.id);
    expect(await kit.stateOf(s, m.id)).toBe('started');
    await kit.grade(assignment.id, kit.room.student.id, 14.5);
    expect(await kit.stateOf(s, m.id)).toBe('started');
    expect(await kit.completed(s, m.id, item.id)).toBe(false);
    await kit.grade(assignment.id, kit.room.student.id, 15);
    expect(await kit.completed(s, m.id, item.id)).toBe(true);
    expect(await kit.stateOf(s, m.id)).toBe('completed');
    // Lowering the grade reopens it.
    await kit.grade(assignment.id, kit.room.student.id, 3);
    expect(await kit.stateOf(s, m.id)).toBe('started');
    ok(await kit.teacher.put(`/api/v1/courses/${kit.cid}/assignments/${assignment.id}/submissions/${kit.room.student2.id}`, { submission: { excuse: true } }));
    expect(await kit.stateOf(kit.room.student2.api, m.id)).toBe('completed');
  });

  it('min_score and min_percentage on a quiz: the kept quiz score counts once the quiz is taken and scored', async () => {
    const quiz = await kit.quiz({ title: 'Scored quiz', points_possible: 10 });
    const m = await kit.module({ name: 'Quiz score' });
    const byScore = await kit.addItem(m.id, { type: 'Quiz', content_id: quiz.id, completion_requirement: { type: 'min_score', min_score: 7 } });
    const m2 = await kit.module({ name: 'Quiz percent' });
    const byPct = await kit.addItem(m2.id, { type: 'Quiz', content_id: quiz.id, completion_requirement: { type: 'min_percentage', min_percentage: 90 } });
    await kit.publish(m.id);
    await kit.publish(m2.id);
    const s = kit.room.student.api;
    const qs = await kit.takeQuiz(kit.room.student, quiz.id);
    expect(await kit.stateOf(s, m.id)).toBe('started');
    await kit.scoreQuiz(quiz.id, qs.id, 8);
    expect(await kit.completed(s, m.id, byScore.id)).toBe(true);
    expect(await kit.completed(s, m2.id, byPct.id)).toBe(false);
    expect(await kit.stateOf(s, m2.id)).toBe('started');
    await kit.scoreQuiz(quiz.id, qs.id, 9);
    expect(await kit.completed(s, m2.id, byPct.id)).toBe(true);
  });

  it('must_contribute: a student’s discussion entry completes it (and counts as a view)', async () => {
    const topic = await kit.discussion({ title: 'Debate' });
    const m = await kit.module({ name: 'Contribute' });
    const item = await kit.addItem(m.id, { type: 'Discussion', content_id: topic.id, completion_requirement: { type: 'must_contribute' } });
    const m2 = await kit.module({ name: 'View the debate' });
    const viewed = await kit.addItem(m2.id, { type: 'Discussion', content_id: topic.id, completion_requirement: { type: 'must_view' } });
    await kit.publish(m.id);
    await kit.publish(m2.id);
    const s = kit.room.student2.api;
    // Reading is not contributing; a teacher's post counts for nobody.
    ok(await s.get(`/api/v1/courses/${kit.cid}/discussion_topics/${topic.id}`));
    await kit.post(kit.room.teacher, topic.id, 'Welcome');
    expect(await kit.completed(s, m.id, item.id)).toBe(false);
    await kit.post(kit.room.student, topic.id);
    expect(await kit.completed(kit.room.student.api, m.id, item.id)).toBe(true);
    expect(await kit.completed(kit.room.student.api, m2.id, viewed.id)).toBe(true);
    expect(await kit.stateOf(kit.room.student.api, m.id)).toBe('completed');
    expect(await kit.completed(s, m.id, item.id)).toBe(false);
  });

  it('must_mark_done: PUT …/done completes it, DELETE …/done undoes it', async () => {
    const page = await kit.page({ title: 'Checklist' });
    const m = await kit.module({ name: 'Done' });
    const item = await kit.addItem(m.id, { type: 'Page', page_url: page.url, completion_requirement: { type: 'must_mark_done' } });
    const other = await kit.addItem(m.id, { type: 'ExternalUrl', external_url: 'https://example.com/x', title: 'X', completion_requirement: { type: 'must_view' } });
    await kit.publish(m.id);
    const s = kit.room.student.api;
    // Viewing the page is not marking it done.
    ok(await s.get(`/api/v1/courses/${kit.cid}/pages/${page.url}`));
    expect(await kit.completed(s, m.id, item.id)).toBe(false);
    expect(await s.put(kit.item(m.id, item.id, '/done'))).toMatchObject({ status: 200, body: { message: 'OK' } });
    expect(await kit.completed(s, m.id, item.id)).toBe(true);
    expect(await kit.stateOf(s, m.id)).toBe('started');
    ok(await s.post(kit.item(m.id, other.id, '/mark_read')));
    expect(await kit.stateOf(s, m.id)).toBe('completed');
    expect(await s.delete(kit.item(m.id, item.id, '/done'))).toMatchObject({ status: 200, body: { message: 'OK' } });
    expect(await kit.completed(s, m.id, item.id)).toBe(false);
    expect(await kit.stateOf(s, m.id)).toBe('started');
    // Not done twice is fine.
    expect((await s.delete(kit.item(m.id, item.id, '/done'))).status).toBe(200);
  });

  it('requirement_type one: any one requirement completes the module', async () => {
    const m = ok(await kit.teacher.post(kit.modules(), { module: { name: 'Pick one', requirement_count: 1 } }));
    expect(m.requirement_type).toBe('one');
    const a = await kit.addItem(m.id, { type: 'ExternalUrl', external_url: 'https://example.com/a', title: 'A', completion_requirement: { type: 'must_view' } });
    await kit.addItem(m.id, { type: 'ExternalUrl', external_url: 'https://example.com/b', title: 'B', completion_requirement: { type: 'must_view' } });
    await kit.publish(m.id);
    ok(await kit.room.student.api.post(kit.item(m.id, a.id, '/mark_read')));
    expect(await kit.stateOf(kit.room.student.api, m.id)).toBe('completed');
    expect(ok(await kit.teacher.put(kit.modules(`/${m.id}`), { module: { requirement_count: '' } })).requirement_type).toBe('all');
    expect(await kit.stateOf(kit.room.student.api, m.id)).toBe('started');
  });

  it('a module without requirements is completed once unlocked; requirements on items students cannot see do not count', async () => {
    const m = await kit.module({ name: 'Nothing required' });
    const hidden = await kit.assignment({ name: 'Unpublished later' });
    const item = await kit.addItem(m.id, { type: 'Assignment', content_id: hidden.id, completion_requirement: { type: 'must_submit' } });
    await kit.publish(m.id);
    expect(await kit.stateOf(kit.room.student.api, m.id)).toBe('unlocked');
    ok(await kit.teacher.put(`/api/v1/courses/${kit.cid}/assignments/${hidden.id}`, { assignment: { published: false } }));
    expect(await kit.stateOf(kit.room.student.api, m.id)).toBe('completed');
    ok(await kit.teacher.put(kit.item(m.id, item.id), { module_item: { published: true } }));
    expect(await kit.stateOf(kit.room.student.api, m.id)).toBe('unlocked');
    ok(await kit.teacher.delete(kit.item(m.id, item.id)));
    expect(await kit.stateOf(kit.room.student.api, m.id)).toBe('completed');
  });
});

describe('locks', () => {
  it('prerequisites: locked until the prerequisite is completed; only lower positions count', async () => {
    const k = await kit.sibling(world);
    const first = await k.module({ name: 'First' });
    const gate = await k.addItem(first.id, { type: 'ExternalUrl', external_url: 'https://example.com/g', title: 'Gate', completion_requirement: { type: 'must_view' } });
    await k.publish(first.id);
    const second = await k.module({ name: 'Second', prerequisite_module_ids: [first.id] });
    const page = await k.page({ title: 'Behind the gate' });
    const behind = await k.addItem(second.id, { type: 'Page', page_url: page.url, completion_requirement: { type: 'must_view' } });
    await k.publish(second.id);
    const s = k.room.student.api;
    expect(await k.stateOf(s, second.id)).toBe('locked');
    // A locked item refuses mark_read, and viewing its content records nothing.
    const before = await moduleTables(server);
    expect(await s.post(k.item(second.id, behind.id, '/mark_read'))).toMatchObject({ status: 403, body: LOCKED });
    expect(await moduleTables(server)).toEqual(before);
    ok(await s.get(`/api/v1/courses/${k.cid}/pages/${page.url}`));
    expect(await k.completed(s, second.id, behind.id)).toBe(false);
    ok(await s.post(k.item(first.id, gate.id, '/mark_read')));
    expect(await k.stateOf(s, first.id)).toBe('completed');
    expect(await k.stateOf(s, second.id)).toBe('unlocked');
    ok(await s.post(k.item(second.id, behind.id, '/mark_read')));
    expect(await k.stateOf(s, second.id)).toBe('completed');

    // Moved above its prerequisite, the prerequisite no longer counts.
    const s2 = k.room.student2.api;
    expect(await k.stateOf(s2, second.id)).toBe('locked');
    ok(await k.teacher.put(k.modules(`/${second.id}`), { module: { position: 1 } }));
    expect(await k.stateOf(s2, second.id)).toBe('unlocked');
  });

  it('unlock_at: a module unlocking in the future is locked (mark_read refused) until then', async () => {
    const m = await kit.module({ name: 'Later', unlock_at: '2099-01-01T00:00:00Z' });
    const link = await kit.addItem(m.id, { type: 'ExternalUrl', external_url: 'https://example.com/later', title: 'Later', completion_requirement: { type: 'must_view' } });
    await kit.publish(m.id);
    const s = kit.room.student.api;
    expect(await kit.stateOf(s, m.id)).toBe('locked');
    expect(await s.post(kit.item(m.id, link.id, '/mark_read'))).toMatchObject({ status: 403, body: LOCKED });
    const details = ok(await s.get(`${kit.item(m.id, link.id)}?include[]=content_details`)).content_details;
    expect(details).toMatchObject({ locked_for_user: true, lock_info: { asset_string: `context_module_${m.id}`, unlock_at: '2099-01-01T00:00:00Z', context_module: { id: m.id, name: 'Later' } } });
    ok(await kit.teacher.put(kit.modules(`/${m.id}`), { module: { unlock_at: '2001-01-01T00:00:00Z' } }));
    expect(await kit.stateOf(s, m.id)).toBe('unlocked');
    ok(await s.post(kit.item(m.id, link.id, '/mark_read')));
    expect(await kit.stateOf(s, m.id)).toBe('completed');
  });

  it('require_sequential_progress: items after the first unmet requirement are locked', async () => {
    const m = await kit.module({ name: 'In order', require_sequential_progress: true });
    const [p1, p2] = [await kit.page({ title: 'Step one' }), await kit.page({ title: 'Step two' })];
    const one = await kit.addItem(m.id, { type: 'Page', page_url: p1.url, completion_requirement: { type: 'must_view' } });
    await kit.addItem(m.id, { type: 'SubHeader', title: 'Then' });
    const two = await kit.addItem(m.id, { type: 'Page', page_url: p2.url, completion_requirement: { type: 'must_view' } });
    const three = await kit.addItem(m.id, { type: 'ExternalUrl', external_url: 'https://example.com/3', title: 'Three' });
    await kit.publish(m.id);
    const s = kit.room.student.api;
    expect(await s.post(kit.item(m.id, two.id, '/mark_read'))).toMatchObject({ status: 403, body: LOCKED });
    // Viewing step two's page out of order records nothing.
    ok(await s.get(`/api/v1/courses/${kit.cid}/pages/${p2.url}`));
    expect(await kit.completed(s, m.id, two.id)).toBe(false);
    const details = ok(await s.get(`${kit.item(m.id, three.id)}?include[]=content_details`)).content_details;
    expect(details.locked_for_user).toBe(true);
    ok(await s.get(`/api/v1/courses/${kit.cid}/pages/${p1.url}`));
    expect(await kit.stateOf(s, m.id)).toBe('started');
    ok(await s.post(kit.item(m.id, two.id, '/mark_read')));
    expect(await kit.stateOf(s, m.id)).toBe('completed');
    expect(ok(await s.get(`${kit.item(m.id, three.id)}?include[]=content_details`)).content_details.locked_for_user).toBe(false);
    expect(one.position).toBe(1);
  });

  it('relock: new requirements do not lock out a student who already unlocked the next module, until relock', async () => {
    const k = await kit.sibling(world);
    const first = await k.module({ name: 'Base' });
    const a = await k.addItem(first.id, { type: 'ExternalUrl', external_url: 'https://example.com/a', title: 'A', completion_requirement: { type: 'must_view' } });
    await k.publish(first.id);
    const next = await k.module({ name: 'Next', prerequisite_module_ids: [first.id] }, { publish: true });
    const s = k.room.student.api;
    ok(await s.post(k.item(first.id, a.id, '/mark_read')));
    expect(await k.stateOf(s, next.id)).toBe('completed');
    // A new requirement in the first module: it is no longer completed, but the next stays open.
    await k.addItem(first.id, { type: 'ExternalUrl', external_url: 'https://example.com/b', title: 'B', completion_requirement: { type: 'must_view' } });
    await k.publish(first.id);
    expect(await k.stateOf(s, first.id)).toBe('started');
    expect(await k.stateOf(s, next.id)).toBe('completed');
    // A student who had not got there yet is locked out.
    expect(await k.stateOf(k.room.student2.api, next.id)).toBe('locked');

    const res = await k.teacher.put(k.modules(`/${first.id}/relock`));
    expect(res.status).toBe(200);
    expect(await k.stateOf(s, first.id)).toBe('started');
    // The relock reaches the modules that build on it.
    expect(await k.stateOf(s, next.id)).toBe('locked');
    // Recorded views survive the relock.
    expect(await k.completed(s, first.id, a.id)).toBe(true);
  });

  it('relock of the dependent module itself re-checks its prerequisites', async () => {
    const k = await kit.sibling(world);
    const first = await k.module({ name: 'One' }, { publish: true });
    const next = await k.module({ name: 'Two' }, { publish: true });
    const s = k.room.student.api;
    expect(await k.stateOf(s, next.id)).toBe('completed');
    await k.addItem(first.id, { type: 'ExternalUrl', external_url: 'https://example.com/c', title: 'C', completion_requirement: { type: 'must_view' } });
    await k.publish(first.id);
    ok(await k.teacher.put(k.modules(`/${next.id}`), { module: { prerequisite_module_ids: [first.id] } }));
    expect(await k.stateOf(s, next.id)).toBe('completed');
    ok(await k.teacher.put(k.modules(`/${next.id}/relock`)));
    expect(await k.stateOf(s, next.id)).toBe('locked');
    expect(await k.stateOf(s, first.id)).toBe('unlocked');
  });
});

describe('mark_read and done: who may call them', () => {
  let m: any;
  let link: any;
  let draftItem: any;
  let draftModule: any;
  let draftModuleItem: any;
  beforeAll(async () => {
    m = await kit.module({ name: 'Who' });
    link = await kit.addItem(m.id, { type: 'ExternalUrl', external_url: 'https://example.com/who', title: 'Who', completion_requirement: { type: 'must_mark_done' } });
    await kit.publish(m.id);
    draftItem = await kit.addItem(m.id, { type: 'SubHeader', title: 'Unpublished header' });
    draftModule = await kit.module({ name: 'Hidden' });
    draftModuleItem = await kit.addItem(draftModule.id, { type: 'SubHeader', title: 'Hidden header' });
  });

  it('answers 404 to students for unpublished items and modules (nothing recorded)', async () => {
    await kit.standing(kit.room.student.api);
    const before = await moduleTables(server);
    const s = kit.room.student.api;
    for (const path of [kit.item(m.id, draftItem.id, '/mark_read'), kit.item(draftModule.id, draftModuleItem.id, '/mark_read')]) {
      expect(await s.post(path)).toMatchObject({ status: 404, body: NOT_FOUND });
    }
    expect(await s.put(kit.item(m.id, draftItem.id, '/done'))).toMatchObject({ status: 404 });
    expect(await s.delete(kit.item(draftModule.id, draftModuleItem.id, '/done'))).toMatchObject({ status: 404 });
    expect(await s.post(kit.item(m.id, 999999, '/mark_read'))).toMatchObject({ status: 404 });
    expect(await s.post(kit.item(999999, link.id, '/mark_read'))).toMatchObject({ status: 404 });
    expect(await moduleTables(server)).toEqual(before);
  });

  it('is a no-op (200) for teachers, TAs, designers and observers; outsiders 403, anonymous 401', async () => {
    await kit.standing(kit.room.student.api);
    const before = await moduleTables(server);
    for (const who of [kit.room.teacher, kit.room.ta, kit.room.designer, kit.room.observer]) {
      expect(await who.api.post(kit.item(m.id, link.id, '/mark_read'))).toMatchObject({ status: 200, body: { message: 'OK' } });
      expect(await who.api.put(kit.item(m.id, link.id, '/done'))).toMatchObject({ status: 200 });
      expect(await who.api.delete(kit.item(m.id, link.id, '/done'))).toMatchObject({ status: 200 });
    }
    // Staff may address unpublished items without effect.
    expect((await kit.teacher.post(kit.item(m.id, draftItem.id, '/mark_read'))).status).toBe(200);
    for (const res of [
      await kit.room.outsider.api.post(kit.item(m.id, link.id, '/mark_read')),
      await kit.room.outsider.api.put(kit.item(m.id, link.id, '/done')),
      await kit.room.outsider.api.delete(kit.item(m.id, link.id, '/done')),
    ]) {
      expect(res).toMatchObject({ status: 403, body: FORBIDDEN });
    }
    for (const res of [
      await server.as(null).post(kit.item(m.id, link.id, '/mark_read')),
      await server.as(null).put(kit.item(m.id, link.id, '/done')),
      await server.as(null).delete(kit.item(m.id, link.id, '/done')),
    ]) {
      expect(res).toMatchObject({ status: 401, body: UNAUTHENTICATED });
    }
    expect(await moduleTables(server)).toEqual(before);
    // The student's own call does record.
    ok(await kit.room.student.api.put(kit.item(m.id, link.id, '/done')));
    expect(await kit.stateOf(kit.room.student.api, m.id)).toBe('completed');
  });
});

describe('course files: opening one is a view', () => {
  const fileItem = async (m: any, name: string) => {
    const file = await kit.file(name);
    const item = await kit.addItem(m.id, { type: 'File', content_id: file.id, completion_requirement: { type: 'must_view' } });
    return { file, item };
  };

  it('a student’s GET of the metadata (either route) or download meets must_view on File items; staff, observers and verifier-only downloads record nothing', async () => {
    const m = await kit.module({ name: 'Files to view' });
    const byMeta = await fileItem(m, 'meta.txt');
    const byCourseRoute = await fileItem(m, 'course-route.txt');
    const byDownload = await fileItem(m, 'download.txt');
    const byVerifier = await fileItem(m, 'verifier.txt');
    await kit.publish(m.id);
    const s = kit.room.student.api;
    const cid = kit.cid;
    const done = async (x: { item: any }) => kit.completed(s, m.id, x.item.id);

    // Others opening the files record nothing for the student.
    for (const who of [kit.room.teacher, kit.room.observer]) {
      ok(await who.api.get(`/api/v1/files/${byMeta.file.id}`));
      ok(await who.api.get(`/api/v1/courses/${cid}/files/${byCourseRoute.file.id}`));
    }
    const path = (url: string) => url.replace(server.url, '');
    const anonymous = await server.as(null).get(path(byVerifier.file.url));
    expect(anonymous.status).toBe(200);
    expect(await kit.stateOf(s, m.id)).toBe('unlocked');

    ok(await s.get(`/api/v1/files/${byMeta.file.id}`));
    expect(await done(byMeta)).toBe(true);
    expect(await kit.stateOf(s, m.id)).toBe('started');
    // The File item's url is the course route.
    const listed = ok(await s.get(kit.item(m.id, byCourseRoute.item.id)));
    expect(listed.url).toBe(`${server.url}/api/v1/courses/${cid}/files/${byCourseRoute.file.id}`);
    expect(ok(await s.get(path(listed.url)))).toMatchObject({ id: byCourseRoute.file.id, display_name: 'course-route.txt' });
    expect(await done(byCourseRoute)).toBe(true);
    // A download without a verifier, by a signed-in student.
    const dl = await s.get(`/files/${byDownload.file.id}/download`);
    expect(dl).toMatchObject({ status: 200, text: 'hello modules' });
    expect(await done(byDownload)).toBe(true);
    // The verifier URL with the student's token counts too.
    expect((await s.get(path(byVerifier.file.url))).status).toBe(200);
    expect(await done(byVerifier)).toBe(true);
    expect(await kit.stateOf(s, m.id)).toBe('completed');
    expect(await kit.stateOf(kit.room.student2.api, m.id)).toBe('unlocked');
  });

  it('GET /api/v1/courses/:course_id/files/:id answers the file of that course only: other contexts and unknown ids 404, outsiders 403, anonymous 401', async () => {
    const file = await kit.file('scoped.txt');
    const direct = ok(await kit.teacher.get(`/api/v1/files/${file.id}`));
    const scoped = ok(await kit.teacher.get(`/api/v1/courses/${kit.cid}/files/${file.id}`));
    expect(scoped).toEqual(direct);
    expect(scoped).toMatchObject({ id: file.id, display_name: 'scoped.txt', 'content-type': 'text/plain', visibility_level: 'inherit' });

    const other = await kit.sibling(world, 'Other files');
    const elsewhere = await other.file('elsewhere.txt');
    // The teacher may read both courses, yet a file of another course is not this course's.
    expect(await kit.teacher.get(`/api/v1/courses/${kit.cid}/files/${elsewhere.id}`)).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(ok(await kit.teacher.get(`/api/v1/courses/${other.cid}/files/${elsewhere.id}`)).id).toBe(elsewhere.id);
    for (const bad of ['999999999', 'abc', `${file.id}x`]) {
      expect([bad, (await kit.teacher.get(`/api/v1/courses/${kit.cid}/files/${bad}`)).status]).toEqual([bad, 404]);
    }
    expect(await kit.teacher.get(`/api/v1/courses/999999999/files/${file.id}`)).toMatchObject({ status: 404 });
    expect(await kit.room.outsider.api.get(`/api/v1/courses/${kit.cid}/files/${file.id}`)).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await server.as(null).get(`/api/v1/courses/${kit.cid}/files/${file.id}`)).toMatchObject({ status: 401, body: UNAUTHENTICATED });
    // GraphQL: file(id:, courseId:) runs the same rules.
    const q = `query($id: ID!, $c: ID) { file(id: $id, courseId: $c) { _id displayName } }`;
    expect((await kit.teacher.graphql(q, { id: String(file.id), c: String(kit.cid) })).data.file).toEqual({ _id: String(file.id), displayName: 'scoped.txt' });
    expect((await kit.teacher.graphql(q, { id: String(elsewhere.id), c: String(kit.cid) })).errors?.[0].extensions.code).toBe('NOT_FOUND');
  });
});
