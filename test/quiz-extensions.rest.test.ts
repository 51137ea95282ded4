import { QuizSubmission } from '../src/content/quizzes/quiz-submission.entity';
import { Quiz } from '../src/content/quizzes/quiz.entity';
import { Enrollment } from '../src/courses/enrollment.entity';
import { NOT_ALLOWED } from '../src/quiz-extensions/quiz-extension.service';
import { formEncode } from './support/api';
import { contentRoom, ContentRoom, count, NOT_FOUND, UNAUTHENTICATED } from './support/content';
import { startTestServer, TestServer } from './support/server';
import { World, WorldUser } from './support/world';

let server: TestServer;
let world: World;
let room: ContentRoom;

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
  room = await contentRoom(world);
});
afterAll(() => server.close());

/** Canvas's refusal body of this endpoint (its controller's RequestError, not the generic one). */
const REFUSED = { status: 'forbidden', message: NOT_ALLOWED };
const MIN = 60_000;

interface Course {
  id: number;
}

/** A fresh course with the room's people in it, so each test's quizzes are the course's only ones. */
async function course(): Promise<Course> {
  const c = await world.course({ name: 'Extensions' });
  await world.enroll(c.id, room.teacher.id, 'TeacherEnrollment');
  await world.enroll(c.id, room.ta.id, 'TaEnrollment');
  await world.enroll(c.id, room.designer.id, 'DesignerEnrollment');
  await world.enroll(c.id, room.student.id, 'StudentEnrollment');
  await world.enroll(c.id, room.student2.id, 'StudentEnrollment');
  await world.enroll(c.id, room.observer.id, 'ObserverEnrollment', { associatedUserId: room.student.id });
  return c;
}

const extensionsPath = (c: Course) => `/api/v1/courses/${c.id}/quiz_extensions`;
const quizzesPath = (c: Course) => `/api/v1/courses/${c.id}/quizzes`;
const qsubs = (c: Course, quizId: number) => `${quizzesPath(c)}/${quizId}/submissions`;

async function quiz(c: Course, fields: Record<string, unknown> = {}) {
  const res = await room.teacher.api.post(quizzesPath(c), { quiz: { title: 'Quiz', published: true, points_possible: 10, ...fields } });
  expect(res.status).toBe(200);
  return res.body as { id: number };
}

const extend = (c: Course, list: unknown, who: WorldUser | null = room.teacher) =>
  (who ? who.api : server.as(null)).post(extensionsPath(c), { quiz_extensions: list }, { json: true });

const start = (c: Course, q: { id: number }, who: WorldUser = room.student) => who.api.post(qsubs(c, q.id), {});

async function complete(c: Course, q: { id: number }, qs: { id: number; attempt: number; validation_token: string }, who: WorldUser = room.student) {
  return who.api.post(`${qsubs(c, q.id)}/${qs.id}/complete`, { attempt: qs.attempt, validation_token: qs.validation_token });
}

async function startAndComplete(c: Course, q: { id: number }, who: WorldUser = room.student) {
  const started = await start(c, q, who);
  expect(started.status).toBe(200);
  const done = await complete(c, q, started.body.quiz_submissions[0], who);
  expect(done.status).toBe(200);
  return done.body.quiz_submissions[0];
}

/** Every quiz submission's extension-related columns: proof that a refused request changed nothing. */
async function snapshot(): Promise<string> {
  const rows = await server.app.ds.getRepository(QuizSubmission).find({ order: { id: 'ASC' } });
  return JSON.stringify(rows.map((r) => [r.id, r.quizId, r.userId, r.workflowState, r.attempt, r.extraAttempts, r.extraTime, r.manuallyUnlocked, r.endAt?.toISOString() ?? null]));
}

const row = (quizId: number, userId: number) => server.app.ds.getRepository(QuizSubmission).findOneByOrFail({ quizId, userId });

describe('POST /api/v1/courses/:course_id/quiz_extensions: who may', () => {
  let c: Course;
  let q1: { id: number };
  let q2: { id: number };
  beforeAll(async () => {
    c = await course();
    q1 = await quiz(c, { title: 'One' });
    q2 = await quiz(c, { title: 'Two (unpublished)', published: false });
    const gone = await quiz(c, { title: 'Deleted' });
    expect((await room.teacher.api.delete(`${quizzesPath(c)}/${gone.id}`)).status).toBe(200);
  });

  it("lets a teacher set a student's extension on every live quiz of the course (200, Canvas's QuizExtension JSON)", async () => {
    const res = await extend(c, [{ user_id: room.student.id, extra_attempts: 2, extra_time: 10, manually_unlocked: true }]);
    expect(res.status).toBe(200);
    const ext = { user_id: room.student.id, extra_attempts: 2, extra_time: 10, manually_unlocked: true, end_at: null };
    // One element per (quiz, student) pair, by quiz; the deleted quiz is skipped, the unpublished one is not.
    expect(res.body).toEqual({ quiz_extensions: [{ quiz_id: q1.id, ...ext }, { quiz_id: q2.id, ...ext }] });
    // Settings-only submissions carry the settings until the student starts.
    expect(await row(q1.id, room.student.id)).toMatchObject({ workflowState: 'settings_only', attempt: 0, extraAttempts: 2, extraTime: 10, manuallyUnlocked: true });
    expect(await count(server, 'quiz_submissions', 'user_id = ? AND quiz_id IN (?, ?)', [room.student.id, q1.id, q2.id])).toBe(2);
  });

  it('lets TAs (manage_grades) and admins extend too', async () => {
    const ta = await extend(c, [{ user_id: room.student2.id, extra_attempts: 1 }], room.ta);
    expect(ta.status).toBe(200);
    expect(ta.body.quiz_extensions.map((e: any) => [e.quiz_id, e.extra_attempts])).toEqual([
      [q1.id, 1],
      [q2.id, 1],
    ]);
    const admin = await server.admin.post(extensionsPath(c), { quiz_extensions: [{ user_id: room.student2.id, extra_time: 5 }] }, { json: true });
    expect(admin.status).toBe(200);
    // Settings not given stay as they were.
    expect(admin.body.quiz_extensions[0]).toMatchObject({ extra_attempts: 1, extra_time: 5, manually_unlocked: false });
  });

  it("refuses designers, students, observers and outsiders (403, the endpoint's body) and anonymous callers (401), changing nothing", async () => {
    const before = await snapshot();
    for (const who of [room.designer, room.student, room.observer, room.outsider]) {
      const res = await extend(c, [{ user_id: room.student.id, extra_attempts: 9 }], who);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(REFUSED);
    }
    const anon = await extend(c, [{ user_id: room.student.id, extra_attempts: 9 }], null);
    expect(anon.status).toBe(401);
    expect(anon.body).toEqual(UNAUTHENTICATED);
    expect(anon.headers.get('www-authenticate')).toBe('Bearer realm="canvas-lms"');
    expect(await snapshot()).toBe(before);
  });

  it('answers 404 for a course that does not exist', async () => {
    const res = await room.teacher.api.post('/api/v1/courses/99999999/quiz_extensions', { quiz_extensions: [{ user_id: room.student.id }] }, { json: true });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
  });

  it('answers an empty list for a course without quizzes', async () => {
    const empty = await course();
    const res = await extend(empty, [{ user_id: room.student.id, extra_attempts: 1 }]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ quiz_extensions: [] });
  });
});

describe('POST …/quiz_extensions: bad input is refused whole', () => {
  let c: Course;
  beforeAll(async () => {
    c = await course();
    await quiz(c, { title: 'Bad input', time_limit: 30 });
  });

  const cases: [string, Record<string, unknown>, string, string][] = [
    ['negative extra_attempts', { extra_attempts: -1 }, 'extra_attempts', 'greater_than_or_equal_to'],
    ['extra_attempts over 1000', { extra_attempts: 1001 }, 'extra_attempts', 'less_than_or_equal_to'],
    ['negative extra_time', { extra_time: -5 }, 'extra_time', 'greater_than_or_equal_to'],
    ['extra_time over a week', { extra_time: 10081 }, 'extra_time', 'less_than_or_equal_to'],
    ['negative extend_from_now', { extend_from_now: -1 }, 'extend_from_now', 'greater_than_or_equal_to'],
    ['extend_from_now over a day', { extend_from_now: 1441 }, 'extend_from_now', 'less_than_or_equal_to'],
    ['negative extend_from_end_at', { extend_from_end_at: '-10' }, 'extend_from_end_at', 'greater_than_or_equal_to'],
    ['extend_from_end_at over a day', { extend_from_end_at: 1441 }, 'extend_from_end_at', 'less_than_or_equal_to'],
    ['a number beyond any integer column', { extra_time: 1e12 }, 'extra_time', 'less_than_or_equal_to'],
    ['both extend modes', { extend_from_now: 10, extend_from_end_at: 10 }, 'extend_from_end_at', 'exclusion'],
    ['a word for extra_attempts', { extra_attempts: 'two' }, 'extra_attempts', 'not_an_integer'],
    ['a fraction for extra_time', { extra_time: 1.5 }, 'extra_time', 'not_an_integer'],
    ['a boolean for extend_from_now', { extend_from_now: true }, 'extend_from_now', 'not_an_integer'],
    ['a word for manually_unlocked', { manually_unlocked: 'maybe' }, 'manually_unlocked', 'invalid'],
    ['a non-numeric user_id', { user_id: 'abc' }, 'user_id', 'invalid'],
    ['no user_id', { user_id: undefined, extra_attempts: 1 }, 'user_id', 'blank'],
  ];

  it.each(cases)('answers 400 naming the field for %s, applying nothing (not even the valid entry)', async (_label, fields, field, type) => {
    const before = await snapshot();
    // A valid first entry: the request is atomic, so it must not be applied either.
    const res = await extend(c, [{ user_id: room.student.id, extra_attempts: 3 }, { user_id: room.student2.id, ...fields }]);
    expect(res.status).toBe(400);
    const attr = `quiz_extensions[1][${field}]`;
    expect(Object.keys(res.body.errors)).toEqual([attr]);
    expect(res.body.errors[attr][0]).toMatchObject({ attribute: attr, type, message: expect.stringContaining(attr) });
    expect(await snapshot()).toBe(before);
  });

  it('refuses an object where user_id belongs by its declared shape (400 naming the field), applying nothing', async () => {
    const before = await snapshot();
    const res = await extend(c, [{ user_id: room.student.id, extra_attempts: 3 }, { user_id: { id: 1 } }]);
    expect(res.status).toBe(400);
    expect(res.body.errors['quiz_extensions[][user_id]'][0]).toMatchObject({ attribute: 'quiz_extensions[][user_id]', type: 'invalid' });
    expect(await snapshot()).toBe(before);
  });

  it('reports every problem of every entry at once', async () => {
    const res = await extend(c, [
      { user_id: room.student.id, extra_attempts: -1, extra_time: 99999 },
      { user_id: room.student2.id, extend_from_now: 2000 },
    ]);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['quiz_extensions[0][extra_attempts]', 'quiz_extensions[0][extra_time]', 'quiz_extensions[1][extend_from_now]']);
  });

  it("answers Canvas's 400 when quiz_extensions is missing or not a list", async () => {
    const before = await snapshot();
    for (const body of [{}, { quiz_extensions: 'x' }, { quiz_extensions: { user_id: room.student.id } }]) {
      const res = await room.teacher.api.post(extensionsPath(c), body, { json: true });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ status: 'bad_request', message: 'missing required key :quiz_extensions' });
    }
    const notObject = await extend(c, [5]);
    expect(notObject.status).toBe(400);
    expect(notObject.body.errors['quiz_extensions[0]'][0].type).toBe('invalid');
    expect(await snapshot()).toBe(before);
  });

  it('refuses more than 1000 entries', async () => {
    const res = await extend(c, Array.from({ length: 1001 }, () => ({ user_id: room.student.id })));
    expect(res.status).toBe(400);
    expect(res.body.errors.quiz_extensions[0].type).toBe('too_long');
  });

  it('refuses users who are not students of the course (404, as Canvas) and applies nothing', async () => {
    const before = await snapshot();
    for (const userId of [room.outsider.id, room.teacher.id, room.observer.id, 99999999]) {
      const res = await extend(c, [{ user_id: room.student.id, extra_attempts: 3 }, { user_id: userId, extra_attempts: 1 }]);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    }
    expect(await snapshot()).toBe(before);
  });

  it('refuses a student whose enrollment was deleted', async () => {
    const gone = await world.user('Gone Student');
    const e = await world.enroll(c.id, gone.id, 'StudentEnrollment');
    expect((await extend(c, [{ user_id: gone.id, extra_attempts: 1 }])).status).toBe(200);
    await server.app.ds.getRepository(Enrollment).update({ id: e.id }, { workflowState: 'deleted' });
    expect((await extend(c, [{ user_id: gone.id, extra_attempts: 2 }])).status).toBe(404);
  });
});

describe('POST …/quiz_extensions: request encodings', () => {
  let c: Course;
  let q: { id: number };
  beforeAll(async () => {
    c = await course();
    q = await quiz(c, { title: 'Encodings' });
  });

  it("takes Canvas's Rails form of an array of objects (a repeated key starts the next object)", async () => {
    const body = formEncode([
      ['quiz_extensions[][user_id]', String(room.student.id)],
      ['quiz_extensions[][extra_attempts]', '2'],
      ['quiz_extensions[][manually_unlocked]', 'true'],
      ['quiz_extensions[][user_id]', String(room.student2.id)],
      ['quiz_extensions[][extra_time]', '15'],
      ['quiz_extensions[][manually_unlocked]', '0'],
    ]);
    const res = await room.teacher.api.post(extensionsPath(c), body);
    expect(res.status).toBe(200);
    expect(res.body.quiz_extensions).toEqual([
      { quiz_id: q.id, user_id: room.student.id, extra_attempts: 2, extra_time: null, manually_unlocked: true, end_at: null },
      { quiz_id: q.id, user_id: room.student2.id, extra_attempts: null, extra_time: 15, manually_unlocked: false, end_at: null },
    ]);
  });

  it('takes an indexed form, string numbers in JSON, and leaves empty form values unchanged', async () => {
    const indexed = await room.teacher.api.post(extensionsPath(c), {
      quiz_extensions: { '0': { user_id: room.student.id, extra_time: '20', extra_attempts: '' } },
    });
    expect(indexed.status).toBe(200);
    expect(indexed.body.quiz_extensions).toEqual([{ quiz_id: q.id, user_id: room.student.id, extra_attempts: 2, extra_time: 20, manually_unlocked: true, end_at: null }]);
    const json = await extend(c, [{ user_id: String(room.student.id), extra_attempts: '0', manually_unlocked: false }]);
    expect(json.body.quiz_extensions[0]).toMatchObject({ extra_attempts: 0, extra_time: 20, manually_unlocked: false });
  });

  it('answers an empty list for an empty list', async () => {
    const res = await extend(c, []);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ quiz_extensions: [] });
  });

  it('applies repeated entries for one student in order', async () => {
    const res = await extend(c, [
      { user_id: room.student2.id, extra_attempts: 1 },
      { user_id: room.student2.id, extra_attempts: 4 },
    ]);
    expect(res.status).toBe(200);
    expect((await row(q.id, room.student2.id)).extraAttempts).toBe(4);
  });
});

describe('the effect on quiz submissions', () => {
  let c: Course;
  beforeAll(async () => {
    c = await course();
  });

  it('lets a student with extra attempts start another attempt, and no more', async () => {
    const q = await quiz(c, { title: 'Retake' });
    const first = await startAndComplete(c, q);
    expect((await start(c, q)).status).toBe(409);
    expect((await extend(c, [{ user_id: room.student.id, extra_attempts: 1 }])).status).toBe(200);
    const second = await startAndComplete(c, q);
    expect(second).toMatchObject({ id: first.id, attempt: 2, extra_attempts: 1, workflow_state: 'complete' });
    expect((await start(c, q)).status).toBe(409);
    // The other student is untouched.
    await startAndComplete(c, q, room.student2);
    expect((await start(c, q, room.student2)).status).toBe(409);
  });

  it('lengthens the end_at of attempts started afterwards by the extra time', async () => {
    const q = await quiz(c, { title: 'Extra time', time_limit: 20 });
    const res = await extend(c, [{ user_id: room.student.id, extra_time: 15 }]);
    const settings = await row(q.id, room.student.id);
    expect(res.body.quiz_extensions.find((e: any) => e.quiz_id === q.id)).toMatchObject({ extra_time: 15, end_at: null });
    const qs = (await start(c, q)).body.quiz_submissions[0];
    expect(qs).toMatchObject({ id: settings.id, attempt: 1, extra_time: 15 });
    expect(Date.parse(qs.end_at) - Date.parse(qs.started_at)).toBe(35 * MIN);
    const other = (await start(c, q, room.student2)).body.quiz_submissions[0];
    expect(Date.parse(other.end_at) - Date.parse(other.started_at)).toBe(20 * MIN);
  });

  it('lets a manually unlocked student take a locked quiz', async () => {
    const q = await quiz(c, { title: 'Not yet', unlock_at: '2040-01-01T00:00:00Z' });
    expect((await start(c, q)).body).toEqual({ status: 'bad_request', message: 'quiz is locked' });
    expect((await extend(c, [{ user_id: room.student.id, manually_unlocked: true }])).status).toBe(200);
    expect((await room.student.api.get(`${quizzesPath(c)}/${q.id}`)).body.locked_for_user).toBe(false);
    expect((await start(c, q)).status).toBe(200);
    expect((await start(c, q, room.student2)).status).toBe(400);
  });

  it('extends the end of an attempt in progress from now, and the attempt can then be turned in though the quiz has locked', async () => {
    const q = await quiz(c, { title: 'Overdue', time_limit: 30 });
    const qs = (await start(c, q)).body.quiz_submissions[0];
    // Time passes: the attempt ran out five minutes ago and the quiz has locked since.
    const past = new Date(Date.now() - 5 * MIN);
    past.setMilliseconds(0);
    await server.app.ds.getRepository(QuizSubmission).update({ id: qs.id }, { endAt: past });
    await server.app.ds.getRepository(Quiz).update({ id: q.id }, { lockAt: new Date(Date.now() - MIN) });
    const shown = (await room.student.api.get(`${qsubs(c, q.id)}/${qs.id}`)).body.quiz_submissions[0];
    expect(shown.overdue_and_needs_submission).toBe(true);
    expect((await complete(c, q, qs)).body).toEqual({ status: 'bad_request', message: 'quiz is locked' });

    const others = await server.app.ds.getRepository(QuizSubmission).findBy({ userId: room.student.id });
    const res = await extend(c, [{ user_id: room.student.id, extend_from_now: 20 }]);
    expect(res.status).toBe(200);
    const mine = res.body.quiz_extensions.find((e: any) => e.quiz_id === q.id);
    expect(Math.abs(Date.parse(mine.end_at) - (Date.now() + 20 * MIN))).toBeLessThan(10_000);
    // The course's other quizzes, where the student has no timed attempt in progress, keep their end.
    const inCourse = new Set(res.body.quiz_extensions.map((e: any) => e.quiz_id));
    const settled = others.filter((r) => inCourse.has(r.quizId) && r.workflowState !== 'untaken');
    expect(settled.length).toBeGreaterThan(0);
    for (const r of settled) {
      expect(res.body.quiz_extensions.find((e: any) => e.quiz_id === r.quizId).end_at).toBe(r.endAt ? r.endAt.toISOString().replace('.000', '') : null);
    }

    const after = (await room.student.api.get(`${qsubs(c, q.id)}/${qs.id}`)).body.quiz_submissions[0];
    expect(after).toMatchObject({ end_at: mine.end_at, overdue_and_needs_submission: false, workflow_state: 'untaken' });
    const done = await complete(c, q, qs);
    expect(done.status).toBe(200);
    expect(done.body.quiz_submissions[0]).toMatchObject({ workflow_state: 'complete', end_at: mine.end_at });
    // Another student's attempt, unextended, stays locked out.
    expect((await start(c, q, room.student2)).body).toEqual({ status: 'bad_request', message: 'quiz is locked' });
  });

  it("extends from the attempt's end, and leaves attempts that cannot be extended alone (as Canvas)", async () => {
    const timed = await quiz(c, { title: 'From end', time_limit: 30 });
    const untimed = await quiz(c, { title: 'Untimed' });
    const stale = await quiz(c, { title: 'Long gone', time_limit: 10 });
    const finished = await quiz(c, { title: 'Finished', time_limit: 10 });
    const inProgress = (await start(c, timed, room.student2)).body.quiz_submissions[0];
    const open = (await start(c, untimed, room.student2)).body.quiz_submissions[0];
    const old = (await start(c, stale, room.student2)).body.quiz_submissions[0];
    const longAgo = new Date(Date.now() - 2 * 60 * MIN);
    longAgo.setMilliseconds(0);
    await server.app.ds.getRepository(QuizSubmission).update({ id: old.id }, { endAt: longAgo });
    const turnedIn = await startAndComplete(c, finished, room.student2);

    // Extra time given with it changes attempts to come, not the one in progress.
    const res = await extend(c, [{ user_id: room.student2.id, extend_from_end_at: 10, extra_time: 5 }]);
    expect(res.status).toBe(200);
    const by = (id: number) => res.body.quiz_extensions.find((e: any) => e.quiz_id === id);
    expect(Date.parse(by(timed.id).end_at)).toBe(Date.parse(inProgress.end_at) + 10 * MIN);
    expect(by(untimed.id).end_at).toBeNull();
    expect(open.end_at).toBeNull();
    expect(by(stale.id).end_at).toBe(longAgo.toISOString().replace('.000', ''));
    expect(by(finished.id).end_at).toBe(turnedIn.end_at);
    expect(by(timed.id).extra_time).toBe(5);
  });
});

describe('GraphQL', () => {
  let c: Course;
  let q: { id: number };
  beforeAll(async () => {
    c = await course();
    q = await quiz(c, { title: 'GQL', time_limit: 15 });
  });

  const MUTATION = `mutation($input: SetCourseQuizExtensionsInput!) { setCourseQuizExtensions(input: $input) {
    quizExtensions { quizId userId quizSubmissionId extraAttempts extraTime manuallyUnlocked endAt user { name } } errors { attribute type message } } }`;
  const EXTENSIONS = `query($id: ID!) { quiz(id: $id) { extensions { userId extraAttempts extraTime manuallyUnlocked endAt } } }`;

  it('sets extensions through setCourseQuizExtensions (global ids accepted) and lists them on Quiz.extensions', async () => {
    const globalUser = Buffer.from(`User-${room.student.id}`).toString('base64');
    const globalCourse = Buffer.from(`Course-${c.id}`).toString('base64');
    const res = await room.teacher.api.graphql(MUTATION, { input: { courseId: globalCourse, quizExtensions: [{ userId: globalUser, extraAttempts: 1, manuallyUnlocked: true }] } });
    expect(res.errors).toBeUndefined();
    const settings = await row(q.id, room.student.id);
    expect(res.data.setCourseQuizExtensions).toEqual({
      quizExtensions: [{ quizId: String(q.id), userId: String(room.student.id), quizSubmissionId: String(settings.id), extraAttempts: 1, extraTime: null, manuallyUnlocked: true, endAt: null, user: { name: room.student.name } }],
      errors: null,
    });

    // student2 has an attempt in progress whose end is then extended: listed for that alone.
    const qs2 = (await start(c, q, room.student2)).body.quiz_submissions[0];
    expect((await room.teacher.api.graphql(EXTENSIONS, { id: String(q.id) })).data.quiz.extensions).toEqual([
      { userId: String(room.student.id), extraAttempts: 1, extraTime: null, manuallyUnlocked: true, endAt: null },
    ]);
    await room.ta.api.graphql(MUTATION, { input: { courseId: String(c.id), quizExtensions: [{ userId: String(room.student2.id), extendFromEndAt: 5 }] } });
    const listed = await room.teacher.api.graphql(EXTENSIONS, { id: String(q.id) });
    const expected = [
      { userId: String(room.student.id), extraAttempts: 1, extraTime: null, manuallyUnlocked: true, endAt: null },
      { userId: String(room.student2.id), extraAttempts: null, extraTime: null, manuallyUnlocked: false, endAt: new Date(Date.parse(qs2.end_at) + 5 * MIN).toISOString().replace('.000', '') },
    ].sort((a, b) => Number(a.userId) - Number(b.userId));
    expect(listed.data.quiz.extensions).toEqual(expected);
  });

  it('reports bad input in the payload and stores nothing', async () => {
    const before = await snapshot();
    const res = await room.teacher.api.graphql(MUTATION, {
      input: { courseId: String(c.id), quizExtensions: [{ userId: String(room.student.id), extraTime: 20000, extendFromNow: 5, extendFromEndAt: 5 }, { extraAttempts: 1 }] },
    });
    expect(res.data.setCourseQuizExtensions.quizExtensions).toBeNull();
    expect(res.data.setCourseQuizExtensions.errors.map((e: any) => [e.attribute, e.type])).toEqual([
      ['quiz_extensions[0][extra_time]', 'less_than_or_equal_to'],
      ['quiz_extensions[0][extend_from_end_at]', 'exclusion'],
      ['quiz_extensions[1][user_id]', 'blank'],
    ]);
    expect(await snapshot()).toBe(before);
  });

  it('refuses students (403), unknown students (NOT_FOUND naming the entry) and anonymous callers', async () => {
    const before = await snapshot();
    const student = await room.student.api.graphql(MUTATION, { input: { courseId: String(c.id), quizExtensions: [{ userId: String(room.student.id), extraAttempts: 5 }] } });
    expect(student.errors?.[0]).toMatchObject({ message: NOT_ALLOWED, extensions: { code: 'REQUEST_ERROR', status: 403 } });
    const unknown = await room.teacher.api.graphql(MUTATION, { input: { courseId: String(c.id), quizExtensions: [{ userId: String(room.outsider.id), extraAttempts: 5 }] } });
    expect(unknown.errors?.[0]).toMatchObject({ message: expect.stringContaining('quiz_extensions[0][user_id]'), extensions: { code: 'NOT_FOUND' } });
    const anon = await server.as(null).graphql(MUTATION, { input: { courseId: String(c.id), quizExtensions: [{ userId: String(room.student.id) }] } });
    expect(anon.errors?.[0]).toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
    expect(await snapshot()).toBe(before);
  });

  it('shows Quiz.extensions to graders only', async () => {
    const student = await room.student.api.graphql(EXTENSIONS, { id: String(q.id) });
    expect(student.data.quiz.extensions).toBeNull();
    expect(student.errors?.[0]).toMatchObject({ extensions: { code: 'FORBIDDEN' } });
    expect((await room.ta.api.graphql(EXTENSIONS, { id: String(q.id) })).data.quiz.extensions).toHaveLength(2);
  });

  it('lists the extensions of every quiz of a course in a fixed number of statements', async () => {
    for (let i = 0; i < 3; i++) await quiz(c, { title: `Batch ${i}` });
    await extend(c, [{ user_id: room.student2.id, extra_time: 7 }]);
    const query = `query($id: ID!) { course(id: $id) { quizzesConnection(first: 50) { nodes { _id extensions { userId extraTime } } } } }`;
    const measure = async () => {
      const before = server.queryCount();
      const res = await room.teacher.api.graphql(query, { id: String(c.id) });
      expect(res.errors).toBeUndefined();
      return { n: server.queryCount() - before, nodes: res.data.course.quizzesConnection.nodes };
    };
    const small = await measure();
    expect(small.nodes.every((n: any) => n.extensions.some((e: any) => e.userId === String(room.student2.id) && e.extraTime === 7))).toBe(true);
    for (let i = 0; i < 5; i++) await quiz(c, { title: `More ${i}` });
    await extend(c, [{ user_id: room.student2.id, extra_time: 7 }]);
    const large = await measure();
    expect(large.nodes).toHaveLength(small.nodes.length + 5);
    expect(large.n).toBe(small.n);
  });
});
