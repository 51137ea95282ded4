import { at, Content } from './planner.support';
import { startWorld } from './support/world';
import type { TestServer } from './support/server';
import type { World, WorldUser } from './support/world';

/**
 * To-do and upcoming (issue 22 item 6): users/self/todo, courses/:id/todo, todo_item_count,
 * upcoming_events and users/:id/missing_submissions, through REST and GraphQL, built on the planner's
 * reads so they say what planner items say.
 */
let server: TestServer;
let world: World;
let room: Awaited<ReturnType<World['classroom']>>;
let other: { id: number };
const a: Record<string, number> = {};
let practiceQuiz: number;

const ok = <T extends { status: number; text: string }>(res: T) => {
  if (res.status >= 300) throw new Error(`${res.status} ${res.text}`);
  return res;
};

beforeAll(async () => {
  ({ server, world } = await startWorld());
  room = await world.classroom();
  other = await world.course({ name: 'Other course' });
  await world.enroll(other.id, room.student.id, 'StudentEnrollment');
  await world.enroll(other.id, room.teacher.id, 'TeacherEnrollment');
  // A course not yet published: its student may not read it, and the lists leave it out rather than fail.
  const draftCourse = await world.course({ name: 'Draft course', published: false });
  await world.enroll(draftCourse.id, room.student.id, 'StudentEnrollment');
  const c = new Content(room.teacher.api, room.course.id);
  a.essay = (await c.assignment('Essay', at(1))).id;
  a.lab = (await c.assignment('Overdue lab', at(-3))).id;
  a.paper = (await c.assignment('On paper', at(2), { types: ['on_paper'] })).id;
  a.far = (await c.assignment('Far away', at(20))).id;
  a.old = (await c.assignment('Old work', at(-40))).id;
  a.done = (await c.assignment('Handed in', at(3))).id;
  a.marked = (await c.assignment('Marked done', at(4))).id;
  a.draft = (await c.assignment('Draft', at(1), { published: false })).id;
  a.locked = ok(
    await room.teacher.api.post(`/api/v1/courses/${room.course.id}/assignments`, {
      assignment: { name: 'Locked', due_at: at(-2), lock_at: at(-1), published: true, points_possible: 5, submission_types: ['online_text_entry'] },
    }),
  ).body.id;
  practiceQuiz = (await c.quiz('Practice', at(2), { quizType: 'practice_quiz' })).id;
  a.elsewhere = (await new Content(room.teacher.api, other.id).assignment('Elsewhere', at(2))).id;
  ok(await room.student.api.post(`/api/v1/courses/${room.course.id}/assignments/${a.done}/submissions`, { submission: { submission_type: 'online_text_entry', body: 'here' } }));
  ok(await room.student2.api.post(`/api/v1/courses/${room.course.id}/assignments/${a.essay}/submissions`, { submission: { submission_type: 'online_text_entry', body: 'early' } }));
  ok(await room.student.api.post('/api/v1/planner/overrides', { plannable_type: 'assignment', plannable_id: a.marked, marked_complete: true }));
});
afterAll(() => server.close());

const assignmentIds = (body: any[]) => body.map((t) => t.assignment?.id ?? null);
const todo = (u: WorldUser, q = '') => u.api.get(`/api/v1/users/self/todo${q}`);

describe('GET /api/v1/users/self/todo', () => {
  it("lists a student's work to turn in, by due date, in Canvas's todo item shape", async () => {
    const res = await todo(room.student);
    expect(res.status).toBe(200);
    expect(assignmentIds(res.body)).toEqual([a.lab, a.locked, a.essay, a.elsewhere]);
    const essay = res.body[2];
    expect(essay).toEqual({
      type: 'submitting',
      ignore: `${server.url}/api/v1/users/self/todo/assignment_${a.essay}/submitting?permanent=0`,
      ignore_permanently: `${server.url}/api/v1/users/self/todo/assignment_${a.essay}/submitting?permanent=1`,
      context_type: 'Course',
      course_id: room.course.id,
      assignment: expect.objectContaining({ id: a.essay, name: 'Essay', course_id: room.course.id, submission_types: ['online_text_entry'] }),
      html_url: `${server.url}/courses/${room.course.id}/assignments/${a.essay}#submit`,
    });
  });

  it('adds ungraded quizzes with include[]=ungraded_quizzes', async () => {
    const res = await todo(room.student, '?include[]=ungraded_quizzes');
    const quiz = res.body.find((t: any) => t.quiz);
    expect(quiz).toMatchObject({ type: 'submitting', quiz: expect.objectContaining({ id: practiceQuiz, title: 'Practice' }), html_url: `${server.url}/courses/${room.course.id}/quizzes/${practiceQuiz}` });
    expect(res.body).toHaveLength(5);
  });

  it("agrees with the student's incomplete planner items in the to-do window", async () => {
    const planner = ok(await room.student.api.get(`/api/v1/planner/items?filter=incomplete_items&start_date=${encodeURIComponent(at(-28, 0))}&end_date=${encodeURIComponent(at(7, 0))}&per_page=100`)).body;
    const expected = planner
      .filter((i: any) => i.plannable_type === 'assignment' && i.plannable_id !== String(a.paper) && Number(i.plannable_id) !== a.paper)
      .map((i: any) => Number(i.plannable_id));
    expect(assignmentIds((await todo(room.student)).body)).toEqual(expected);
    // What the planner marks complete or sees handed in is gone from both.
    expect(expected).not.toContain(a.marked);
    expect(expected).not.toContain(a.done);
  });

  it('lists grading for a teacher with needs_grading_count and the SpeedGrader link', async () => {
    const res = await todo(room.teacher);
    expect(res.status).toBe(200);
    expect(res.body.map((t: any) => [t.type, t.assignment.id, t.needs_grading_count])).toEqual([
      ['grading', a.essay, 1],
      ['grading', a.done, 1],
    ]);
    expect(res.body[0].html_url).toBe(`${server.url}/courses/${room.course.id}/gradebook/speed_grader?assignment_id=${a.essay}`);
  });

  it('pages with Link headers and refuses anonymous callers and bad includes', async () => {
    const first = await todo(room.student, '?per_page=2');
    expect(assignmentIds(first.body)).toEqual([a.lab, a.locked]);
    expect(first.headers.get('link')).toContain('rel="next"');
    expect((await server.as(null).get('/api/v1/users/self/todo')).status).toBe(401);
    expect((await todo(room.student, '?include[]=everything')).status).toBe(400);
  });
});

describe('GET /api/v1/courses/:course_id/todo', () => {
  it("lists one course's entries and refuses a course the caller cannot read", async () => {
    expect(assignmentIds((await room.student.api.get(`/api/v1/courses/${other.id}/todo`)).body)).toEqual([a.elsewhere]);
    expect(assignmentIds((await room.student.api.get(`/api/v1/courses/${room.course.id}/todo`)).body)).toEqual([a.lab, a.locked, a.essay]);
    expect((await room.teacher.api.get(`/api/v1/courses/${other.id}/todo`)).body).toEqual([]);
    const outsider = await room.outsider.api.get(`/api/v1/courses/${room.course.id}/todo`);
    expect(outsider.status).toBe(403);
    expect(JSON.stringify(outsider.body)).not.toContain('Essay');
    expect((await room.student.api.get('/api/v1/courses/987654321/todo')).status).toBe(404);
  });
});

describe('GET /api/v1/users/self/todo_item_count', () => {
  it('counts work to grade and to turn in', async () => {
    expect((await room.student.api.get('/api/v1/users/self/todo_item_count')).body).toEqual({ needs_grading_count: 0, assignments_needing_submitting: 4 });
    expect((await room.student.api.get('/api/v1/users/self/todo_item_count?include[]=ungraded_quizzes')).body).toEqual({ needs_grading_count: 0, assignments_needing_submitting: 5 });
    expect((await room.teacher.api.get('/api/v1/users/self/todo_item_count')).body).toEqual({ needs_grading_count: 2, assignments_needing_submitting: 0 });
  });
});

describe('GET /api/v1/users/self/upcoming_events', () => {
  it('lists published assignments due within a week as assignment events', async () => {
    const res = await room.student.api.get('/api/v1/users/self/upcoming_events');
    expect(res.status).toBe(200);
    expect(res.body.map((e: any) => e.id)).toEqual([a.essay, a.elsewhere, a.paper, a.done, a.marked].map((id) => `assignment_${id}`));
    expect(res.body[0]).toMatchObject({
      type: 'assignment',
      title: 'Essay',
      start_at: at(1),
      end_at: at(1),
      context_code: `course_${room.course.id}`,
      context_name: 'Biology 101',
      html_url: `${server.url}/courses/${room.course.id}/assignments/${a.essay}`,
      url: `${server.url}/api/v1/calendar_events/assignment_${a.essay}`,
      assignment: expect.objectContaining({ id: a.essay }),
    });
    // Same due time: by title, as Canvas sorts.
    // A teacher's courses count too (Canvas's list covers every course of the user).
    expect((await room.teacher.api.get('/api/v1/users/self/upcoming_events')).body.map((e: any) => e.id)).toEqual(res.body.map((e: any) => e.id));
    expect((await room.outsider.api.get('/api/v1/users/self/upcoming_events')).body).toEqual([]);
  });
});

describe('GET /api/v1/users/:user_id/missing_submissions', () => {
  const missing = (u: WorldUser, who: string | number, q = '') => u.api.get(`/api/v1/users/${who}/missing_submissions${q}`);

  it("lists a student's past-due work with nothing turned in, oldest first", async () => {
    const res = await missing(room.student, 'self');
    expect(res.status).toBe(200);
    expect(res.body.map((x: any) => x.id)).toEqual([a.old, a.lab, a.locked]);
    expect(res.body[0]).toMatchObject({ id: a.old, name: 'Old work', course_id: room.course.id });
    expect(res.body[0]).not.toHaveProperty('course');
    expect(res.body[0]).not.toHaveProperty('planner_override');
  });

  it('applies filter[], course_ids[] and include[]', async () => {
    expect((await missing(room.student, 'self', '?filter[]=submittable')).body.map((x: any) => x.id)).toEqual([a.old, a.lab]);
    expect((await missing(room.student, 'self', '?filter[]=current_grading_period')).body).toHaveLength(3);
    expect((await missing(room.student, 'self', `?course_ids[]=${other.id}`)).body).toEqual([]);
    const withAll = await missing(room.student, 'self', '?include[]=course&include[]=planner_overrides');
    expect(withAll.body[0]).toMatchObject({ course: expect.objectContaining({ id: room.course.id, name: 'Biology 101' }), planner_override: null });
    expect((await missing(room.student, 'self', '?filter[]=bogus')).status).toBe(400);
    expect((await missing(room.student, 'self', '?include[]=bogus')).status).toBe(400);
  });

  it("lets a linked observer read the student's list and refuses everyone else", async () => {
    const watched = await missing(room.observer, room.student.id);
    expect(watched.status).toBe(200);
    expect(watched.body.map((x: any) => x.id)).toEqual([a.old, a.lab, a.locked]);
    for (const caller of [room.outsider, room.student2, room.teacher]) {
      const res = await missing(caller, room.student.id);
      expect(res.status).toBe(403);
      expect(JSON.stringify(res.body)).not.toContain('Old work');
    }
  });
});

describe('GraphQL', () => {
  it('answers what REST answers', async () => {
    const r = await room.student.api.graphql(`{
      todoItems(first: 50) { totalCount nodes { type courseId assignment { _id name } } }
      todoItemCount(includeUngradedQuizzes: true) { needsGradingCount assignmentsNeedingSubmitting }
      upcomingEvents { id type title assignment { _id } }
      missingSubmissions(filter: ["submittable"]) { totalCount nodes { assignment { _id } plannerOverride { _id } course { name } } } }`);
    expect(r.errors).toBeUndefined();
    expect(r.data.todoItems.nodes.map((n: any) => Number(n.assignment._id))).toEqual([a.lab, a.locked, a.essay, a.elsewhere]);
    expect(r.data.todoItemCount).toEqual({ needsGradingCount: 0, assignmentsNeedingSubmitting: 5 });
    expect(r.data.upcomingEvents[0]).toEqual({ id: `assignment_${a.essay}`, type: 'assignment', title: 'Essay', assignment: { _id: String(a.essay) } });
    expect(r.data.missingSubmissions.nodes.map((n: any) => Number(n.assignment._id))).toEqual([a.old, a.lab]);
    const teacher = await room.teacher.api.graphql(`query($c: ID!) { todoItems(courseId: $c) { nodes { type needsGradingCount assignment { _id } } } }`, { c: String(room.course.id) });
    expect(teacher.data.todoItems.nodes).toEqual([
      { type: 'grading', needsGradingCount: 1, assignment: { _id: String(a.essay) } },
      { type: 'grading', needsGradingCount: 1, assignment: { _id: String(a.done) } },
    ]);
    const refused = await room.outsider.api.graphql(`query($u: ID!) { missingSubmissions(userId: $u) { nodes { assignment { name } } } }`, { u: String(room.student.id) });
    expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});
