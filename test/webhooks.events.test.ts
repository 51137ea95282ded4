import fs from 'node:fs';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { createContext } from '../src/auth/request-context';
import { transaction } from '../src/db/transaction';
import { raise } from '../src/events/domain-events';
import { OutboxMessage } from '../src/webhooks/outbox.entity';
import { bodyDigest } from '../src/webhooks/signing-keys';
import type { WebhookSubscription } from '../src/webhooks/webhook-subscription.entity';
import { contentRoom, ContentRoom, count } from './support/content';
import { startTestServer, TestServer } from './support/server';
import {
  ALL_EVENTS,
  fastDeliveryEnv,
  HttpsReceiver,
  LocalSqs,
  sleep,
  startLocalSqs,
  subscription,
  testCertificate,
  toolProxy,
  waitFor,
} from './support/webhooks';
import { World } from './support/world';

/**
 * Every event type, in both formats, over both transports, reaches exactly the subscriptions whose
 * context and event types match it: an assignment's, its course's, the root account's — and no
 * other course's or assignment's. Deliveries go to a real local HTTPS server and a local SQS server.
 */
let server: TestServer;
let world: World;
let room: ContentRoom;
let receiver: HttpsReceiver;
let sqs: LocalSqs;
let caFile: string;

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ISO_S = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

beforeAll(async () => {
  const tls = await testCertificate();
  caFile = tls.caFile;
  receiver = await new HttpsReceiver(tls).up();
  sqs = await startLocalSqs();
  server = await startTestServer(fastDeliveryEnv(caFile, { SQS_ENDPOINT: sqs.endpoint, SQS_ACCESS_KEY_ID: 'test', SQS_SECRET_ACCESS_KEY: 'test', SQS_ALLOWED_ACCOUNT_IDS: '123456789012' }));
  world = new World(server);
  room = await contentRoom(world);
});
afterAll(async () => {
  await server.close();
  await receiver.down();
  await sqs.close();
  fs.rmSync(caFile, { force: true });
});

const assignments = () => `/api/v1/courses/${room.course.id}/assignments`;

async function assignment(courseId = room.course.id, api = room.teacher.api) {
  const res = await api.post(`/api/v1/courses/${courseId}/assignments`, {
    assignment: { name: 'Essay', published: true, points_possible: 10, submission_types: ['online_text_entry'] },
  });
  expect(res.status).toBe(201);
  return res.body as { id: number };
}

/** Messages in the outbox not yet delivered (or failed for good). */
const undelivered = () => count(server, 'outbox_messages', "status NOT IN ('delivered')");

const names = (rs: { json: any }[], format: 'live-event' | 'caliper' = 'live-event') =>
  rs.map((r) => (format === 'caliper' ? r.json.data[0].extensions['com.instructure.canvas'].event_name : r.json.metadata.event_name)).sort();

describe('which subscriptions get which events', () => {
  let a: { id: number };
  let other: { id: number };
  let subs: Record<string, WebhookSubscription>;
  let queues: Record<string, string>;
  let quizAssignmentId: number;
  let quizSubmissionId: number;
  let attachmentId: number;

  beforeAll(async () => {
    const tool = await toolProxy(server);
    a = await assignment();
    other = await assignment();
    const otherCourse = await world.course({ name: 'Elsewhere' });
    queues = { root: await sqs.queue(`root-${Date.now()}`), rootCaliper: await sqs.queue(`root-caliper-${Date.now()}`) };
    const https = (path: string) => receiver.url(path);
    subs = {
      assignment: await subscription(server, { tool, context: { type: 'assignment', id: a.id }, eventTypes: ALL_EVENTS.map((e) => e.toUpperCase()), url: https('/assignment') }),
      course: await subscription(server, { tool, context: { type: 'course', id: room.course.id }, eventTypes: ALL_EVENTS, format: 'caliper', url: https('/course') }),
      root: await subscription(server, { tool, context: { type: 'root_account', id: 1 }, eventTypes: ALL_EVENTS, transport: 'sqs', url: queues.root }),
      rootCaliper: await subscription(server, { tool, context: { type: 'account', id: 1 }, eventTypes: ALL_EVENTS, format: 'caliper', transport: 'sqs', url: queues.rootCaliper }),
      grades1: await subscription(server, { tool, context: { type: 'course', id: room.course.id }, eventTypes: ['GRADE_CHANGE'], url: https('/grades') }),
      grades2: await subscription(server, { tool, context: { type: 'course', id: room.course.id }, eventTypes: ['GRADE_CHANGE'], url: https('/grades') }),
      otherAssignment: await subscription(server, { tool, context: { type: 'assignment', id: other.id }, eventTypes: ALL_EVENTS, url: https('/other-assignment') }),
      otherCourse: await subscription(server, { tool, context: { type: 'course', id: otherCourse.id }, eventTypes: ALL_EVENTS, url: https('/other-course') }),
      deleted: await subscription(server, { tool, context: { type: 'course', id: room.course.id }, eventTypes: ALL_EVENTS, url: https('/deleted') }),
      deactivated: await subscription(server, { tool, context: { type: 'course', id: room.course.id }, eventTypes: ALL_EVENTS, url: https('/deactivated') }),
    };
    await server.app.ds.getRepository('WebhookSubscription').update({ id: subs.deleted.id }, { state: 'Deleted' });
    await server.app.ds.getRepository('WebhookSubscription').update({ id: subs.deactivated.id }, { deactivatedAt: new Date(), deactivationReason: 'test' });
    receiver.clear();

    // submission_created: the student submits.
    const submitted = await room.student.api.post(`${assignments()}/${a.id}/submissions`, { submission: { submission_type: 'online_text_entry', body: '<p>My essay</p>' } });
    expect(submitted.status).toBe(201);
    // grade_change and submission_updated: the teacher grades it.
    const graded = await room.teacher.api.put(`${assignments()}/${a.id}/submissions/${room.student.id}`, { submission: { posted_grade: '7' } });
    expect(graded.status).toBe(200);
    // plagiarism_resubmit: the grader asks for it to go to the plagiarism tool again.
    const resubmit = await room.teacher.api.post(`/courses/${room.course.id}/assignments/${a.id}/submissions/${room.student.id}/turnitin/resubmit`, {});
    expect(resubmit.status).toBe(204);
    // quiz_submitted (+ submission_created and grade_change of the quiz's assignment).
    const quiz = await room.teacher.api.post(`/api/v1/courses/${room.course.id}/quizzes`, { quiz: { title: 'Quiz', published: true, points_possible: 5 } });
    expect(quiz.status).toBe(200);
    quizAssignmentId = quiz.body.assignment_id;
    const started = await room.student.api.post(`/api/v1/courses/${room.course.id}/quizzes/${quiz.body.id}/submissions`, {});
    const qs = started.body.quiz_submissions[0];
    quizSubmissionId = qs.id;
    const done = await room.student.api.post(`/api/v1/courses/${room.course.id}/quizzes/${quiz.body.id}/submissions/${qs.id}/complete`, {
      attempt: qs.attempt,
      validation_token: qs.validation_token,
    });
    expect(done.status).toBe(200);
    // attachment_created: a file uploaded to the course (the attachment exists from the preflight on).
    const pre = await room.teacher.api.post(`/api/v1/courses/${room.course.id}/files`, { name: 'syllabus.pdf', size: 10 });
    expect(pre.status).toBe(200);
    const [att] = await server.app.ds.query("SELECT id FROM attachments WHERE display_name = 'syllabus.pdf' ORDER BY id DESC");
    attachmentId = Number(att.id);

    await waitFor('every message delivered', async () => (await undelivered()) === 0 && (await count(server, 'outbox_messages')) > 0, 30_000).catch(async (e) => {
      const stuck = await server.app.ds.query("SELECT event_name, status, attempts, last_error FROM outbox_messages WHERE status <> 'delivered'");
      throw new Error(`${(e as Error).message}: ${JSON.stringify(stuck)}`);
    });
  });

  const SUBMISSION_EVENTS = ['grade_change', 'plagiarism_resubmit', 'submission_created', 'submission_updated'];
  const COURSE_EVENTS = ['attachment_created', 'grade_change', 'grade_change', 'plagiarism_resubmit', 'quiz_submitted', 'submission_created', 'submission_created', 'submission_updated'];

  it("an assignment's subscription gets that assignment's submission events only", () => {
    expect(names(receiver.at('/assignment'))).toEqual(SUBMISSION_EVENTS);
    expect(receiver.at('/assignment').every((r) => r.json.body.assignment_id === String(a.id))).toBe(true);
    expect(receiver.at('/other-assignment')).toEqual([]);
  });

  it("a course's subscription gets every event in the course (Caliper here)", () => {
    expect(names(receiver.at('/course'), 'caliper')).toEqual(COURSE_EVENTS);
  });

  it('root account subscriptions get everything, over SQS, in both formats', async () => {
    const live = await sqs.receiveAll(queues.root);
    expect(names(live)).toEqual(COURSE_EVENTS);
    expect(live.every((m) => m.attributes.subscription_id === subs.root.id && m.json.metadata.subscription_id === subs.root.id)).toBe(true);
    expect(live.every((m) => m.attributes.message_id === m.json.metadata.message_id)).toBe(true);
    const caliper = await sqs.receiveAll(queues.rootCaliper);
    expect(names(caliper, 'caliper')).toEqual(COURSE_EVENTS);
    expect(caliper[0].json).toMatchObject({ dataVersion: 'http://purl.imsglobal.org/ctx/caliper/v1p1', sendTime: expect.stringMatching(ISO_MS) });
  });

  it('identical subscriptions each get their own message; event types match in any case', () => {
    const grades = receiver.at('/grades');
    expect(names(grades)).toEqual(['grade_change', 'grade_change', 'grade_change', 'grade_change']);
    const bySub = (s: WebhookSubscription) => grades.filter((r) => r.headers['x-subscription-id'] === s.id);
    expect(bySub(subs.grades1)).toHaveLength(2);
    expect(bySub(subs.grades2)).toHaveLength(2);
    expect(new Set(grades.map((r) => r.headers['x-message-id'])).size).toBe(4);
  });

  it("other courses', deleted and deactivated subscriptions get nothing", async () => {
    expect(receiver.at('/other-course')).toEqual([]);
    expect(receiver.at('/deleted')).toEqual([]);
    expect(receiver.at('/deactivated')).toEqual([]);
    expect(await count(server, 'outbox_messages', 'subscription_id IN (?, ?, ?, ?)', [subs.deleted.id, subs.deactivated.id, subs.otherCourse.id, subs.otherAssignment.id])).toBe(0);
  });

  it('HTTPS deliveries are JSON POSTs naming their subscription in a header and in the document', () => {
    for (const r of receiver.received) {
      expect(r.headers['content-type']).toBe('application/json');
      const subId = r.headers['x-subscription-id'];
      const named = r.json.metadata ? r.json.metadata.subscription_id : r.json.data[0].extensions['com.instructure.canvas'].subscription_id;
      expect(named).toBe(subId);
      expect(r.headers['x-message-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it("live-event metadata carries Canvas's keys, forced to the submission's course", () => {
    const created = receiver.at('/assignment').find((r) => r.json.metadata.event_name === 'submission_created')!;
    expect(created.json.metadata).toMatchObject({
      event_name: 'submission_created',
      event_time: expect.stringMatching(ISO_MS),
      producer: 'canvas',
      root_account_id: '1',
      root_account_uuid: expect.any(String),
      root_account_lti_guid: expect.stringContaining('.'),
      user_id: String(room.student.id),
      user_login: room.student.login,
      context_type: 'Course',
      context_id: String(room.course.id),
      context_role: 'StudentEnrollment',
      http_method: 'POST',
      url: expect.stringContaining(`/api/v1/courses/${room.course.id}/assignments/${a.id}/submissions`),
      request_id: expect.any(String),
      hostname: expect.stringContaining('127.0.0.1'),
      subscription_id: subs.assignment.id,
      message_id: created.headers['x-message-id'],
    });
    expect(created.json.metadata).not.toHaveProperty('real_user_id');
    const graded = receiver.at('/assignment').find((r) => r.json.metadata.event_name === 'grade_change')!;
    expect(graded.json.metadata).toMatchObject({ user_id: String(room.teacher.id), context_role: 'TeacherEnrollment', http_method: 'PUT' });
  });

  it('submission bodies: submission_created, submission_updated and plagiarism_resubmit', () => {
    const byName = (n: string) => receiver.at('/assignment').find((r) => r.json.metadata.event_name === n)!.json.body;
    const created = byName('submission_created');
    expect(created).toEqual({
      submission_id: expect.any(String),
      assignment_id: String(a.id),
      user_id: String(room.student.id),
      submitted_at: expect.stringMatching(ISO_S),
      graded_at: null,
      updated_at: expect.stringMatching(ISO_S),
      posted_at: null,
      score: null,
      grade: null,
      submission_type: 'online_text_entry',
      body: '<p>My essay</p>',
      url: null,
      attempt: 1,
      late: false,
      missing: false,
      workflow_state: 'submitted',
      lti_user_id: expect.stringMatching(/^[0-9a-f]{40}$/),
      lti_assignment_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      group_id: null,
    });
    expect(byName('submission_updated')).toMatchObject({ submission_id: created.submission_id, score: 7, grade: '7', workflow_state: 'graded', graded_at: expect.stringMatching(ISO_S) });
    expect(byName('plagiarism_resubmit')).toMatchObject({ submission_id: created.submission_id, attempt: 1, lti_assignment_id: created.lti_assignment_id });
  });

  it('grade_change carries old and new score and grade, the grader, and no grader for a quiz', () => {
    const teacherGrade = receiver.at('/assignment').find((r) => r.json.metadata.event_name === 'grade_change')!.json.body;
    expect(teacherGrade).toEqual({
      submission_id: expect.any(String),
      assignment_id: String(a.id),
      assignment_name: 'Essay',
      grade: '7',
      old_grade: null,
      score: 7,
      old_score: null,
      points_possible: 10,
      old_points_possible: 10,
      grader_id: String(room.teacher.id),
      student_id: String(room.student.id),
      student_sis_id: null,
      user_id: String(room.student.id),
      grading_complete: true,
      muted: false,
    });
    const quizGrade = receiver.at('/grades').find((r) => r.json.body.assignment_id === String(quizAssignmentId))!.json.body;
    expect(quizGrade).toMatchObject({ grader_id: null, score: 0, old_score: null });
  });

  it('quiz_submitted and attachment_created bodies', async () => {
    const live = receiver.at('/course').map((r) => r.json.data[0]);
    const quiz = live.find((e) => e.type === 'AssessmentEvent')!;
    expect(quiz.object).toMatchObject({ id: `urn:instructure:canvas:submission:${quizSubmissionId}`, type: 'Attempt', assignable: { type: 'Assessment' } });
    const root = await server.app.ds.getRepository(OutboxMessage).find({ where: { subscriptionId: subs.root.id } });
    const body = (n: string) => JSON.parse(root.find((m) => m.eventName === n)!.payload).body;
    expect(body('quiz_submitted')).toEqual({ submission_id: String(quizSubmissionId), quiz_id: expect.any(String) });
    expect(body('attachment_created')).toEqual({
      attachment_id: String(attachmentId),
      user_id: String(room.teacher.id),
      display_name: 'syllabus.pdf',
      filename: 'syllabus.pdf',
      context_type: 'Course',
      context_id: String(room.course.id),
      content_type: 'application/pdf',
      folder_id: expect.any(String),
      unlock_at: null,
      lock_at: null,
      updated_at: expect.stringMatching(ISO_S),
    });
  });

  it('Caliper 1.1: envelope, and type/action/object per event', () => {
    const events = receiver.at('/course').map((r) => r.json);
    for (const env of events) {
      expect(env).toMatchObject({ sensor: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/$/), sendTime: expect.stringMatching(ISO_MS), dataVersion: 'http://purl.imsglobal.org/ctx/caliper/v1p1' });
      expect(env.data).toHaveLength(1);
      expect(env.data[0]).toMatchObject({
        '@context': 'http://purl.imsglobal.org/ctx/caliper/v1p1',
        id: expect.stringMatching(/^urn:uuid:[0-9a-f-]{36}$/),
        eventTime: expect.stringMatching(ISO_MS),
        edApp: { type: 'SoftwareApplication' },
        group: { id: `urn:instructure:canvas:course:${room.course.id}`, type: 'CourseOffering' },
      });
    }
    const of = (n: string) => events.map((e) => e.data[0]).find((e) => e.extensions['com.instructure.canvas'].event_name === n)!;
    expect(of('submission_created')).toMatchObject({
      type: 'AssignableEvent',
      action: 'Submitted',
      actor: { id: `urn:instructure:canvas:user:${room.student.id}`, type: 'Person' },
      membership: { id: `urn:instructure:canvas:course:${room.course.id}:Learner:${room.student.id}`, roles: ['Learner'] },
      object: { type: 'Attempt', count: 1, assignee: { id: `urn:instructure:canvas:user:${room.student.id}` }, assignable: { type: 'AssignableDigitalResource' } },
    });
    expect(of('submission_updated')).toMatchObject({ type: 'Event', action: 'Modified', object: { type: 'Attempt' } });
    expect(of('plagiarism_resubmit')).toMatchObject({ type: 'Event', action: 'Modified', object: { type: 'Attempt' } });
    const grade = events.map((e) => e.data[0]).find((e) => e.type === 'GradeEvent' && e.actor.type === 'Person')!;
    expect(grade).toMatchObject({
      action: 'Graded',
      actor: { id: `urn:instructure:canvas:user:${room.teacher.id}` },
      object: { type: 'Attempt' },
      generated: { type: 'Score', scoreGiven: 7, maxScore: 10, scoredBy: `urn:instructure:canvas:user:${room.teacher.id}` },
    });
    expect(of('quiz_submitted')).toMatchObject({ type: 'AssessmentEvent', action: 'Submitted' });
    expect(of('attachment_created')).toMatchObject({ type: 'Event', action: 'Created', object: { type: 'Document', name: 'syllabus.pdf', mediaType: 'application/pdf' } });
  });
});

describe('attachment_created in every file context', () => {
  it("a group's and a user's files reach the subscriptions of the group's course and of the root account", async () => {
    const tool = await toolProxy(server);
    const course = await subscription(server, { tool, context: { type: 'course', id: room.course.id }, eventTypes: ['ATTACHMENT_CREATED'], url: receiver.url('/files-course') });
    const root = await subscription(server, { tool, context: { type: 'root_account', id: 1 }, eventTypes: ['attachment_created'], url: receiver.url('/files-root') });
    const cat = await room.teacher.api.post(`/api/v1/courses/${room.course.id}/group_categories`, { name: 'Teams' });
    const group = await room.teacher.api.post(`/api/v1/group_categories/${cat.body.id}/groups`, { name: 'Team 1' });
    await room.teacher.api.post(`/api/v1/groups/${group.body.id}/memberships`, { user_id: room.student.id });
    expect((await room.student.api.post(`/api/v1/groups/${group.body.id}/files`, { name: 'notes.txt', size: 5 })).status).toBe(200);
    expect((await room.student.api.post(`/api/v1/users/self/files`, { name: 'mine.txt', size: 5 })).status).toBe(200);

    await waitFor('both files at the root subscription', () => receiver.at('/files-root').length === 2);
    const rootMsgs = receiver.at('/files-root').map((r) => r.json);
    expect(rootMsgs.map((m) => [m.metadata.context_type, m.body.context_type, m.body.display_name]).sort()).toEqual([
      ['Group', 'Group', 'notes.txt'],
      ['User', 'User', 'mine.txt'],
    ]);
    expect(rootMsgs.every((m) => m.metadata.subscription_id === root.id && m.metadata.user_id === String(room.student.id))).toBe(true);
    // The course's subscription covers its groups' files, not its students' own files.
    await waitFor('the group file at the course subscription', () => receiver.at('/files-course').length >= 1);
    await sleep(200);
    expect(receiver.at('/files-course').map((r) => r.json.body.display_name)).toEqual(['notes.txt']);
    expect(receiver.at('/files-course')[0].headers['x-subscription-id']).toBe(course.id);
  });
});

describe('signatures', () => {
  it('every HTTPS delivery carries a JWT verifiable against the published JWKS, bound to its body', async () => {
    const tool = await toolProxy(server);
    const a = await assignment();
    const sub = await subscription(server, { tool, context: { type: 'assignment', id: a.id }, eventTypes: ['submission_created'], url: receiver.url('/signed') });
    await room.student.api.post(`${assignments()}/${a.id}/submissions`, { submission: { submission_type: 'online_text_entry', body: 'signed' } });
    const [r] = await waitFor('the signed delivery', () => (receiver.at('/signed').length ? receiver.at('/signed') : null));

    for (const path of ['/api/lti/security/jwks', '/.well-known/jwks.json']) {
      const res = await server.as(null).get(path);
      expect(res.status).toBe(200);
      expect(res.body.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String) });
      expect(res.body.keys[0]).not.toHaveProperty('d');
      const { payload, protectedHeader } = await jwtVerify(r.headers['x-webhook-signature'], createLocalJWKSet(res.body), { audience: receiver.url('/signed'), issuer: 'canvas' });
      expect(protectedHeader).toMatchObject({ alg: 'RS256', kid: res.body.keys[0].kid });
      expect(payload).toMatchObject({ sub: sub.id, message_id: r.headers['x-message-id'], event_name: 'submission_created', body_sha256: bodyDigest(r.body) });
    }
    // A tampered body no longer matches the signed digest.
    expect(bodyDigest(r.body.replace('signed', 'forged'))).not.toBe(bodyDigest(r.body));
    // The private key is kept encrypted.
    const stored = await server.app.ds.query("SELECT value FROM settings WHERE name = 'webhook_signing_keys'");
    expect(stored[0].value).not.toContain('PRIVATE KEY');
  });
});

describe('the plagiarism resubmit endpoint', () => {
  const path = (aId: number | string, userId: number | string, vendor = 'turnitin') => `/courses/${room.course.id}/assignments/${aId}/submissions/${userId}/${vendor}/resubmit`;

  it('is for graders: a student gets 401, nothing is raised', async () => {
    const a = await assignment();
    const before = await count(server, 'outbox_messages');
    const res = await room.student.api.post(path(a.id, room.student.id), {});
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: 'unauthorized', errors: [{ message: 'user not authorized to perform that action' }] });
    expect((await server.as(null).post(path(a.id, room.student.id), {})).status).toBe(401);
    expect(await count(server, 'outbox_messages')).toBe(before);
  });

  it('answers 400 for a non-numeric id or a user without a submission, 404 for a missing assignment', async () => {
    const a = await assignment();
    expect((await room.teacher.api.post(path('abc', room.student.id), {})).status).toBe(400);
    expect((await room.teacher.api.post(path(a.id, room.outsider.id), {})).status).toBe(400);
    expect((await room.teacher.api.post(path(999999, room.student.id), {})).status).toBe(404);
  });

  it('also answers at the vericite path, and through GraphQL', async () => {
    const a = await assignment();
    expect((await room.ta.api.post(path(a.id, room.student.id, 'vericite'), {})).status).toBe(204);
    const res = await room.teacher.api.graphql(
      `mutation($i: ResubmitToPlagiarismInput!) { resubmitToPlagiarism(input: $i) { submissionId errors { message } } }`,
      { i: { courseId: String(room.course.id), assignmentId: String(a.id), userId: String(room.student.id) } },
    );
    expect(res.data.resubmitToPlagiarism).toEqual({ submissionId: expect.any(String), errors: null });
  });
});

describe('the transactional outbox', () => {
  it('writes nothing when the change rolls back, and publishes only after a commit', async () => {
    const tool = await toolProxy(server);
    const a = await assignment();
    const sub = await subscription(server, { tool, context: { type: 'assignment', id: a.id }, eventTypes: ['plagiarism_resubmit'], url: receiver.url('/rollback') });
    await room.student.api.post(`${assignments()}/${a.id}/submissions`, { submission: { submission_type: 'online_text_entry', body: 'x' } });
    const [row] = await server.app.ds.query('SELECT id FROM submissions WHERE assignment_id = ? AND user_id = ?', [a.id, room.student.id]);
    const ctx = createContext({ app: server.app, viewer: null, baseUrl: server.url, log: { info() {}, warn() {}, error() {} } as never });
    const event = { type: 'submission.plagiarism_resubmit' as const, courseId: room.course.id, assignmentId: a.id, userId: room.student.id, submissionId: Number(row.id) };
    await expect(
      transaction(server.app.ds, async (em) => {
        await raise(em, ctx, event);
        expect(await em.getRepository(OutboxMessage).countBy({ subscriptionId: sub.id })).toBe(1);
        throw new Error('the change fails');
      }),
    ).rejects.toThrow('the change fails');
    expect(await count(server, 'outbox_messages', 'subscription_id = ?', [sub.id])).toBe(0);
    await sleep(200);
    expect(receiver.at('/rollback')).toEqual([]);

    await transaction(server.app.ds, (em) => raise(em, ctx, event));
    await waitFor('the committed event', () => receiver.at('/rollback').length === 1);
  });
});
