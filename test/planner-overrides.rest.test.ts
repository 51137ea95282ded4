import { parseLinks } from './support/api';
import { contentRoom, ContentRoom, count, FORBIDDEN, ISO, NOT_FOUND, UNAUTHENTICATED } from './support/content';
import { startTestServer, TestServer } from './support/server';
import { World } from './support/world';
import { at, Content } from './planner.support';

let server: TestServer;
let world: World;
let room: ContentRoom;
let content: Content;

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
  room = await contentRoom(world);
  content = new Content(room.teacher.api, room.course.id);
});
afterAll(() => server.close());

const OVERRIDES = '/api/v1/planner/overrides';
const row = async (id: number) => (await server.app.ds.query('SELECT marked_complete, dismissed, workflow_state, deleted_at, user_id FROM planner_overrides WHERE id = ?', [id]))[0];

/** A published module with one item linking `content` that students must mark done. */
async function markDoneItem(type: 'Assignment' | 'Page', contentRef: { id?: number; page_url?: string }) {
  const mod = await room.teacher.api.post(`/api/v1/courses/${room.course.id}/modules`, { module: { name: `Module ${type}`, published: true } });
  expect(mod.status).toBe(200);
  const item = await room.teacher.api.post(`/api/v1/courses/${room.course.id}/modules/${mod.body.id}/items`, {
    module_item: { type, content_id: contentRef.id, page_url: contentRef.page_url, completion_requirement: { type: 'must_mark_done' }, published: true },
  });
  expect(item.status).toBe(200);
  return { moduleId: mod.body.id as number, itemId: item.body.id as number };
}

async function completed(moduleId: number, itemId: number, who = room.student): Promise<boolean | undefined> {
  const res = await who.api.get(`/api/v1/courses/${room.course.id}/modules/${moduleId}/items/${itemId}`);
  return res.body.completion_requirement?.completed;
}

describe('POST /api/v1/planner/overrides', () => {
  it('creates an override (201) in Canvas’s JSON', async () => {
    const a = await content.assignment('Essay', at(2));
    const res = await room.student.api.post(OVERRIDES, { plannable_type: 'assignment', plannable_id: a.id, marked_complete: 'true' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      plannable_type: 'assignment',
      plannable_id: a.id,
      user_id: room.student.id,
      assignment_id: a.id,
      workflow_state: 'active',
      marked_complete: true,
      dismissed: false,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
      deleted_at: null,
    });
  });

  it('accepts each plannable_type Canvas has, normalising an assignment behind a quiz or graded topic', async () => {
    const quiz = await content.quiz('Quiz', at(2));
    const viaAssignment = await room.student.api.post(OVERRIDES, { plannable_type: 'assignment', plannable_id: quiz.assignment_id, dismissed: true });
    expect(viaAssignment.status).toBe(201);
    expect(viaAssignment.body).toMatchObject({ plannable_type: 'quiz', plannable_id: quiz.id, assignment_id: quiz.assignment_id, dismissed: true, marked_complete: false });
    const page = await content.page('Page', at(2));
    const topic = await content.topic('Topic', at(2));
    const news = await content.topic('News', null, { announcement: true });
    const note = await room.student.api.post('/api/v1/planner_notes', { title: 'n', todo_date: at(1) });
    for (const [type, id, as] of [
      ['wiki_page', page.page_id, 'wiki_page'],
      ['discussion_topic', topic.id, 'discussion_topic'],
      ['announcement', news.id, 'announcement'],
      ['planner_note', note.body.id, 'planner_note'],
    ] as const) {
      const res = await room.student.api.post(OVERRIDES, { plannable_type: type, plannable_id: id });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ plannable_type: as, plannable_id: id, assignment_id: null, marked_complete: false, dismissed: false });
    }
  });

  it('refuses bad input: unknown, missing or blank type (400), missing id (400), objects that do not exist or are not visible (404)', async () => {
    const a = await content.assignment('Target', at(2));
    const draft = await content.assignment('Draft', at(2), { published: false });
    const othersNote = await room.student2.api.post('/api/v1/planner_notes', { title: 'theirs', todo_date: at(1) });
    const before = await count(server, 'planner_overrides');
    const unknown = await room.student.api.post(OVERRIDES, { plannable_type: 'Assignment', plannable_id: a.id });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors.plannable_type[0]).toMatchObject({ attribute: 'plannable_type', type: 'inclusion' });
    for (const body of [{ plannable_id: a.id }, { plannable_type: '', plannable_id: a.id }]) {
      const res = await room.student.api.post(OVERRIDES, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ errors: { plannable_type: [{ attribute: 'plannable_type', type: 'blank', message: 'blank' }] } });
    }
    const noId = await room.student.api.post(OVERRIDES, { plannable_type: 'assignment' });
    expect(noId.status).toBe(400);
    expect(noId.body).toEqual({ errors: { plannable_id: [{ attribute: 'plannable_id', type: 'blank', message: 'blank' }] } });
    for (const body of [
      { plannable_type: 'assignment', plannable_id: 987654 },
      { plannable_type: 'assignment', plannable_id: draft.id },
      { plannable_type: 'calendar_event', plannable_id: 1 },
      { plannable_type: 'planner_note', plannable_id: othersNote.body.id },
    ]) {
      const res = await room.student.api.post(OVERRIDES, body);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    }
    // A malformed id is a 400 naming it (declared input), before anything is looked up.
    const malformed = await room.student.api.post(OVERRIDES, { plannable_type: 'assignment', plannable_id: 'abc' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors.plannable_id[0]).toMatchObject({ attribute: 'plannable_id', type: 'invalid' });
    // A course the caller is not in.
    expect((await room.outsider.api.post(OVERRIDES, { plannable_type: 'assignment', plannable_id: a.id })).body).toEqual(FORBIDDEN);
    expect((await server.as(null).post(OVERRIDES, { plannable_type: 'assignment', plannable_id: a.id })).body).toEqual(UNAUTHENTICATED);
    expect(await count(server, 'planner_overrides')).toBe(before);
  });

  it('answers a duplicate as Canvas does: 400 "taken" on plannable_id, even after the first was deleted', async () => {
    const a = await content.assignment('Twice', at(2));
    const first = await room.student.api.post(OVERRIDES, { plannable_type: 'assignment', plannable_id: a.id });
    expect(first.status).toBe(201);
    const taken = { errors: { plannable_id: [{ attribute: 'plannable_id', type: 'taken', message: 'taken' }] } };
    const again = await room.student.api.post(OVERRIDES, { plannable_type: 'assignment', plannable_id: a.id, marked_complete: true });
    expect(again.status).toBe(400);
    expect(again.body).toEqual(taken);
    await room.student.api.delete(`${OVERRIDES}/${first.body.id}`);
    expect((await room.student.api.post(OVERRIDES, { plannable_type: 'assignment', plannable_id: a.id })).body).toEqual(taken);
    // Others have their own.
    expect((await room.student2.api.post(OVERRIDES, { plannable_type: 'assignment', plannable_id: a.id })).status).toBe(201);
    expect((await row(first.body.id)).marked_complete ? true : false).toBe(false);
  });
});

describe('list, show, update and delete', () => {
  it('lists the caller’s active overrides by id, paginated; shows one', async () => {
    const u = await world.user('Lister');
    await world.enroll(room.course.id, u.id, 'StudentEnrollment');
    const made: number[] = [];
    for (let i = 0; i < 3; i++) {
      const a = await content.assignment(`List ${i}`, at(3));
      made.push((await u.api.post(OVERRIDES, { plannable_type: 'assignment', plannable_id: a.id })).body.id);
    }
    await u.api.delete(`${OVERRIDES}/${made[1]}`);
    const all = await u.api.get(OVERRIDES);
    expect(all.body.map((o: { id: number }) => o.id)).toEqual([made[0], made[2]]);
    const page = await u.api.get(`${OVERRIDES}?per_page=1`);
    expect(page.body).toHaveLength(1);
    // Canvas's numbered pages: next is page 2, last counts the caller's active overrides.
    const links = parseLinks(page.headers.get('link'));
    expect(links.next).toContain('page=2');
    expect(links.last).toContain('page=2');
    expect((await u.api.get(links.next.replace(server.url, ''))).body.map((o: { id: number }) => o.id)).toEqual([made[2]]);
    const shown = await u.api.get(`${OVERRIDES}/${made[0]}`);
    expect(shown.body).toEqual(all.body[0]);
    // A deleted override is still the caller's to look at.
    expect((await u.api.get(`${OVERRIDES}/${made[1]}`)).body).toMatchObject({ workflow_state: 'deleted', deleted_at: expect.stringMatching(ISO) });
  });

  it('PUT overwrites both flags (an absent one becomes false) and brings back a deleted override', async () => {
    const a = await content.assignment('Flags', at(2));
    const o = (await room.student.api.post(OVERRIDES, { plannable_type: 'assignment', plannable_id: a.id, marked_complete: true, dismissed: true })).body;
    const res = await room.student.api.put(`${OVERRIDES}/${o.id}`, { dismissed: 'true' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ marked_complete: false, dismissed: true });
    const both = await room.student.api.put(`${OVERRIDES}/${o.id}`, { marked_complete: '1' });
    expect(both.body).toMatchObject({ marked_complete: true, dismissed: false });
    const deleted = await room.student.api.delete(`${OVERRIDES}/${o.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id: o.id, workflow_state: 'deleted', deleted_at: expect.stringMatching(ISO) });
    const revived = await room.student.api.put(`${OVERRIDES}/${o.id}`, { marked_complete: true });
    expect(revived.body).toMatchObject({ workflow_state: 'active', deleted_at: null, marked_complete: true });
  });

  it('answers 404 for another user’s override on show, update and delete, and changes nothing', async () => {
    const a = await content.assignment('Mine', at(2));
    const o = (await room.student.api.post(OVERRIDES, { plannable_type: 'assignment', plannable_id: a.id, marked_complete: true })).body;
    const before = await row(o.id);
    for (const who of [room.student2, room.teacher, room.observer, room.outsider]) {
      for (const res of [await who.api.get(`${OVERRIDES}/${o.id}`), await who.api.put(`${OVERRIDES}/${o.id}`, { dismissed: true }), await who.api.delete(`${OVERRIDES}/${o.id}`)]) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual(NOT_FOUND);
      }
      expect((await who.api.get(OVERRIDES)).body.map((x: { id: number }) => x.id)).not.toContain(o.id);
    }
    expect(await row(o.id)).toEqual(before);
    for (const bad of ['abc', '987654']) expect((await room.student.api.get(`${OVERRIDES}/${bad}`)).status).toBe(404);
    expect((await server.as(null).put(`${OVERRIDES}/${o.id}`, { dismissed: true })).status).toBe(401);
  });

  it('follows its object’s published state (workflow_state unpublished, not listed)', async () => {
    const a = await content.assignment('Flip', at(2));
    const o = (await room.student.api.post(OVERRIDES, { plannable_type: 'assignment', plannable_id: a.id })).body;
    await room.teacher.api.put(`/api/v1/courses/${room.course.id}/assignments/${a.id}`, { assignment: { published: false } });
    expect((await room.student.api.get(`${OVERRIDES}/${o.id}`)).body.workflow_state).toBe('unpublished');
    expect((await room.student.api.get(OVERRIDES)).body.map((x: { id: number }) => x.id)).not.toContain(o.id);
    await room.teacher.api.put(`/api/v1/courses/${room.course.id}/assignments/${a.id}`, { assignment: { published: true } });
    expect((await room.student.api.get(`${OVERRIDES}/${o.id}`)).body.workflow_state).toBe('active');
  });
});

describe('the module done link', () => {
  it('marking a must_mark_done assignment complete on the planner marks its module item done; false undoes it', async () => {
    const a = await content.assignment('Checklist', at(2));
    const { moduleId, itemId } = await markDoneItem('Assignment', { id: a.id });
    expect(await completed(moduleId, itemId)).toBe(false);
    const o = await room.student.api.post(OVERRIDES, { plannable_type: 'assignment', plannable_id: a.id, marked_complete: true });
    expect(o.status).toBe(201);
    expect(await completed(moduleId, itemId)).toBe(true);
    await room.student.api.put(`${OVERRIDES}/${o.body.id}`, { marked_complete: false });
    expect(await completed(moduleId, itemId)).toBe(false);
    await room.student.api.put(`${OVERRIDES}/${o.body.id}`, { marked_complete: true });
    expect(await completed(moduleId, itemId)).toBe(true);
    // Only the caller's progress moves.
    expect(await completed(moduleId, itemId, room.student2)).toBe(false);
  });

  it('marking the module item done (PUT …/done) marks the planner override complete and dismissed; DELETE undoes it', async () => {
    const page = await content.page('Safety rules', at(2));
    const { moduleId, itemId } = await markDoneItem('Page', { page_url: page.url });
    const done = await room.student.api.put(`/api/v1/courses/${room.course.id}/modules/${moduleId}/items/${itemId}/done`);
    expect(done.status).toBe(200);
    const list = (await room.student.api.get(`${OVERRIDES}?per_page=100`)).body;
    const o = list.find((x: any) => x.plannable_type === 'wiki_page' && x.plannable_id === page.page_id);
    expect(o).toMatchObject({ marked_complete: true, dismissed: true, workflow_state: 'active' });
    const items = (await room.student.api.get('/api/v1/planner/items')).body;
    expect(items.find((i: any) => i.plannable_type === 'wiki_page' && i.plannable_id === String(page.page_id)).planner_override).toMatchObject({ id: o.id, marked_complete: true });
    await room.student.api.delete(`/api/v1/courses/${room.course.id}/modules/${moduleId}/items/${itemId}/done`);
    expect((await room.student.api.get(`${OVERRIDES}/${o.id}`)).body).toMatchObject({ marked_complete: false, dismissed: false });
    expect(await completed(moduleId, itemId)).toBe(false);
  });

  it('leaves module progress alone when the content is not a single must_mark_done item', async () => {
    const a = await content.assignment('Viewed only', at(2));
    const mod = await room.teacher.api.post(`/api/v1/courses/${room.course.id}/modules`, { module: { name: 'View module', published: true } });
    const item = await room.teacher.api.post(`/api/v1/courses/${room.course.id}/modules/${mod.body.id}/items`, {
      module_item: { type: 'Assignment', content_id: a.id, completion_requirement: { type: 'must_submit' }, published: true },
    });
    await room.student.api.post(OVERRIDES, { plannable_type: 'assignment', plannable_id: a.id, marked_complete: true });
    expect(await completed(mod.body.id, item.body.id)).toBe(false);
  });
});
