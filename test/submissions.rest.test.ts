import { randomUUID } from 'node:crypto';
import { Attachment } from '../src/files/attachment.entity';
import { parseLinks } from './support/api';
import { captureEvents, count, FORBIDDEN, ISO, NOT_FOUND, useContentRoom } from './support/content';

const env = useContentRoom();
const { sink } = env;

const assignments = () => `/api/v1/courses/${env.room.course.id}/assignments`;
const subs = (id: number) => `${assignments()}/${id}/submissions`;

async function assignment(fields: Record<string, unknown> = {}) {
  const res = await env.room.teacher.api.post(assignments(), {
    assignment: { name: 'Homework', published: true, points_possible: 10, submission_types: ['online_text_entry', 'online_url', 'online_upload'], ...fields },
  });
  expect(res.status).toBe(201);
  return res.body;
}

/** A file in the user's own files (the upload flow belongs to the files area; this is its row). */
async function userFile(userId: number, state = 'available'): Promise<number> {
  const repo = env.server.app.ds.getRepository(Attachment);
  const row = await repo.save(
    repo.create({ contextType: 'User', contextId: userId, rootAccountId: 1, folderId: 1, userId, displayName: 'essay.pdf', filename: 'essay.pdf', contentType: 'application/pdf', size: 10, uuid: randomUUID().replace(/-/g, ''), storageKey: null, onDuplicate: 'overwrite', workflowState: state as never, uploadedAt: null, deletedAt: null }),
  );
  return row.id;
}

const submitted = (userId: number) => count(env.server, 'submissions', 'user_id = ? AND submitted_at IS NOT NULL', [userId]);

describe('POST …/assignments/:assignment_id/submissions', () => {
  it('takes an online_text_entry as a new attempt each time: 201, Location, Canvas Submission JSON, events', async () => {
    const a = await assignment();
    const { result: res, events } = await captureEvents(sink, () =>
      env.room.student.api.post(subs(a.id), { submission: { submission_type: 'online_text_entry', body: '<p>My essay</p><img src=x onerror=alert(1)>' } }),
    );
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`${env.server.url}/api/v1/courses/${env.room.course.id}/assignments/${a.id}/submissions/${env.room.student.id}`);
    expect(res.body).toMatchObject({
      id: expect.any(Number),
      assignment_id: a.id,
      user_id: env.room.student.id,
      submission_type: 'online_text_entry',
      body: '<p>My essay</p><img src="x" />',
      url: null,
      attempt: 1,
      workflow_state: 'submitted',
      submitted_at: expect.stringMatching(ISO),
      score: null,
      grade: null,
      excused: false,
      late: false,
      missing: false,
      grade_matches_current_submission: true,
      submission_comments: [],
      attachments: [],
    });
    expect(events).toEqual([
      { type: 'submission.submitted', courseId: env.room.course.id, assignmentId: a.id, userId: env.room.student.id, submissionId: res.body.id, attempt: 1 },
    ]);
    const again = await env.room.student.api.post(subs(a.id), { submission: { submission_type: 'online_url', url: 'example.com/work' } }, { json: true });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ id: res.body.id, attempt: 2, submission_type: 'online_url', url: 'http://example.com/work', body: null });
  });

  it('takes an online_upload of the student’s own files, and refuses files that are not theirs', async () => {
    const a = await assignment();
    const mine = await userFile(env.room.student.id);
    const theirs = await userFile(env.room.student2.id);
    const res = await env.room.student.api.post(subs(a.id), { submission: { submission_type: 'online_upload', file_ids: [mine] } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ submission_type: 'online_upload', attachments: [{ id: mine }] });
    const before = await submitted(env.room.student2.id);
    const foreign = await env.room.student2.api.post(subs(a.id), { submission: { submission_type: 'online_upload', file_ids: [mine] } });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual({ message: 'No valid file ids given' });
    const pending = await env.room.student2.api.post(subs(a.id), { submission: { submission_type: 'online_upload', file_ids: [await userFile(env.room.student2.id, 'pending_upload')] } });
    expect(pending.body).toEqual({ message: 'No valid file ids given' });
    expect(await submitted(env.room.student2.id)).toBe(before);
    expect((await env.room.student2.api.post(subs(a.id), { submission: { submission_type: 'online_upload', file_ids: [theirs] } })).status).toBe(201);
  });

  it.each([
    ['a type the assignment does not take', { submission_type: 'media_recording', media_comment_id: 'm1' }, { message: 'Invalid submission[submission_type] given' }],
    ['no type', { body: 'x' }, { message: 'Invalid submission[submission_type] given' }],
    ['a blank text entry', { submission_type: 'online_text_entry', body: '   ' }, { message: 'Text entry submission cannot be empty' }],
    ['a URL entry without url', { submission_type: 'online_url' }, { message: 'Invalid parameters for submission_type online_url. Required: submission[url]' }],
    ['an upload without file_ids', { submission_type: 'online_upload' }, { message: 'Invalid parameters for submission_type online_upload. Required: submission[file_ids]' }],
  ])('answers 400 for %s with Canvas’s body, storing nothing', async (_label, submission, body) => {
    const a = await assignment({ submission_types: ['online_text_entry', 'online_url', 'online_upload'] });
    const before = await count(env.server, 'submissions');
    const res = await env.room.student.api.post(subs(a.id), { submission });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(body);
    expect(await count(env.server, 'submissions')).toBe(before);
  });

  it('answers 400 with model errors for a URL that is not http(s)', async () => {
    const a = await assignment();
    const res = await env.room.student.api.post(subs(a.id), { submission: { submission_type: 'online_url', url: 'ftp://example.com/x' } });
    expect(res.status).toBe(400);
    expect(res.body.errors.url[0]).toMatchObject({ attribute: 'url', type: 'invalid' });
  });

  it.each([
    ['a teacher', () => env.room.teacher],
    ['an observer', () => env.room.observer],
    ['an outsider', () => env.room.outsider],
  ])('refuses %s with 403 and stores nothing', async (_label, who) => {
    const a = await assignment();
    const before = await count(env.server, 'submissions');
    const res = await who().api.post(subs(a.id), { submission: { submission_type: 'online_text_entry', body: 'x' } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    expect(await count(env.server, 'submissions')).toBe(before);
  });

  it('refuses anonymous callers (401), hides unpublished assignments (404) and refuses locked ones (403)', async () => {
    const a = await assignment();
    expect((await env.server.as(null).post(subs(a.id), { submission: { submission_type: 'online_text_entry', body: 'x' } })).status).toBe(401);
    const draft = await assignment({ published: false });
    const hidden = await env.room.student.api.post(subs(draft.id), { submission: { submission_type: 'online_text_entry', body: 'x' } });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual(NOT_FOUND);
    const closed = await assignment({ due_at: '2020-01-01T00:00:00Z', lock_at: '2020-01-02T00:00:00Z' });
    expect((await env.room.student.api.post(subs(closed.id), { submission: { submission_type: 'online_text_entry', body: 'x' } })).status).toBe(403);
  });

  it('marks a submission after the due date late, and an unsubmitted past-due one missing', async () => {
    const a = await assignment({ due_at: '2020-01-01T00:00:00Z' });
    const res = await env.room.student.api.post(subs(a.id), { submission: { submission_type: 'online_text_entry', body: 'late work' } });
    expect(res.body).toMatchObject({ late: true, missing: false, cached_due_date: '2020-01-01T00:00:00Z' });
    expect(res.body.seconds_late).toBeGreaterThan(0);
    const other = await env.room.teacher.api.get(`${subs(a.id)}/${env.room.student2.id}`);
    expect(other.body).toMatchObject({ workflow_state: 'unsubmitted', missing: true, late: false, attempt: null });
  });
});

describe('PUT …/submissions/:user_id (grading)', () => {
  let a: any;
  beforeAll(async () => {
    a = await assignment({ points_possible: 10 });
    await env.room.student.api.post(subs(a.id), { submission: { submission_type: 'online_text_entry', body: 'work' } });
  });
  const grade = (posted: unknown, user = env.room.student.id, who = env.room.teacher) => who.api.put(`${subs(a.id)}/${user}`, { submission: { posted_grade: posted } });

  it('grades with points, raising submission.graded with old and new values', async () => {
    const { result: res, events } = await captureEvents(sink, () => grade('8'));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ score: 8, grade: '8', entered_score: 8, entered_grade: '8', workflow_state: 'graded', grader_id: env.room.teacher.id, graded_at: expect.stringMatching(ISO), posted_at: expect.stringMatching(ISO) });
    expect(events).toEqual([
      expect.objectContaining({ type: 'submission.graded', assignmentId: a.id, userId: env.room.student.id, oldScore: null, newScore: 8, oldGrade: null, newGrade: '8', excused: false }),
    ]);
    const { events: again } = await captureEvents(sink, () => grade('13.5'));
    expect(again[0]).toMatchObject({ oldScore: 8, newScore: 13.5, oldGrade: '8', newGrade: '13.5' });
  });

  it('grades with a percentage, pass/complete/fail/incomplete, and clears with ""', async () => {
    expect((await grade('40%')).body).toMatchObject({ score: 4, grade: '4' });
    expect((await grade('complete')).body).toMatchObject({ score: 10, grade: '10' });
    expect((await grade('fail')).body).toMatchObject({ score: 0, grade: '0' });
    const cleared = await grade('');
    expect(cleared.body).toMatchObject({ score: null, grade: null, workflow_state: 'submitted' });
  });

  it('shows grades in the assignment’s grading type', async () => {
    const percent = await assignment({ points_possible: 20, grading_type: 'percent' });
    expect((await env.room.teacher.api.put(`${subs(percent.id)}/${env.room.student.id}`, { submission: { posted_grade: '15' } })).body).toMatchObject({ score: 15, grade: '75%' });
    const letters = await assignment({ points_possible: 10, grading_type: 'letter_grade' });
    expect((await env.room.teacher.api.put(`${subs(letters.id)}/${env.room.student.id}`, { submission: { posted_grade: 'B' } })).body).toMatchObject({ score: 8.6, grade: 'B' });
    const pf = await assignment({ points_possible: 5, grading_type: 'pass_fail' });
    expect((await env.room.teacher.api.put(`${subs(pf.id)}/${env.room.student.id}`, { submission: { posted_grade: 'pass' } })).body).toMatchObject({ score: 5, grade: 'complete' });
    const halfway = await env.room.teacher.api.put(`${subs(pf.id)}/${env.room.student.id}`, { submission: { posted_grade: '2' } });
    expect(halfway.status).toBe(400);
    expect(halfway.body).toEqual({ error: expect.stringMatching(/pass\/fail/) });
  });

  it.each([['abc'], ['B+ maybe'], ['A']])('answers 400 {"error": …} for the grade %j on a points assignment, changing nothing', async (posted) => {
    await grade('6');
    const res = await grade(posted);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.any(String) });
    expect((await env.room.teacher.api.get(`${subs(a.id)}/${env.room.student.id}`)).body.score).toBe(6);
  });

  it('excuses (and refuses excusing and grading at once)', async () => {
    const both = await env.room.teacher.api.put(`${subs(a.id)}/${env.room.student.id}`, { submission: { posted_grade: '5', excuse: 'true' } });
    expect(both.status).toBe(400);
    expect(both.body).toEqual({ error: 'Cannot simultaneously grade and excuse an assignment' });
    const { result: res, events } = await captureEvents(sink, () => env.room.teacher.api.put(`${subs(a.id)}/${env.room.student2.id}`, { submission: { excuse: true } }, { json: true }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ excused: true, score: null, grade: null, workflow_state: 'graded', missing: false });
    expect(events[0]).toMatchObject({ type: 'submission.graded', userId: env.room.student2.id, excused: true });
    const unexcused = await env.room.teacher.api.put(`${subs(a.id)}/${env.room.student2.id}`, { submission: { excuse: false } });
    expect(unexcused.body).toMatchObject({ excused: false, workflow_state: 'unsubmitted' });
  });

  it('keeps the grade of a resubmission but marks it as not matching the current attempt', async () => {
    await grade('9');
    const res = await env.room.student.api.post(subs(a.id), { submission: { submission_type: 'online_text_entry', body: 'v2' } });
    expect(res.body).toMatchObject({ score: 9, workflow_state: 'submitted', grade_matches_current_submission: false });
  });

  it('sets the late policy status (raising submission.updated), and refuses unknown ones', async () => {
    const { result: res, events } = await captureEvents(sink, () => env.room.teacher.api.put(`${subs(a.id)}/${env.room.student.id}`, { submission: { late_policy_status: 'late' } }));
    expect(res.body).toMatchObject({ late_policy_status: 'late', late: true });
    expect(events).toEqual([expect.objectContaining({ type: 'submission.updated', userId: env.room.student.id })]);
    const bad = await env.room.teacher.api.put(`${subs(a.id)}/${env.room.student.id}`, { submission: { late_policy_status: 'tardy' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.late_policy_status[0].type).toBe('inclusion');
  });

  it.each([
    ['a designer', () => env.room.designer],
    ['a student', () => env.room.student],
    ['an observer', () => env.room.observer],
    ['an outsider', () => env.room.outsider],
  ])('refuses %s with 403, changing nothing', async (_label, who) => {
    await grade('7');
    const res = await grade('1', env.room.student.id, who());
    expect(res.status).toBe(403);
    expect((await env.room.teacher.api.get(`${subs(a.id)}/${env.room.student.id}`)).body.score).toBe(7);
  });

  it('lets a TA grade, and answers 404 for someone who is not a student of the course', async () => {
    expect((await grade('10', env.room.student.id, env.room.ta)).body).toMatchObject({ score: 10, grader_id: env.room.ta.id });
    expect((await grade('1', env.room.teacher.id)).status).toBe(404);
    expect((await grade('1', env.room.outsider.id)).status).toBe(404);
    expect((await grade('1', 99999999)).status).toBe(404);
  });
});

describe('GET …/submissions and …/submissions/:user_id', () => {
  let a: any;
  beforeAll(async () => {
    a = await assignment();
    await env.room.student.api.post(subs(a.id), { submission: { submission_type: 'online_text_entry', body: 'mine' } });
  });

  it('lists every current student’s submission to graders, with placeholders for those who have not submitted', async () => {
    const res = await env.room.teacher.api.get(subs(a.id));
    expect(res.status).toBe(200);
    expect(res.body.map((s: any) => s.user_id).sort()).toEqual([env.room.student.id, env.room.student2.id].sort());
    const byUser = Object.fromEntries(res.body.map((s: any) => [s.user_id, s]));
    expect(byUser[env.room.student.id].workflow_state).toBe('submitted');
    expect(byUser[env.room.student2.id]).toMatchObject({ workflow_state: 'unsubmitted', id: expect.any(Number) });
    const page = await env.room.ta.api.get(`${subs(a.id)}?per_page=1`);
    expect(page.body).toHaveLength(1);
    expect(parseLinks(page.headers.get('link')).next).toContain('page=2');
    const filtered = await env.room.teacher.api.get(`${subs(a.id)}?workflow_state=submitted`);
    expect(filtered.body.map((s: any) => s.user_id)).toEqual([env.room.student.id]);
  });

  it('lists only their own to a student, and their student’s to an observer; refuses outsiders', async () => {
    const s = await env.room.student2.api.get(subs(a.id));
    expect(s.body.map((x: any) => x.user_id)).toEqual([env.room.student2.id]);
    const o = await env.room.observer.api.get(subs(a.id));
    expect(o.body.map((x: any) => x.user_id)).toEqual([env.room.student.id]);
    expect((await env.room.outsider.api.get(subs(a.id))).status).toBe(403);
  });

  it('shows one submission to its student (self too), their observer and graders; 403 to other students', async () => {
    expect((await env.room.student.api.get(`${subs(a.id)}/self`)).body).toMatchObject({ user_id: env.room.student.id, body: 'mine' });
    expect((await env.room.observer.api.get(`${subs(a.id)}/${env.room.student.id}`)).status).toBe(200);
    expect((await env.room.observer.api.get(`${subs(a.id)}/${env.room.student2.id}`)).status).toBe(403);
    expect((await env.room.ta.api.get(`${subs(a.id)}/${env.room.student2.id}`)).status).toBe(200);
    const other = await env.room.student2.api.get(`${subs(a.id)}/${env.room.student.id}`);
    expect(other.status).toBe(403);
    expect(other.body).toEqual(FORBIDDEN);
    expect((await env.room.teacher.api.get(`${subs(a.id)}/${env.room.teacher.id}`)).status).toBe(404);
  });
});

describe('GraphQL', () => {
  it('submits, grades and reads through the same rules', async () => {
    const a = await assignment({ points_possible: 4 });
    const created = await env.room.student.api.graphql(
      `mutation($input: CreateSubmissionInput!) { createSubmission(input: $input) { submission { _id id attempt workflowState body } errors { attribute } } }`,
      { input: { assignmentId: String(a.id), submissionType: 'online_text_entry', body: 'graph' } },
    );
    expect(created.errors).toBeUndefined();
    expect(created.data.createSubmission.submission).toMatchObject({ attempt: 1, workflowState: 'submitted', body: 'graph' });
    const graded = await env.room.teacher.api.graphql(
      `mutation($input: GradeSubmissionInput!) { gradeSubmission(input: $input) { submission { score grade late missing postedAt } } }`,
      { input: { assignmentId: String(a.id), userId: String(env.room.student.id), postedGrade: '50%' } },
    );
    expect(graded.data.gradeSubmission.submission).toMatchObject({ score: 2, grade: '2', late: false, missing: false });
    const bad = await env.room.teacher.api.graphql(`mutation($input: GradeSubmissionInput!) { gradeSubmission(input: $input) { submission { score } } }`, {
      input: { assignmentId: String(a.id), userId: String(env.room.student.id), postedGrade: 'lots' },
    });
    expect(bad.errors?.[0].extensions.code).toBe('REQUEST_ERROR');
    const read = await env.room.student.api.graphql(
      `query($a: ID!, $u: ID!) { submission(assignmentId: $a, userId: $u) { score assignment { name } user { _id } } }`,
      { a: String(a.id), u: 'self' },
    );
    expect(read.data.submission).toEqual({ score: 2, assignment: { name: 'Homework' }, user: { _id: String(env.room.student.id) } });
    const node = await env.room.student2.api.graphql(`query($id: ID!) { node(id: $id) { ... on Submission { _id } } }`, { id: created.data.createSubmission.submission.id });
    expect(node.data.node).toBeNull();
  });
});
