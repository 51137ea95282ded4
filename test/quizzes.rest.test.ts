import { QuizSubmission } from '../src/content/quizzes/quiz-submission.entity';
import { captureEvents, count, FORBIDDEN, ISO, NOT_FOUND, useContentRoom } from './support/content';
import type { WorldUser } from './support/world';

const env = useContentRoom();
const { sink } = env;

const quizzes = () => `/api/v1/courses/${env.room.course.id}/quizzes`;
const qsubs = (quizId: number) => `${quizzes()}/${quizId}/submissions`;

async function quiz(fields: Record<string, unknown> = {}) {
  const res = await env.room.teacher.api.post(quizzes(), { quiz: { title: 'Quiz', published: true, points_possible: 10, ...fields } });
  expect(res.status).toBe(200);
  return res.body;
}

async function start(q: { id: number }, who: WorldUser = env.room.student, extra: Record<string, unknown> = {}) {
  return who.api.post(qsubs(q.id), extra);
}

async function startAndComplete(q: { id: number }, who: WorldUser = env.room.student) {
  const started = await start(q, who);
  expect(started.status).toBe(200);
  const qs = started.body.quiz_submissions[0];
  const done = await who.api.post(`${qsubs(q.id)}/${qs.id}/complete`, { attempt: qs.attempt, validation_token: qs.validation_token });
  expect(done.status).toBe(200);
  return done.body.quiz_submissions[0];
}

const setExtension = (id: number, fields: Partial<QuizSubmission>) => env.server.app.ds.getRepository(QuizSubmission).update({ id }, fields);

describe('quizzes: create, read, update, delete', () => {
  it('creates a graded quiz with a backing online_quiz assignment (200, Canvas Quiz JSON)', async () => {
    const { result: res, events } = await captureEvents(sink, () =>
      env.room.teacher.api.post(quizzes(), { quiz: { title: 'Midterm', quiz_type: 'assignment', time_limit: '30', points_possible: '20', due_at: '2031-05-01T12:00:00Z' } }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: expect.any(Number),
      title: 'Midterm',
      quiz_type: 'assignment',
      time_limit: 30,
      allowed_attempts: 1,
      scoring_policy: 'keep_highest',
      points_possible: 20,
      due_at: '2031-05-01T12:00:00Z',
      published: false,
      unpublishable: true,
      locked_for_user: false,
      question_count: 0,
      assignment_id: expect.any(Number),
      html_url: `${env.server.url}/courses/${env.room.course.id}/quizzes/${res.body.id}`,
      permissions: expect.objectContaining({ manage: true, update: true, submit: false }),
    });
    const assignment = await env.room.teacher.api.get(`/api/v1/courses/${env.room.course.id}/assignments/${res.body.assignment_id}`);
    expect(assignment.body).toMatchObject({ name: 'Midterm', submission_types: ['online_quiz'], is_quiz_assignment: true, quiz_id: res.body.id, points_possible: 20, published: false });
    expect(events.map((e) => [e.type, e.contentType, e.change])).toEqual([
      ['content.changed', 'Assignment', 'created'],
      ['content.changed', 'Quiz', 'created'],
    ]);
  });

  it('creates practice quizzes and surveys without an assignment', async () => {
    for (const quiz_type of ['practice_quiz', 'survey']) {
      const res = await env.room.teacher.api.post(quizzes(), { quiz: { title: quiz_type, quiz_type } });
      expect(res.body).toMatchObject({ quiz_type, assignment_id: null });
    }
    const graded = await env.room.teacher.api.post(quizzes(), { quiz: { title: 'Graded survey', quiz_type: 'graded_survey' } });
    expect(graded.body.assignment_id).toEqual(expect.any(Number));
  });

  it.each([
    ['no title', {}, 'title'],
    ['an unknown quiz type', { title: 'Q', quiz_type: 'pop_quiz' }, 'invalid_quiz_type'],
    ['a zero time limit', { title: 'Q', time_limit: 0 }, 'time_limit'],
    ['zero allowed attempts', { title: 'Q', allowed_attempts: 0 }, 'allowed_attempts'],
    ['fractional allowed attempts', { title: 'Q', allowed_attempts: '1.5' }, 'allowed_attempts'],
    ['a malformed date', { title: 'Q', unlock_at: 'soon' }, 'unlock_at'],
  ])('answers 400 for %s and stores nothing', async (_label, fields, attr) => {
    const [q, a] = [await count(env.server, 'quizzes'), await count(env.server, 'assignments')];
    const res = await env.room.teacher.api.post(quizzes(), { quiz: fields });
    expect(res.status).toBe(400);
    expect(res.body.errors[attr][0].attribute).toBe(attr);
    expect([await count(env.server, 'quizzes'), await count(env.server, 'assignments')]).toEqual([q, a]);
  });

  it('refuses students, observers and outsiders (403) and anonymous callers (401), storing nothing', async () => {
    const before = await count(env.server, 'quizzes');
    for (const who of [env.room.student, env.room.observer, env.room.outsider]) {
      const res = await who.api.post(quizzes(), { quiz: { title: 'Nope' } });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    }
    expect((await env.server.as(null).post(quizzes(), { quiz: { title: 'Nope' } })).status).toBe(401);
    expect(await count(env.server, 'quizzes')).toBe(before);
  });

  it('hides unpublished quizzes from students (404, absent from lists) and records a student view', async () => {
    const draft = await quiz({ published: false, title: 'Draft quiz' });
    const live = await quiz({ title: 'Live quiz' });
    expect((await env.room.student.api.get(`${quizzes()}/${draft.id}`)).body).toEqual(NOT_FOUND);
    const list = await env.room.student.api.get(`${quizzes()}?per_page=100`);
    expect(list.body.map((q: any) => q.id)).toContain(live.id);
    expect(list.body.map((q: any) => q.id)).not.toContain(draft.id);
    expect((await env.room.teacher.api.get(`${quizzes()}?per_page=100`)).body.map((q: any) => q.id)).toContain(draft.id);
    const { result: shown, events } = await captureEvents(sink, () => env.room.student.api.get(`${quizzes()}/${live.id}`));
    expect(shown.body).toMatchObject({ id: live.id, access_code: null, permissions: expect.objectContaining({ submit: true, manage: false }) });
    expect(events).toEqual([{ type: 'content.viewed', courseId: env.room.course.id, userId: env.room.student.id, contentType: 'Quiz', contentId: live.id }]);
    expect((await env.room.outsider.api.get(`${quizzes()}/${live.id}`)).status).toBe(403);
  });

  it('keeps the quiz and its assignment in step, both ways, and drops the assignment of an ungraded quiz', async () => {
    const q = await quiz({ title: 'Sync' });
    const renamed = await env.room.teacher.api.put(`${quizzes()}/${q.id}`, { quiz: { title: 'Synced', points_possible: 15 } });
    expect(renamed.body).toMatchObject({ title: 'Synced', points_possible: 15 });
    const a = `/api/v1/courses/${env.room.course.id}/assignments/${q.assignment_id}`;
    expect((await env.room.teacher.api.get(a)).body).toMatchObject({ name: 'Synced', points_possible: 15 });
    await env.room.teacher.api.put(a, { assignment: { name: 'From assignment', due_at: '2031-06-01T00:00:00Z' } });
    expect((await env.room.teacher.api.get(`${quizzes()}/${q.id}`)).body).toMatchObject({ title: 'From assignment', due_at: '2031-06-01T00:00:00Z' });
    const practice = await env.room.teacher.api.put(`${quizzes()}/${q.id}`, { quiz: { quiz_type: 'practice_quiz' } });
    expect(practice.body.assignment_id).toBeNull();
    expect((await env.room.teacher.api.get(a)).status).toBe(404);
    const graded = await env.room.teacher.api.put(`${quizzes()}/${q.id}`, { quiz: { quiz_type: 'assignment' } });
    expect(graded.body.assignment_id).toEqual(expect.any(Number));
    expect(graded.body.assignment_id).not.toBe(q.assignment_id);
  });

  it('refuses updates from students (403) and bad updates (400) without changes', async () => {
    const q = await quiz({ title: 'Fixed' });
    expect((await env.room.student.api.put(`${quizzes()}/${q.id}`, { quiz: { title: 'Hacked' } })).status).toBe(403);
    expect((await env.room.teacher.api.put(`${quizzes()}/${q.id}`, { quiz: { allowed_attempts: -5 } })).status).toBe(400);
    expect((await env.room.teacher.api.get(`${quizzes()}/${q.id}`)).body).toMatchObject({ title: 'Fixed', allowed_attempts: 1 });
  });

  it('deletes the quiz and its assignment', async () => {
    const q = await quiz({ title: 'Gone' });
    expect((await env.room.ta.api.delete(`${quizzes()}/${q.id}`)).status).toBe(200);
    expect((await env.room.teacher.api.get(`${quizzes()}/${q.id}`)).status).toBe(404);
    expect((await env.room.teacher.api.get(`/api/v1/courses/${env.room.course.id}/assignments/${q.assignment_id}`)).status).toBe(404);
  });
});

describe('quiz submissions: start and complete', () => {
  it('starts an attempt, refuses a second start while it is open (409), and completes it', async () => {
    const q = await quiz({ title: 'Flow' });
    const started = await start(q);
    expect(started.status).toBe(200);
    const qs = started.body.quiz_submissions[0];
    expect(qs).toMatchObject({
      id: expect.any(Number),
      quiz_id: q.id,
      user_id: env.room.student.id,
      attempt: 1,
      workflow_state: 'untaken',
      validation_token: expect.stringMatching(/^[0-9a-f]{64}$/),
      started_at: expect.stringMatching(ISO),
      finished_at: null,
      end_at: null,
      score: null,
      extra_attempts: null,
      extra_time: null,
      manually_unlocked: false,
      overdue_and_needs_submission: false,
      quiz_points_possible: 10,
    });
    const again = await start(q);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ status: 'conflict', message: 'a quiz submission already exists' });

    const complete = (body: Record<string, unknown>, who = env.room.student) => who.api.post(`${qsubs(q.id)}/${qs.id}/complete`, body);
    expect((await complete({ attempt: 1, validation_token: 'nope' })).body).toEqual({ status: 'forbidden', message: 'invalid token' });
    expect((await complete({ attempt: 1, validation_token: qs.validation_token }, env.room.student2)).status).toBe(403);
    expect((await complete({ validation_token: qs.validation_token })).body).toEqual({ status: 'bad_request', message: 'invalid attempt' });
    expect((await complete({ attempt: 2, validation_token: qs.validation_token })).body).toEqual({ status: 'bad_request', message: 'attempt 2 can not be modified' });

    const { result: done, events } = await captureEvents(sink, () => complete({ attempt: 1, validation_token: qs.validation_token }));
    expect(done.status).toBe(200);
    expect(done.body.quiz_submissions[0]).toMatchObject({ id: qs.id, attempt: 1, workflow_state: 'complete', score: 0, kept_score: 0, finished_at: expect.stringMatching(ISO), submission_id: expect.any(Number) });
    expect(events.map((e) => e.type)).toEqual(['submission.submitted', 'submission.graded', 'quiz_submission.completed']);
    expect(events[2]).toEqual({ type: 'quiz_submission.completed', courseId: env.room.course.id, quizId: q.id, userId: env.room.student.id, quizSubmissionId: qs.id, score: 0 });

    // The quiz's assignment submission follows, as Canvas's does.
    const sub = await env.room.student.api.get(`/api/v1/courses/${env.room.course.id}/assignments/${q.assignment_id}/submissions/self`);
    expect(sub.body).toMatchObject({ submission_type: 'online_quiz', workflow_state: 'graded', score: 0, grade: '0', attempt: 1 });

    expect((await complete({ attempt: 1, validation_token: qs.validation_token })).body).toEqual({ status: 'bad_request', message: 'quiz submission is already complete' });
    // One attempt allowed, and it is used.
    expect((await start(q)).status).toBe(409);
  });

  it('honours extra_attempts, unlimited attempts, and keeps the submission id across attempts', async () => {
    const q = await quiz({ title: 'Retake' });
    const first = await startAndComplete(q);
    expect((await start(q)).status).toBe(409);
    await setExtension(first.id, { extraAttempts: 1 });
    const second = await startAndComplete(q);
    expect(second).toMatchObject({ id: first.id, attempt: 2, extra_attempts: 1 });
    expect((await start(q)).status).toBe(409);

    const unlimited = await quiz({ title: 'Unlimited', allowed_attempts: -1 });
    for (let i = 1; i <= 3; i++) expect((await startAndComplete(unlimited)).attempt).toBe(i);
  });

  it('sets end_at from the time limit plus extra time, capped at the lock date', async () => {
    const timed = await quiz({ title: 'Timed', time_limit: 30 });
    const qs = (await start(timed)).body.quiz_submissions[0];
    expect(Date.parse(qs.end_at) - Date.parse(qs.started_at)).toBe(30 * 60_000);

    const extra = await quiz({ title: 'Extra time', time_limit: 20 });
    const settings = await env.server.app.ds.getRepository(QuizSubmission).save(
      env.server.app.ds.getRepository(QuizSubmission).create({ quizId: extra.id, userId: env.room.student.id, workflowState: 'settings_only', attempt: 0, extraTime: 10 }),
    );
    const withExtra = (await start(extra)).body.quiz_submissions[0];
    expect(withExtra.id).toBe(settings.id);
    expect(Date.parse(withExtra.end_at) - Date.parse(withExtra.started_at)).toBe(30 * 60_000);

    const lockSoon = new Date(Date.now() + 10 * 60_000);
    lockSoon.setMilliseconds(0);
    const capped = await quiz({ title: 'Closing', time_limit: 60, lock_at: lockSoon.toISOString() });
    expect((await start(capped)).body.quiz_submissions[0].end_at).toBe(lockSoon.toISOString().replace('.000', ''));
  });

  it('refuses a locked quiz (400) unless the student was manually unlocked', async () => {
    const later = await quiz({ title: 'Not yet', unlock_at: '2040-01-01T00:00:00Z' });
    const res = await start(later);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 'bad_request', message: 'quiz is locked' });
    expect(await count(env.server, 'quiz_submissions', 'quiz_id = ?', [later.id])).toBe(0);
    await env.server.app.ds.getRepository(QuizSubmission).save(
      env.server.app.ds.getRepository(QuizSubmission).create({ quizId: later.id, userId: env.room.student.id, workflowState: 'settings_only', attempt: 0, manuallyUnlocked: true }),
    );
    expect((await start(later)).status).toBe(200);
    expect((await env.room.student.api.get(`${quizzes()}/${later.id}`)).body.locked_for_user).toBe(false);
    expect((await env.room.student2.api.get(`${quizzes()}/${later.id}`)).body.locked_for_user).toBe(true);
  });

  it('checks the access code', async () => {
    const q = await quiz({ title: 'Secret', access_code: 'open sesame' });
    expect((await env.room.teacher.api.get(`${quizzes()}/${q.id}`)).body.access_code).toBe('open sesame');
    expect((await env.room.student.api.get(`${quizzes()}/${q.id}`)).body.access_code).toBeNull();
    expect((await start(q, env.room.student, { access_code: 'wrong' })).body).toEqual({ status: 'forbidden', message: 'invalid access code' });
    expect((await start(q, env.room.student, { access_code: 'open sesame' })).status).toBe(200);
  });

  it('lets only students take quizzes, and only authors preview them', async () => {
    const q = await quiz({ title: 'Who' });
    for (const who of [env.room.teacher, env.room.observer, env.room.designer]) {
      const res = await start(q, who);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ status: 'forbidden', message: 'you are not allowed to participate in this quiz' });
    }
    expect((await start(q, env.room.outsider)).status).toBe(403);
    expect((await env.server.as(null).post(qsubs(q.id), {})).status).toBe(401);
    expect((await start(q, env.room.student, { preview: true })).body).toEqual({ status: 'forbidden', message: 'you are not allowed to preview this quiz' });
    const preview = await start(q, env.room.teacher, { preview: true });
    expect(preview.body.quiz_submissions[0]).toMatchObject({ workflow_state: 'preview', user_id: env.room.teacher.id });
    const draft = await quiz({ title: 'Hidden', published: false });
    expect((await start(draft)).status).toBe(404);
    expect(await count(env.server, 'quiz_submissions', 'quiz_id = ?', [draft.id])).toBe(0);
  });
});

describe('quiz submissions: scoring, listing, showing', () => {
  let q: any;
  let first: any;
  beforeAll(async () => {
    q = await quiz({ title: 'Scored', allowed_attempts: 2, points_possible: 10 });
    first = await startAndComplete(q);
  });
  const update = (body: Record<string, unknown>, who = env.room.teacher) => who.api.put(`${qsubs(q.id)}/${first.id}`, body, { json: true });

  it('scores a completed attempt with fudge points and question scores, writing the assignment grade', async () => {
    const { result: res, events } = await captureEvents(sink, () => update({ quiz_submissions: [{ attempt: 1, fudge_points: 5, questions: { '11': { score: 2.5 } } }] }));
    expect(res.status).toBe(200);
    expect(res.body.quiz_submissions[0]).toMatchObject({ id: first.id, attempt: 1, score: 7.5, kept_score: 7.5, fudge_points: 5 });
    expect(events.map((e) => e.type)).toEqual(['submission.graded', 'quiz_submission.scored']);
    expect(events[0]).toMatchObject({ oldScore: 0, newScore: 7.5, oldGrade: '0', newGrade: '7.5' });
    expect(events[1]).toEqual({ type: 'quiz_submission.scored', courseId: env.room.course.id, quizId: q.id, userId: env.room.student.id, quizSubmissionId: first.id, score: 7.5 });
    const sub = await env.room.teacher.api.get(`/api/v1/courses/${env.room.course.id}/assignments/${q.assignment_id}/submissions/${env.room.student.id}`);
    expect(sub.body).toMatchObject({ score: 7.5, grade: '7.5', workflow_state: 'graded' });
  });

  it('keeps the highest attempt', async () => {
    const second = await startAndComplete(q);
    expect(second).toMatchObject({ id: first.id, attempt: 2, score: 0, kept_score: 7.5 });
    const res = await update({ quiz_submissions: [{ attempt: 2, fudge_points: 9 }] });
    expect(res.body.quiz_submissions[0]).toMatchObject({ attempt: 2, score: 9, kept_score: 9 });
    const back = await update({ quiz_submissions: [{ attempt: 2, fudge_points: 1 }] });
    expect(back.body.quiz_submissions[0]).toMatchObject({ score: 1, kept_score: 7.5 });
  });

  it('scores an earlier attempt while a newer one is in progress, leaving the assignment on the turned-in attempt', async () => {
    const multi = await quiz({ title: 'In progress', allowed_attempts: 3 });
    const done = await startAndComplete(multi);
    expect((await start(multi)).body.quiz_submissions[0]).toMatchObject({ attempt: 2, workflow_state: 'untaken' });
    const res = await env.room.teacher.api.put(`${qsubs(multi.id)}/${done.id}`, { quiz_submissions: [{ attempt: 1, fudge_points: 4 }] }, { json: true });
    expect(res.body.quiz_submissions[0]).toMatchObject({ attempt: 2, workflow_state: 'untaken', kept_score: 4 });
    const sub = await env.room.teacher.api.get(`/api/v1/courses/${env.room.course.id}/assignments/${multi.assignment_id}/submissions/${env.room.student.id}`);
    expect(sub.body).toMatchObject({ attempt: 1, score: 4, submitted_at: expect.stringMatching(ISO) });
  });

  it('refuses bad scoring requests with Canvas’s RequestError bodies', async () => {
    expect((await update({ fudge_points: 1 })).body).toEqual({ status: 'bad_request', message: 'missing required key :quiz_submissions' });
    expect((await update({ quiz_submissions: [{ fudge_points: 1 }] })).body).toEqual({ status: 'bad_request', message: 'invalid attempt' });
    expect((await update({ quiz_submissions: [{ attempt: 7, fudge_points: 1 }] })).body).toEqual({ status: 'bad_request', message: 'invalid attempt' });
    const student = await update({ quiz_submissions: [{ attempt: 1, fudge_points: 100 }] }, env.room.student);
    expect(student.status).toBe(403);
    expect(student.body).toEqual({ status: 'forbidden', message: 'you are not allowed to update scores for this quiz submission' });
    expect((await update({ quiz_submissions: [{ attempt: 1, fudge_points: 1 }] }, env.room.designer)).status).toBe(403);
    const open = await quiz({ title: 'Open', allowed_attempts: -1 });
    const qs = (await start(open)).body.quiz_submissions[0];
    const incomplete = await env.room.teacher.api.put(`${qsubs(open.id)}/${qs.id}`, { quiz_submissions: [{ attempt: 1, fudge_points: 2 }] }, { json: true });
    expect(incomplete.body).toEqual({ status: 'bad_request', message: 'quiz submission attempt must be complete' });
  });

  it('lists every student’s submission to graders, a student’s own attempts to them, and refuses observers', async () => {
    await startAndComplete(q, env.room.student2);
    const teacher = await env.room.teacher.api.get(qsubs(q.id));
    expect(teacher.status).toBe(200);
    expect(Object.keys(teacher.body)).toEqual(['quiz_submissions']);
    expect(teacher.body.quiz_submissions.map((s: any) => s.user_id).sort()).toEqual([env.room.student.id, env.room.student2.id].sort());
    expect(teacher.body.quiz_submissions.every((s: any) => s.validation_token === undefined)).toBe(true);
    expect(teacher.headers.get('link')).toContain('rel="current"');
    const student = await env.room.student.api.get(qsubs(q.id));
    expect(student.body.quiz_submissions.map((s: any) => [s.id, s.attempt])).toEqual([
      [first.id, 1],
      [first.id, 2],
    ]);
    expect((await env.room.observer.api.get(qsubs(q.id))).status).toBe(403);
  });

  it('shows one submission to its taker, their observer and graders; refuses other students', async () => {
    const own = await env.room.student.api.get(`${qsubs(q.id)}/${first.id}`);
    expect(own.body.quiz_submissions[0]).toMatchObject({ id: first.id, validation_token: expect.any(String) });
    expect((await env.room.observer.api.get(`${qsubs(q.id)}/${first.id}`)).status).toBe(200);
    const teacher = await env.room.teacher.api.get(`${qsubs(q.id)}/${first.id}`);
    expect(teacher.body.quiz_submissions[0].validation_token).toBeUndefined();
    expect((await env.room.student2.api.get(`${qsubs(q.id)}/${first.id}`)).status).toBe(403);
    expect((await env.room.teacher.api.get(`${qsubs(q.id)}/99999999`)).status).toBe(404);
  });
});

describe('GraphQL', () => {
  it('runs the same start/complete machine and lists submissions on the quiz', async () => {
    const q = await quiz({ title: 'GQL quiz' });
    const started = await env.room.student.api.graphql(
      `mutation($input: StartQuizSubmissionInput!) { startQuizSubmission(input: $input) { quizSubmission { _id attempt validationToken workflowState attemptsLeft } } }`,
      { input: { quizId: String(q.id) } },
    );
    const qs = started.data.startQuizSubmission.quizSubmission;
    expect(qs).toMatchObject({ attempt: 1, workflowState: 'untaken', attemptsLeft: 0 });
    const conflict = await env.room.student.api.graphql(`mutation($input: StartQuizSubmissionInput!) { startQuizSubmission(input: $input) { quizSubmission { _id } } }`, { input: { quizId: String(q.id) } });
    expect(conflict.errors?.[0]).toMatchObject({ message: 'a quiz submission already exists', extensions: { code: 'REQUEST_ERROR', status: 409 } });
    const done = await env.room.student.api.graphql(
      `mutation($input: CompleteQuizSubmissionInput!) { completeQuizSubmission(input: $input) { quizSubmission { workflowState keptScore } } }`,
      { input: { quizId: String(q.id), id: qs._id, attempt: '1', validationToken: qs.validationToken } },
    );
    expect(done.data.completeQuizSubmission.quizSubmission).toEqual({ workflowState: 'complete', keptScore: 0 });
    const listed = await env.room.teacher.api.graphql(`query($id: ID!) { quiz(id: $id) { assignment { name } submissionsConnection { nodes { _id user { _id } } } } }`, { id: String(q.id) });
    expect(listed.data.quiz).toEqual({ assignment: { name: 'GQL quiz' }, submissionsConnection: { nodes: [{ _id: qs._id, user: { _id: String(env.room.student.id) } }] } });
  });
});
