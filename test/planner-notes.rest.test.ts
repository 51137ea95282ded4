import { parseLinks } from './support/api';
import { contentRoom, ContentRoom, count, FORBIDDEN, ISO, NOT_FOUND, UNAUTHENTICATED } from './support/content';
import { startTestServer, TestServer } from './support/server';
import { World } from './support/world';
import { at, Content, day } from './planner.support';

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

const NOTES = '/api/v1/planner_notes';
const noteRow = async (id: number) => (await server.app.ds.query('SELECT title, details, course_id, todo_date, workflow_state FROM planner_notes WHERE id = ?', [id]))[0];

describe('POST /api/v1/planner_notes', () => {
  it('creates a note (201) with details as input and both details and description in the output', async () => {
    const res = await room.student.api.post(NOTES, { title: 'Study', details: 'chapter 3', todo_date: day(3) });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      title: 'Study',
      description: 'chapter 3',
      details: 'chapter 3',
      user_id: room.student.id,
      course_id: null,
      workflow_state: 'active',
      todo_date: `${day(3)}T00:00:00Z`,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    const json = await room.student.api.post(NOTES, { title: 'JSON', todo_date: at(2, 9), course_id: room.course.id }, { json: true });
    expect(json.status).toBe(201);
    expect(json.body).toMatchObject({ course_id: room.course.id, todo_date: at(2, 9), details: null });
  });

  it('requires a title and a todo_date (400 with Canvas’s model errors) and reads the date strictly', async () => {
    const before = await count(server, 'planner_notes');
    const noTitle = await room.student.api.post(NOTES, { todo_date: day(1) });
    expect(noTitle.status).toBe(400);
    expect(noTitle.body).toEqual({ errors: { title: [{ attribute: 'title', type: 'blank', message: 'blank' }] } });
    const noDate = await room.student.api.post(NOTES, { title: 'x' });
    expect(noDate.status).toBe(400);
    expect(noDate.body).toEqual({ errors: { todo_date: [{ attribute: 'todo_date', type: 'blank', message: 'blank' }] } });
    const badDate = await room.student.api.post(NOTES, { title: 'x', todo_date: 'next tuesday' });
    expect(badDate.status).toBe(400);
    expect(badDate.body.errors.todo_date[0]).toMatchObject({ attribute: 'todo_date', type: 'invalid' });
    const blankTitle = await room.student.api.post(NOTES, { title: '   ', todo_date: day(1) });
    expect(blankTitle.status).toBe(400);
    expect(await count(server, 'planner_notes')).toBe(before);
  });

  it('checks course_id: 404 for a missing course, 403 for one the caller may not read', async () => {
    const missing = await room.student.api.post(NOTES, { title: 'x', todo_date: day(1), course_id: 987654 });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(NOT_FOUND);
    const foreign = await room.outsider.api.post(NOTES, { title: 'x', todo_date: day(1), course_id: room.course.id });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toEqual(FORBIDDEN);
    expect((await server.as(null).post(NOTES, { title: 'x', todo_date: day(1) })).body).toEqual(UNAUTHENTICATED);
  });

  it('links a learning object of the course: title defaults to its title, URLs point at it, one note per object', async () => {
    const a = await content.assignment('Lab write-up', at(4));
    const res = await room.student.api.post(NOTES, { todo_date: day(2), course_id: room.course.id, linked_object_type: 'assignment', linked_object_id: a.id });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      title: 'Lab write-up',
      course_id: room.course.id,
      linked_object_type: 'assignment',
      linked_object_id: a.id,
      linked_object_html_url: `${server.url}/courses/${room.course.id}/assignments/${a.id}`,
      linked_object_url: `${server.url}/api/v1/courses/${room.course.id}/assignments/${a.id}`,
    });
    const again = await room.student.api.post(NOTES, { title: 'dup', todo_date: day(2), course_id: room.course.id, linked_object_type: 'assignment', linked_object_id: a.id });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ message: 'a planner note linked to that object already exists' });
    // Another user may link the same object; and after deleting the first, so may its owner.
    expect((await room.student2.api.post(NOTES, { todo_date: day(2), course_id: room.course.id, linked_object_type: 'assignment', linked_object_id: a.id })).status).toBe(201);
    await room.student.api.delete(`${NOTES}/${res.body.id}`);
    expect((await room.student.api.post(NOTES, { todo_date: day(2), course_id: room.course.id, linked_object_type: 'assignment', linked_object_id: a.id })).status).toBe(201);

    const page = await content.page('Lab safety', at(3));
    const pageNote = await room.student.api.post(NOTES, { title: 'Read it', todo_date: day(2), course_id: room.course.id, linked_object_type: 'wiki_page', linked_object_id: page.page_id });
    expect(pageNote.body).toMatchObject({ title: 'Read it', linked_object_type: 'wiki_page', linked_object_html_url: `${server.url}/courses/${room.course.id}/pages/page_id:${page.page_id}` });
    const news = await content.topic('Field trip', null, { announcement: true });
    const newsNote = await room.student.api.post(NOTES, { todo_date: day(2), course_id: room.course.id, linked_object_type: 'announcement', linked_object_id: news.id });
    expect(newsNote.body).toMatchObject({ title: 'Field trip', linked_object_type: 'discussion_topic', linked_object_id: news.id });
    const quiz = await content.quiz('Pop quiz', at(3));
    const quizNote = await room.student.api.post(NOTES, { todo_date: day(2), course_id: room.course.id, linked_object_type: 'quiz', linked_object_id: quiz.id });
    expect(quizNote.body).toMatchObject({ title: 'Pop quiz', linked_object_url: `${server.url}/api/v1/courses/${room.course.id}/quizzes/${quiz.id}` });
  });

  it('refuses bad links: no course_id, unknown type, an object elsewhere or invisible to the caller', async () => {
    const a = await content.assignment('Linked', at(4));
    const draft = await content.assignment('Draft', at(4), { published: false });
    const other = await world.course({ name: 'Elsewhere' });
    await world.enroll(other.id, room.student.id, 'StudentEnrollment');
    const before = await count(server, 'planner_notes');
    const noCourse = await room.student.api.post(NOTES, { title: 'x', todo_date: day(1), linked_object_type: 'assignment', linked_object_id: a.id });
    expect(noCourse.status).toBe(400);
    expect(noCourse.body).toEqual({ message: 'must specify course_id' });
    const badType = await room.student.api.post(NOTES, { title: 'x', todo_date: day(1), course_id: room.course.id, linked_object_type: 'calendar_event', linked_object_id: a.id });
    expect(badType.status).toBe(400);
    expect(badType.body).toEqual({ message: 'invalid linked_object_type' });
    const elsewhere = await room.student.api.post(NOTES, { title: 'x', todo_date: day(1), course_id: other.id, linked_object_type: 'assignment', linked_object_id: a.id });
    expect(elsewhere.status).toBe(404);
    const hidden = await room.student.api.post(NOTES, { title: 'x', todo_date: day(1), course_id: room.course.id, linked_object_type: 'assignment', linked_object_id: draft.id });
    expect(hidden.status).toBe(404);
    const gone = await room.student.api.post(NOTES, { title: 'x', todo_date: day(1), course_id: room.course.id, linked_object_type: 'quiz', linked_object_id: 987654 });
    expect(gone.status).toBe(404);
    expect(await count(server, 'planner_notes')).toBe(before);
  });
});

describe('GET, PUT and DELETE /api/v1/planner_notes/:id', () => {
  it('shows, updates and soft-deletes the caller’s own note', async () => {
    const created = (await room.student.api.post(NOTES, { title: 'Draft', todo_date: day(5), course_id: room.course.id })).body;
    const shown = await room.student.api.get(`${NOTES}/${created.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual(created);
    const updated = await room.student.api.put(`${NOTES}/${created.id}`, { title: 'Final', details: 'more', todo_date: at(6, 10) });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ title: 'Final', details: 'more', description: 'more', todo_date: at(6, 10), course_id: room.course.id });
    // Null or empty course_id removes the note from its course.
    const detached = await room.student.api.put(`${NOTES}/${created.id}`, { course_id: '' });
    expect(detached.body.course_id).toBeNull();
    const moved = await room.student.api.put(`${NOTES}/${created.id}`, { course_id: room.course.id }, { json: true });
    expect(moved.body.course_id).toBe(room.course.id);
    const nulled = await room.student.api.put(`${NOTES}/${created.id}`, { course_id: null }, { json: true });
    expect(nulled.body.course_id).toBeNull();
    const removed = await room.student.api.delete(`${NOTES}/${created.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ id: created.id, workflow_state: 'deleted', title: 'Final' });
    expect((await noteRow(created.id)).workflow_state).toBe('deleted');
    expect((await room.student.api.get(`${NOTES}/${created.id}`)).status).toBe(404);
    expect((await room.student.api.delete(`${NOTES}/${created.id}`)).status).toBe(404);
  });

  it('refuses a blank title, a bad date and a course the caller may not read on update, changing nothing', async () => {
    const n = (await room.student.api.post(NOTES, { title: 'Keep', todo_date: day(5) })).body;
    const before = await noteRow(n.id);
    expect((await room.student.api.put(`${NOTES}/${n.id}`, { title: '' })).status).toBe(400);
    expect((await room.student.api.put(`${NOTES}/${n.id}`, { todo_date: 'soon' })).status).toBe(400);
    const foreign = await world.course({ name: 'Not mine' });
    expect((await room.student.api.put(`${NOTES}/${n.id}`, { course_id: foreign.id })).status).toBe(403);
    expect((await room.student.api.put(`${NOTES}/${n.id}`, { course_id: 987654 })).status).toBe(404);
    expect(await noteRow(n.id)).toEqual(before);
  });

  it('keeps a linked note in its course', async () => {
    const a = await content.assignment('Keep linked', at(4));
    const n = (await room.student.api.post(NOTES, { todo_date: day(2), course_id: room.course.id, linked_object_type: 'assignment', linked_object_id: a.id })).body;
    for (const body of [{ course_id: '' }, { course_id: 987654 }]) {
      const res = await room.student.api.put(`${NOTES}/${n.id}`, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'course_id cannot be changed for linked planner notes' });
    }
    const same = await room.student.api.put(`${NOTES}/${n.id}`, { course_id: room.course.id, title: 'Renamed' });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ title: 'Renamed', course_id: room.course.id, linked_object_id: a.id });
  });

  it('answers 404 for another user’s note on show, update and delete, and changes nothing', async () => {
    const mine = (await room.student.api.post(NOTES, { title: 'Private', details: 'secret', todo_date: day(2) })).body;
    const before = await noteRow(mine.id);
    for (const who of [room.student2, room.teacher, room.observer]) {
      for (const res of [
        await who.api.get(`${NOTES}/${mine.id}`),
        await who.api.put(`${NOTES}/${mine.id}`, { title: 'Hijacked', course_id: '' }),
        await who.api.delete(`${NOTES}/${mine.id}`),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual(NOT_FOUND);
      }
    }
    // Even a site admin only ever sees their own notes here.
    expect((await server.admin.get(`${NOTES}/${mine.id}`)).status).toBe(404);
    expect(await noteRow(mine.id)).toEqual(before);
    for (const bad of ['abc', '987654', '1.5']) expect((await room.student.api.get(`${NOTES}/${bad}`)).status).toBe(404);
    expect((await server.as(null).get(`${NOTES}/${mine.id}`)).status).toBe(401);
  });
});

describe('GET /api/v1/planner_notes', () => {
  let u: Awaited<ReturnType<World['user']>>;
  const made: Record<string, number> = {};
  beforeAll(async () => {
    u = await world.user('Note Taker');
    await world.enroll(room.course.id, u.id, 'StudentEnrollment');
    const mk = async (key: string, body: Record<string, unknown>) => (made[key] = (await u.api.post(NOTES, body)).body.id);
    await mk('d1', { title: 'day 1 morning', todo_date: at(1, 8) });
    await mk('d1late', { title: 'day 1 night', todo_date: at(1, 23, 30) });
    await mk('d2', { title: 'day 2', todo_date: at(2, 12), course_id: room.course.id });
    await mk('d3', { title: 'day 3', todo_date: at(3, 12) });
    await mk('gone', { title: 'deleted', todo_date: at(1, 9) });
    await u.api.delete(`${NOTES}/${made.gone}`);
  });

  const list = async (q = '') => (await u.api.get(`${NOTES}${q}`)).body.map((n: { id: number }) => n.id);

  it('lists the caller’s active notes only', async () => {
    expect(await list()).toEqual([made.d1, made.d1late, made.d2, made.d3]);
  });

  it('takes an inclusive range; an equal start and end date means that whole day', async () => {
    expect(await list(`?start_date=${day(1)}&end_date=${day(1)}`)).toEqual([made.d1, made.d1late]);
    expect(await list(`?start_date=${day(2)}&end_date=${day(3)}`)).toEqual([made.d2, made.d3]);
    expect(await list(`?start_date=${encodeURIComponent(at(1, 23, 30))}`)).toEqual([made.d1late, made.d2, made.d3]);
    expect(await list(`?end_date=${encodeURIComponent(at(1, 8))}`)).toEqual([made.d1]);
    const bad = await u.api.get(`${NOTES}?start_date=yesterday`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ errors: 'Invalid date or datetime for start_date' });
    expect((await u.api.get(`${NOTES}?end_date=2024-99-01`)).body).toEqual({ errors: 'Invalid date or datetime for end_date' });
  });

  it('narrows by context_codes[]: courses, and the user’s own code for notes without a course', async () => {
    expect(await list(`?context_codes[]=course_${room.course.id}`)).toEqual([made.d2]);
    expect(await list(`?context_codes[]=user_${u.id}`)).toEqual([made.d1, made.d1late, made.d3]);
    expect(await list(`?context_codes[]=user_${u.id}&context_codes[]=course_${room.course.id}`)).toEqual([made.d1, made.d1late, made.d2, made.d3]);
    // Someone else's user code adds nothing.
    expect(await list(`?context_codes[]=user_${room.student.id}`)).toEqual([]);
  });

  it('pages with page/per_page and a Link header', async () => {
    const first = await u.api.get(`${NOTES}?per_page=3`);
    expect(first.body.map((n: { id: number }) => n.id)).toEqual([made.d1, made.d1late, made.d2]);
    const links = parseLinks(first.headers.get('link'));
    expect(links.next).toContain('page=2');
    expect(links.last).toContain('page=2');
    const second = await u.api.get(`${NOTES}?per_page=3&page=2`);
    expect(second.body.map((n: { id: number }) => n.id)).toEqual([made.d3]);
  });

  it('leaves out notes of deleted courses', async () => {
    const c = await world.course({ name: 'Doomed' });
    await world.enroll(c.id, u.id, 'StudentEnrollment');
    const n = (await u.api.post(NOTES, { title: 'in doomed', todo_date: at(1, 10), course_id: c.id })).body;
    expect(await list()).toContain(n.id);
    await server.admin.put(`/api/v1/courses/${c.id}`, { course: { event: 'delete' } });
    expect(await list()).not.toContain(n.id);
  });
});
