import { CalendarEvent } from '../src/calendar-events/calendar-event.entity';
import { Assignment } from '../src/content/assignments/assignment.entity';
import { WikiPage } from '../src/content/pages/page.entity';
import { PlannerNote } from '../src/planner/planner-note.entity';
import { parseLinks } from './support/api';
import { contentRoom, ContentRoom, FORBIDDEN, ISO, NOT_FOUND, UNAUTHENTICATED } from './support/content';
import { startTestServer, TestServer } from './support/server';
import { World, WorldUser } from './support/world';
import { allPages, at, Content, day, keyOf } from './planner.support';

let server: TestServer;
let world: World;
let room: ContentRoom;
let content: Content;
/** A second course of the same student, with its own observer link. */
let other: { id: number };
let otherContent: Content;
const ids: Record<string, number> = {};

const items = (api: WorldUser['api'], query = '') => api.get(`/api/v1/planner/items${query}`);
const keys = (body: any[]) => body.map(keyOf);

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
  room = await contentRoom(world);
  content = new Content(room.teacher.api, room.course.id);
  other = await world.course({ name: 'Chemistry' });
  await world.enroll(other.id, room.teacher.id, 'TeacherEnrollment');
  await world.enroll(other.id, room.student.id, 'StudentEnrollment');
  otherContent = new Content(room.teacher.api, other.id);

  ids.assignment = (await content.assignment('Essay', at(2, 10))).id;
  ids.unpublished = (await content.assignment('Draft essay', at(2, 11), { published: false })).id;
  ids.farAway = (await content.assignment('Final', at(40))).id;
  ids.undated = (await content.assignment('Whenever', null)).id;
  const graded = await content.quiz('Graded quiz', at(3, 9));
  ids.gradedQuiz = graded.id;
  ids.gradedQuizAssignment = graded.assignment_id!;
  ids.practice = (await content.quiz('Practice quiz', at(3, 10), { quizType: 'practice_quiz' })).id;
  ids.draftQuiz = (await content.quiz('Draft quiz', at(3, 11), { quizType: 'practice_quiz', published: false })).id;
  ids.page = (await content.page('Reading', at(4, 8))).page_id;
  ids.undatedPage = (await content.page('Syllabus notes', null)).page_id;
  ids.draftPage = (await content.page('Draft reading', at(4, 9), { published: false })).page_id;
  ids.topic = (await content.topic('Discuss', at(5, 8))).id;
  ids.draftTopic = (await content.topic('Draft discuss', at(5, 9), { published: false })).id;
  ids.announcement = (await content.topic('Welcome', null, { announcement: true })).id;
  ids.delayed = (await content.topic('Later news', null, { announcement: true, delayedPostAt: at(6) })).id;
  ids.chem = (await otherContent.assignment('Lab report', at(1, 9))).id;
  const note = await room.student.api.post('/api/v1/planner_notes', { title: 'Buy pens', todo_date: at(1, 15) });
  ids.note = note.body.id;
  const courseNote = await room.student.api.post('/api/v1/planner_notes', { title: 'Ask about essay', todo_date: at(2, 10), course_id: room.course.id });
  ids.courseNote = courseNote.body.id;
});
afterAll(() => server.close());

describe('GET /api/v1/planner/items', () => {
  it("lists the student's dated, published learning objects and notes across courses, in Canvas's order", async () => {
    const res = await items(room.student.api);
    expect(res.status).toBe(200);
    const order = keys(res.body);
    // The announcement was posted now, so it comes first; then by date (ties: id, then collection).
    expect(order).toEqual([
      `announcement:${ids.announcement}`,
      `assignment:${ids.chem}`,
      `planner_note:${ids.note}`,
      `assignment:${ids.assignment}`,
      `planner_note:${ids.courseNote}`,
      `quiz:${ids.gradedQuiz}`,
      `quiz:${ids.practice}`,
      `wiki_page:${ids.page}`,
      `discussion_topic:${ids.topic}`,
    ]);
    const dates = res.body.map((i: any) => i.plannable_date);
    expect([...dates].sort()).toEqual(dates);
  });

  it('emits the planner item shape: context, plannable, override, submissions (with both feedback names), html_url', async () => {
    const res = await items(room.student.api);
    const essay = res.body.find((i: any) => i.plannable_type === 'assignment' && i.plannable_id === String(ids.assignment));
    expect(essay).toEqual({
      context_type: 'Course',
      course_id: room.course.id,
      context_name: 'Biology 101',
      plannable_id: String(ids.assignment), // a string in planner items (the spec's table)
      plannable_type: 'assignment',
      plannable_date: at(2, 10),
      planner_override: null,
      new_activity: false,
      submissions: { submitted: false, excused: false, graded: false, posted_at: null, late: false, missing: false, needs_grading: false, has_feedback: false, with_feedback: false, redo_request: false },
      plannable: {
        id: ids.assignment,
        title: 'Essay',
        course_id: room.course.id,
        assignment_id: ids.assignment,
        points_possible: 10,
        due_at: at(2, 10),
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      },
      html_url: `${server.url}/courses/${room.course.id}/assignments/${ids.assignment}`,
    });
    const note = res.body.find((i: any) => i.plannable_type === 'planner_note' && i.plannable_id === String(ids.note));
    expect(note).toEqual({
      plannable_id: String(ids.note),
      plannable_type: 'planner_note',
      plannable_date: at(1, 15),
      planner_override: null,
      new_activity: false,
      submissions: false,
      plannable: {
        id: ids.note,
        todo_date: at(1, 15),
        title: 'Buy pens',
        details: null,
        user_id: room.student.id,
        course_id: null,
        workflow_state: 'active',
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      },
      html_url: `${server.url}/api/v1/planner_notes/${ids.note}`,
    });
    const courseNote = res.body.find((i: any) => i.plannable_id === String(ids.courseNote) && i.plannable_type === 'planner_note');
    expect(courseNote).toMatchObject({ context_type: 'Course', course_id: room.course.id, plannable: { course_id: room.course.id } });
    const quiz = res.body.find((i: any) => i.plannable_type === 'quiz' && i.plannable_id === String(ids.gradedQuiz));
    expect(quiz).toMatchObject({
      submissions: { submitted: false, has_feedback: false, with_feedback: false },
      plannable: { id: ids.gradedQuiz, title: 'Graded quiz', assignment_id: ids.gradedQuizAssignment, points_possible: 5 },
      html_url: `${server.url}/courses/${room.course.id}/quizzes/${ids.gradedQuiz}`,
    });
    const practice = res.body.find((i: any) => i.plannable_id === String(ids.practice) && i.plannable_type === 'quiz');
    expect(practice.submissions).toBe(false);
    expect(practice.plannable).not.toHaveProperty('assignment_id');
    const page = res.body.find((i: any) => i.plannable_type === 'wiki_page');
    expect(page).toMatchObject({ submissions: false, plannable: { id: ids.page, title: 'Reading', todo_date: at(4, 8), url: 'reading' }, html_url: `${server.url}/courses/${room.course.id}/pages/reading` });
    const topic = res.body.find((i: any) => i.plannable_type === 'discussion_topic');
    expect(topic).toMatchObject({
      new_activity: true,
      submissions: false,
      plannable: { id: ids.topic, title: 'Discuss', todo_date: at(5, 8), read_state: 'unread', unread_count: 0 },
      html_url: `${server.url}/courses/${room.course.id}/discussion_topics/${ids.topic}`,
    });
  });

  it("types plannable_id as the spec's string of digits, while the override inside keeps its integer plannable_id", async () => {
    // A course and student of its own, so the other tests' lists stay as they are.
    const course = await world.course({ name: 'Ids' });
    const student = await world.user('Ids student');
    await world.enroll(course.id, room.teacher.id, 'TeacherEnrollment');
    await world.enroll(course.id, student.id, 'StudentEnrollment');
    const a = await new Content(room.teacher.api, course.id).assignment('String ids', at(2, 12));
    await student.api.post('/api/v1/planner/overrides', { plannable_type: 'assignment', plannable_id: a.id, dismissed: true });
    const [item] = (await items(student.api)).body;
    expect(item).toMatchObject({ plannable_type: 'assignment', plannable_id: String(a.id), course_id: course.id });
    expect(item.planner_override.plannable_id).toBe(a.id);
    // Canvas's string-ids Accept header turns every other id into a string as well.
    const [same] = (await student.api.with({ Accept: 'application/json+canvas-string-ids' }).get('/api/v1/planner/items')).body;
    expect(same).toMatchObject({ plannable_id: String(a.id), course_id: String(course.id), planner_override: { plannable_id: String(a.id) }, plannable: { id: String(a.id) } });
  });

  it('never shows unpublished content, undated content, delayed announcements or other users’ notes', async () => {
    await room.student2.api.post('/api/v1/planner_notes', { title: 'Not yours', todo_date: at(1, 15) });
    const seen = new Set(keys((await items(room.student.api, `?start_date=${day(-30)}&end_date=${day(60)}`)).body));
    for (const k of [
      `assignment:${ids.unpublished}`,
      `assignment:${ids.undated}`,
      `quiz:${ids.draftQuiz}`,
      `wiki_page:${ids.draftPage}`,
      `wiki_page:${ids.undatedPage}`,
      `discussion_topic:${ids.draftTopic}`,
      `announcement:${ids.delayed}`,
      // A graded quiz is listed once, as the quiz, never as its assignment.
      `assignment:${ids.gradedQuizAssignment}`,
    ]) {
      expect(seen).not.toContain(k);
    }
    expect(seen).toContain(`assignment:${ids.farAway}`);
    const student2 = keys((await items(room.student2.api)).body);
    expect(student2.filter((k) => k.startsWith('planner_note'))).toHaveLength(1);
    expect(student2).not.toContain(`assignment:${ids.chem}`);
  });

  it('defaults to two weeks either side of today; one date alone opens the other side', async () => {
    const near = await content.assignment('Soon-ish', at(13));
    const past = await content.assignment('Recent', at(-13));
    const tooFar = await content.assignment('Later', at(15));
    const tooOld = await content.assignment('Old', at(-15));
    const dflt = keys((await items(room.student.api)).body);
    expect(dflt).toEqual(expect.arrayContaining([`assignment:${near.id}`, `assignment:${past.id}`]));
    expect(dflt).not.toContain(`assignment:${tooFar.id}`);
    expect(dflt).not.toContain(`assignment:${tooOld.id}`);
    const fromToday = keys((await items(room.student.api, `?start_date=${day(0)}`)).body);
    expect(fromToday).toEqual(expect.arrayContaining([`assignment:${tooFar.id}`, `assignment:${ids.farAway}`]));
    expect(fromToday).not.toContain(`assignment:${past.id}`);
    const untilToday = keys((await items(room.student.api, `?end_date=${day(0)}`)).body);
    expect(untilToday).toEqual(expect.arrayContaining([`assignment:${tooOld.id}`, `assignment:${past.id}`]));
    expect(untilToday).not.toContain(`assignment:${near.id}`);
  });

  it('takes YYYY-MM-DD (start of that day, for end_date too) and ISO 8601 date-times', async () => {
    const onDay2 = keys((await items(room.student.api, `?start_date=${day(2)}&end_date=${day(3)}`)).body);
    expect(onDay2).toContain(`assignment:${ids.assignment}`);
    // A date-only end_date is the start of that day: the quiz due on day 3 at 09:00 is out.
    expect(onDay2).not.toContain(`quiz:${ids.gradedQuiz}`);
    const iso = keys((await items(room.student.api, `?start_date=${encodeURIComponent(at(2, 10))}&end_date=${encodeURIComponent(at(3, 9))}`)).body);
    expect(iso).toEqual([`assignment:${ids.assignment}`, `planner_note:${ids.courseNote}`, `quiz:${ids.gradedQuiz}`]);
  });

  it('answers 400 with Canvas’s string body for a date it cannot read', async () => {
    for (const [q, name] of [
      ['?start_date=tomorrow', 'start_date'],
      ['?start_date=2024-13-01', 'start_date'],
      ['?end_date=2024-02-31', 'end_date'],
      [`?start_date=${day(0)}&end_date=not-a-date`, 'end_date'],
    ]) {
      const res = await items(room.student.api, q);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ errors: `Invalid date or datetime for ${name}` });
    }
    expect((await room.student.api.get('/api/v1/users/self/planner/items?start_date=x')).body).toEqual({ errors: 'Invalid date or datetime for start_date' });
  });

  it('narrows to context_codes[]: a course, the user’s own notes, both; refuses contexts the user may not read', async () => {
    const course = keys((await items(room.student.api, `?context_codes[]=course_${other.id}`)).body);
    expect(course).toEqual([`assignment:${ids.chem}`]);
    const own = keys((await items(room.student.api, `?context_codes[]=user_${room.student.id}`)).body);
    expect(own).toEqual([`planner_note:${ids.note}`]);
    const both = keys((await items(room.student.api, `?context_codes[]=user_${room.student.id}&context_codes[]=course_${room.course.id}`)).body);
    expect(both).toContain(`planner_note:${ids.note}`);
    expect(both).toContain(`planner_note:${ids.courseNote}`);
    expect(both).not.toContain(`assignment:${ids.chem}`);
    const foreign = await world.course({ name: 'Private' });
    for (const code of [`course_${foreign.id}`, 'course_987654', `user_${room.student2.id}`]) {
      const res = await items(room.student.api, `?context_codes[]=${code}`);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    }
    // Unparseable codes are dropped (as Canvas's parser drops them), leaving nothing.
    expect((await items(room.student.api, '?context_codes[]=bogus')).body).toEqual([]);
  });

  it('includes group discussions of the user’s groups, and group_<id> narrows to them', async () => {
    const category = await room.teacher.api.post(`/api/v1/courses/${room.course.id}/group_categories`, { name: 'Projects' });
    const group = await room.teacher.api.post(`/api/v1/group_categories/${category.body.id}/groups`, { name: 'Team A' });
    await room.teacher.api.post(`/api/v1/groups/${group.body.id}/memberships`, { user_id: room.student.id });
    const topic = await content.topic('Team plan', at(6, 10), { contextPath: `/api/v1/groups/${group.body.id}` });
    const all = (await items(room.student.api)).body;
    const item = all.find((i: any) => i.plannable_id === String(topic.id) && i.plannable_type === 'discussion_topic');
    expect(item).toMatchObject({ context_type: 'Group', group_id: group.body.id, context_name: 'Team A', html_url: `${server.url}/groups/${group.body.id}/discussion_topics/${topic.id}` });
    expect(item).not.toHaveProperty('course_id');
    expect(keys((await items(room.student.api, `?context_codes[]=group_${group.body.id}`)).body)).toEqual([`discussion_topic:${topic.id}`]);
    expect(keys((await items(room.student2.api)).body)).not.toContain(`discussion_topic:${topic.id}`);
    expect((await items(room.student2.api, `?context_codes[]=group_${group.body.id}`)).status).toBe(403);
  });

  it('leaves concluded courses out unless include[]=concluded', async () => {
    const old = await world.course({ name: 'Last term' });
    await world.enroll(old.id, room.teacher.id, 'TeacherEnrollment');
    await world.enroll(old.id, room.student.id, 'StudentEnrollment');
    const a = await new Content(room.teacher.api, old.id).assignment('Old essay', at(1, 7));
    expect(keys((await items(room.student.api)).body)).toContain(`assignment:${a.id}`);
    const concluded = await server.admin.put(`/api/v1/courses/${old.id}`, { course: { event: 'conclude' } });
    expect(concluded.status).toBe(200);
    expect(keys((await items(room.student.api)).body)).not.toContain(`assignment:${a.id}`);
    expect(keys((await items(room.student.api, '?include[]=concluded')).body)).toContain(`assignment:${a.id}`);
  });

  it('pages with Canvas bookmarks: per_page (default 50, at most 100), Link current/next/first and no last', async () => {
    const full = (await items(room.student.api, `?start_date=${day(-30)}&end_date=${day(60)}`)).body;
    expect(full.length).toBeGreaterThan(5);
    const { items: paged, links } = await allPages(room.student.api, `/api/v1/planner/items?start_date=${day(-30)}&end_date=${day(60)}&per_page=2`);
    expect(keys(paged)).toEqual(keys(full));
    expect(links[0].current).toContain('page=first');
    expect(links[0].next).toMatch(/page=bookmark%3A[A-Za-z0-9_-]+/);
    expect(links[0].first).toContain('page=first');
    for (const l of links) expect(l).not.toHaveProperty('last');
    expect(links[links.length - 1]).not.toHaveProperty('next');
    expect(links[1].current).toBe(links[0].next);
    // A bad bookmark is the first page.
    const bad = await items(room.student.api, `?start_date=${day(-30)}&end_date=${day(60)}&per_page=2&page=bookmark:garbage`);
    expect(keys(bad.body)).toEqual(keys(full).slice(0, 2));
    const huge = await items(room.student.api, `?start_date=${day(-30)}&end_date=${day(60)}&per_page=500`);
    expect(parseLinks(huge.headers.get('link')).current).toContain('per_page=100');
  });

  it('order=desc reverses the list and its pages', async () => {
    const q = `?start_date=${day(-30)}&end_date=${day(60)}`;
    const asc = keys((await items(room.student.api, q)).body);
    const { items: desc } = await allPages(room.student.api, `/api/v1/planner/items${q}&order=desc&per_page=3`);
    expect(keys(desc)).toEqual([...asc].reverse());
  });

  it('answers 401 without a token and 404 for an unknown user', async () => {
    const anon = await server.as(null).get('/api/v1/planner/items');
    expect(anon.status).toBe(401);
    expect(anon.body).toEqual(UNAUTHENTICATED);
    expect((await server.as(null).get(`/api/v1/users/${room.student.id}/planner/items`)).status).toBe(401);
    expect((await server.as('bogus').get('/api/v1/planner/items')).status).toBe(401);
    const missing = await room.student.api.get('/api/v1/users/987654/planner/items');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(NOT_FOUND);
  });
});

describe('submissions, overrides and filters', () => {
  it('fills the submissions object as the student submits and is graded, and links the submission', async () => {
    const a = await content.assignment('Worksheet', at(1, 11));
    const submit = await room.student.api.post(`/api/v1/courses/${room.course.id}/assignments/${a.id}/submissions`, { submission: { submission_type: 'online_text_entry', body: 'done' } });
    expect(submit.status).toBe(201);
    let item = (await items(room.student.api)).body.find((i: any) => i.plannable_id === String(a.id) && i.plannable_type === 'assignment');
    expect(item.submissions).toMatchObject({ submitted: true, graded: false, needs_grading: true, late: false, missing: false, has_feedback: false, with_feedback: false });
    expect(item.html_url).toBe(`${server.url}/courses/${room.course.id}/assignments/${a.id}/submissions/${room.student.id}`);
    await room.teacher.api.put(`/api/v1/courses/${room.course.id}/assignments/${a.id}/submissions/${room.student.id}`, { submission: { posted_grade: '9' } });
    item = (await items(room.student.api)).body.find((i: any) => i.plannable_id === String(a.id) && i.plannable_type === 'assignment');
    expect(item.submissions).toMatchObject({ submitted: true, graded: true, needs_grading: false, posted_at: expect.stringMatching(ISO) });
    const b = await content.assignment('Excused work', at(1, 12));
    await room.teacher.api.put(`/api/v1/courses/${room.course.id}/assignments/${b.id}/submissions/${room.student.id}`, { submission: { excuse: true } });
    item = (await items(room.student.api)).body.find((i: any) => i.plannable_id === String(b.id) && i.plannable_type === 'assignment');
    expect(item.submissions).toMatchObject({ excused: true, graded: true, missing: false });
    const overdue = await content.assignment('Overdue', at(-2));
    item = (await items(room.student.api)).body.find((i: any) => i.plannable_id === String(overdue.id) && i.plannable_type === 'assignment');
    expect(item.submissions).toMatchObject({ missing: true, submitted: false });
  });

  it('shows the user’s override on the matching item; incomplete_items and complete_items split on it and on submissions', async () => {
    const a = await content.assignment('Mark me', at(1, 13));
    const o = await room.student.api.post('/api/v1/planner/overrides', { plannable_type: 'assignment', plannable_id: a.id, marked_complete: true });
    expect(o.status).toBe(201);
    const item = (await items(room.student.api)).body.find((i: any) => i.plannable_id === String(a.id) && i.plannable_type === 'assignment');
    expect(item.planner_override).toMatchObject({ id: o.body.id, plannable_type: 'assignment', plannable_id: a.id, marked_complete: true, dismissed: false, workflow_state: 'active', assignment_id: a.id });
    // Another student's view of the same assignment carries no override.
    const theirs = (await items(room.student2.api)).body.find((i: any) => i.plannable_id === String(a.id) && i.plannable_type === 'assignment');
    expect(theirs.planner_override).toBeNull();
    // A quiz override is stored against the quiz, even when given as its assignment.
    const qo = await room.student.api.post('/api/v1/planner/overrides', { plannable_type: 'assignment', plannable_id: ids.gradedQuizAssignment, marked_complete: true });
    expect(qo.body).toMatchObject({ plannable_type: 'quiz', plannable_id: ids.gradedQuiz, assignment_id: ids.gradedQuizAssignment });
    const noteOverride = await room.student.api.post('/api/v1/planner/overrides', { plannable_type: 'planner_note', plannable_id: ids.note, marked_complete: true });
    expect(noteOverride.status).toBe(201);

    const complete = keys((await items(room.student.api, '?filter=complete_items')).body);
    const incomplete = keys((await items(room.student.api, '?filter=incomplete_items')).body);
    const all = keys((await items(room.student.api)).body);
    expect(complete).toEqual(expect.arrayContaining([`assignment:${a.id}`, `quiz:${ids.gradedQuiz}`, `planner_note:${ids.note}`]));
    // Submitted work counts as complete too (the worksheet above).
    expect(complete.length).toBeGreaterThanOrEqual(4);
    expect(incomplete).not.toContain(`assignment:${a.id}`);
    expect([...complete, ...incomplete].sort()).toEqual([...all].sort());
    expect(new Set(complete).size + new Set(incomplete).size).toBe(all.length);
  });

  it('filter=new_activity lists unread discussions (and graded ones); reading them removes them', async () => {
    const topic = await content.topic('Fresh topic', at(2, 14));
    let unread = keys((await items(room.student.api, '?filter=new_activity')).body);
    expect(unread).toContain(`discussion_topic:${topic.id}`);
    expect(unread).not.toContain(`assignment:${ids.assignment}`);
    expect(unread).not.toContain(`planner_note:${ids.note}`);
    // A graded discussion is its assignment's item, shown as the topic.
    const graded = await content.assignment('Graded debate', at(2, 15), { types: ['discussion_topic'] });
    const gradedTopic = await content.topic('Graded debate', null);
    await server.app.ds.query('UPDATE discussion_topics SET assignment_id = ? WHERE id = ?', [graded.id, gradedTopic.id]);
    const all = (await items(room.student.api)).body;
    const asTopic = all.find((i: any) => i.plannable_id === String(gradedTopic.id) && i.plannable_type === 'discussion_topic');
    expect(asTopic).toMatchObject({ new_activity: true, plannable: { assignment_id: graded.id, read_state: 'unread' }, submissions: { submitted: false } });
    unread = keys((await items(room.student.api, '?filter=new_activity')).body);
    expect(unread).toEqual(expect.arrayContaining([`discussion_topic:${topic.id}`, `discussion_topic:${gradedTopic.id}`]));
    await room.student.api.put(`/api/v1/courses/${room.course.id}/discussion_topics/${topic.id}/read`);
    await room.student.api.put(`/api/v1/courses/${room.course.id}/discussion_topics/${gradedTopic.id}/read`);
    unread = keys((await items(room.student.api, '?filter=new_activity')).body);
    expect(unread).not.toContain(`discussion_topic:${topic.id}`);
    expect(unread).not.toContain(`discussion_topic:${gradedTopic.id}`);
    // A new reply by someone else is new activity again.
    await room.teacher.api.post(`/api/v1/courses/${room.course.id}/discussion_topics/${topic.id}/entries`, { message: 'ping' });
    const again = (await items(room.student.api, '?filter=new_activity')).body.find((i: any) => i.plannable_id === String(topic.id));
    expect(again).toMatchObject({ new_activity: true, plannable: { read_state: 'read', unread_count: 1 } });
  });

  it('filter=ungraded_todo_items lists pages and ungraded discussions only', async () => {
    const list = (await items(room.student.api, '?filter=ungraded_todo_items')).body;
    expect(new Set(list.map((i: any) => i.plannable_type))).toEqual(new Set(['wiki_page', 'discussion_topic', 'announcement']));
  });

  it('filter=all_ungraded_todo_items: pages and ungraded discussions of the listed courses, unpublished ones for staff, public courses without a login', async () => {
    const q = `?filter=all_ungraded_todo_items&context_codes[]=course_${room.course.id}&start_date=${day(-30)}&end_date=${day(60)}`;
    const student = keys((await items(room.student.api, q)).body);
    expect(student).toEqual(expect.arrayContaining([`wiki_page:${ids.page}`, `discussion_topic:${ids.topic}`]));
    expect(student).not.toContain(`wiki_page:${ids.draftPage}`);
    expect(student.every((k) => k.startsWith('wiki_page') || k.startsWith('discussion_topic'))).toBe(true);
    const teacher = keys((await items(room.teacher.api, q)).body);
    expect(teacher).toEqual(expect.arrayContaining([`wiki_page:${ids.draftPage}`, `discussion_topic:${ids.draftTopic}`]));
    expect((await items(room.outsider.api, q)).status).toBe(403);
    expect((await server.as(null).get(`/api/v1/planner/items${q}`)).status).toBe(401);
    await server.admin.put(`/api/v1/courses/${room.course.id}`, { course: { is_public: true } });
    try {
      const anon = await server.as(null).get(`/api/v1/planner/items${q}`);
      expect(anon.status).toBe(200);
      expect(keys(anon.body)).toEqual(student);
      expect(anon.body[0].planner_override).toBeNull();
    } finally {
      await server.admin.put(`/api/v1/courses/${room.course.id}`, { course: { is_public: false } });
    }
  });

  it('treats an unknown filter as none, as Canvas does', async () => {
    expect(keys((await items(room.student.api, '?filter=whatever')).body)).toEqual(keys((await items(room.student.api)).body));
  });
});

describe('observers', () => {
  it('read a student’s planner through the user_id path, for the courses they observe', async () => {
    const res = await room.observer.api.get(`/api/v1/users/${room.student.id}/planner/items`);
    expect(res.status).toBe(200);
    const k = keys(res.body);
    expect(k).toContain(`assignment:${ids.assignment}`);
    expect(k).toContain(`planner_note:${ids.courseNote}`);
    // Chemistry is not observed.
    expect(k).not.toContain(`assignment:${ids.chem}`);
    // The student's own override (not the observer's) is shown.
    const self = keys((await room.student.api.get(`/api/v1/users/self/planner/items`)).body);
    expect(self).toEqual(keys((await items(room.student.api)).body));
  });

  it('use observed_user_id with context_codes[] naming only observed courses', async () => {
    const res = await items(room.observer.api, `?observed_user_id=${room.student.id}&context_codes[]=course_${room.course.id}`);
    expect(res.status).toBe(200);
    const k = keys(res.body);
    expect(k).toContain(`assignment:${ids.assignment}`);
    // An observer link is course-scoped: the student's notes in that course, never those without one.
    expect(k).toContain(`planner_note:${ids.courseNote}`);
    expect(k).not.toContain(`planner_note:${ids.note}`);
    expect(k).not.toContain(`assignment:${ids.chem}`);
  });

  it('are refused without context_codes[], for an unobserved course, and for a student they do not observe', async () => {
    for (const q of [
      `?observed_user_id=${room.student.id}`,
      `?observed_user_id=${room.student.id}&context_codes[]=course_${other.id}`,
      `?observed_user_id=${room.student.id}&context_codes[]=course_${room.course.id}&context_codes[]=course_${other.id}`,
      `?observed_user_id=${room.student2.id}&context_codes[]=course_${room.course.id}`,
    ]) {
      const res = await items(room.observer.api, q);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    }
    for (const who of [room.outsider, room.student2, room.teacher]) {
      const res = await who.api.get(`/api/v1/users/${room.student.id}/planner/items`);
      expect(res.status).toBe(403);
    }
    expect((await items(room.outsider.api, `?observed_user_id=${room.student.id}&context_codes[]=course_${room.course.id}`)).status).toBe(403);
  });
});

describe('statements', () => {
  it('a page of planner items costs the same number of SQL statements for 100 or 500 items in the window', async () => {
    const student = await world.user('Busy Student');
    const teacher = room.teacher;
    const courses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const c = await world.course({ name: `Load ${i}` });
      await world.enroll(c.id, teacher.id, 'TeacherEnrollment');
      await world.enroll(c.id, student.id, 'StudentEnrollment');
      courses.push(c.id);
    }
    const repo = server.app.ds.getRepository(Assignment);
    const pages = server.app.ds.getRepository(WikiPage);
    const notes = server.app.ds.getRepository(PlannerNote);
    const events = server.app.ds.getRepository(CalendarEvent);
    const seed = async (n: number, tag: string) => {
      const rows: Partial<Assignment>[] = [];
      for (let i = 0; i < n; i++) {
        const due = new Date(Date.now() + ((i % 24) + 1) * 3_600_000 * 12);
        due.setUTCMilliseconds(0);
        rows.push({ courseId: courses[i % 10], name: `${tag} ${i}`, dueAt: due, workflowState: 'published', submissionTypes: 'online_text_entry', pointsPossible: 1, position: i + 1 });
      }
      for (let i = 0; i < rows.length; i += 100) await repo.save(rows.slice(i, i + 100).map((r) => repo.create(r)));
      // Calendar events among them: a fifth as many, in the same courses and window.
      const evs: Partial<CalendarEvent>[] = [];
      for (let i = 0; i < n / 5; i++) {
        const start = new Date(Date.now() + ((i % 24) + 1) * 3_600_000 * 12 + 60_000);
        start.setUTCMilliseconds(0);
        const code = `course_${courses[i % 10]}`;
        evs.push({ contextType: 'Course', contextId: courses[i % 10], contextCode: code, effectiveContextCode: code, title: `${tag} event ${i}`, startAt: start, endAt: start, workflowState: 'active' });
      }
      await events.save(evs.map((e) => events.create(e)));
    };
    const measure = async (path: string) => {
      const before = server.queryCount();
      const res = await student.api.get(path);
      expect(res.status).toBe(200);
      return { n: server.queryCount() - before, count: res.body.length, kinds: new Set(res.body.map((i: { plannable_type: string }) => i.plannable_type)) };
    };
    // Every kind is present from the start, so both sizes read the same collections.
    await pages.save(pages.create({ courseId: courses[0], title: 'Load page', url: 'load-page', body: null, workflowState: 'active', editingRoles: 'teachers', frontPage: false, todoDate: new Date(Date.now() + 3_600_000), userId: null }));
    await notes.save(notes.create({ userId: student.id, courseId: null, title: 'Load note', details: null, todoDate: new Date(Date.now() + 7_200_000), workflowState: 'active', linkedObjectType: null, linkedObjectId: null }));
    // …and before every seeded assignment (due from 12 hours on), so every page of 50 holds every kind.
    const inHours = (h: number) => new Date(Date.now() + h * 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    await new Content(teacher.api, courses[1]).topic('Load topic', inHours(3));
    await new Content(teacher.api, courses[2]).quiz('Load practice', inHours(4), { quizType: 'practice_quiz' });
    await new Content(teacher.api, courses[3]).quiz('Load graded', inHours(5));
    const event = await teacher.api.post('/api/v1/calendar_events', { calendar_event: { context_code: `course_${courses[4]}`, title: 'Load event', start_at: inHours(6) } });
    expect(event.status).toBe(201);
    await seed(100, 'small');
    // The token's first use of the day is recorded once; measure after it.
    await student.api.get('/api/v1/users/self');
    const small = await measure('/api/v1/planner/items');
    const smallNext = await measure('/api/v1/planner/items?per_page=100');
    await seed(400, 'big');
    const big = await measure('/api/v1/planner/items');
    const bigNext = await measure('/api/v1/planner/items?per_page=100');
    expect(small.kinds).toContain('calendar_event');
    expect(small.count).toBe(50);
    expect(big.count).toBe(50);
    expect(bigNext.count).toBe(100);
    expect(big.n).toBe(small.n);
    expect(bigNext.n).toBe(smallNext.n);
  });
});
