import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { Account } from '../accounts/account.entity';
import { AccountUser } from '../accounts/account-user.entity';
import { formatDateTime } from '../common/dates';
import { Assignment } from '../content/assignments/assignment.entity';
import { Submission } from '../content/submissions/submission.entity';
import { Course } from '../courses/course.entity';
import { Enrollment } from '../courses/enrollment.entity';
import type { RequestContext } from '../request/context';
import type { ContextRole, GradeChangeBody, LiveEventMetadata, SubmissionBody } from './event-schemas';
import { Pseudonym } from '../users/pseudonym.entity';
import { User } from '../users/user.entity';

/**
 * Canvas live events (reference §4): `{metadata, body}` with Canvas's metadata keys and bodies.
 * Ids are strings (local ids, single shard). Everything is read through the transaction's entity
 * manager, so a body shows the change as it commits. The shapes are declared in event-schemas.ts,
 * which types these builders and is what the event catalog publishes.
 */
export type Json = Record<string, unknown>;

export interface LiveEvent {
  eventName: string;
  /** Metadata as Canvas's producer emits it (subscription_id and message_id are added per message). */
  metadata: LiveEventMetadata;
  body: Json;
  /** Scheme and host the request came in on, for Caliper's sensor and edApp ids. */
  baseUrl: string;
  /** The acting user and role, for Caliper's actor and membership. */
  actor: { userId: number | null; login: string | null; sisId: string | null; role: ContextRole | null };
}

/** Canvas truncates long text fields of live events to 8192 characters. */
const MAX_TEXT = 8192;
const truncate = (s: string | null | undefined): string | null => (s == null ? null : s.length > MAX_TEXT ? s.slice(0, MAX_TEXT) : s);
function id(n: number): string;
function id(n: number | null | undefined): string | null;
function id(n: number | null | undefined): string | null {
  return n == null ? null : String(n);
}

/** `2024-03-01T17:05:00.123Z`: event times keep their milliseconds. */
export const eventTime = (d: Date): string => d.toISOString();

/** A user's LTI id: 40 hex characters, stable and opaque (Canvas's lti_context_id shape). */
export function ltiUserId(user: User): string {
  return createHash('sha1').update(`lti_user:${user.uuid}`).digest('hex');
}

/** An assignment's LTI id: a stable UUID derived from the root account and the assignment. */
export function ltiAssignmentId(rootAccountUuid: string, assignmentId: number): string {
  const h = createHash('sha1').update(`lti_assignment:${rootAccountUuid}:${assignmentId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Canvas's enrollment-type precedence for a user holding several roles in a course. */
const ROLE_ORDER: readonly ContextRole[] = ['TeacherEnrollment', 'TaEnrollment', 'DesignerEnrollment', 'StudentEnrollment', 'ObserverEnrollment'];

/** The context of an event: where it happened and under which root account. */
export interface EventContext {
  type: 'Course' | 'Group' | 'User';
  id: number;
  /** The account the context belongs to (null for a user). */
  accountId: number | null;
  rootAccount: Account;
  course: Course | null;
  sisSourceId: string | null;
}

/** Per-transaction caches, so one change raising several events reads each row once. */
class Reads {
  private readonly cache = new Map<string, Promise<unknown>>();
  constructor(readonly em: EntityManager) {}
  once<T>(key: string, load: () => Promise<T>): Promise<T> {
    let p = this.cache.get(key) as Promise<T> | undefined;
    if (!p) this.cache.set(key, (p = load()));
    return p;
  }
  user(userId: number) {
    return this.once(`user:${userId}`, () => this.em.getRepository(User).findOneBy({ id: userId }));
  }
  pseudonym(userId: number) {
    return this.once(`pseudonym:${userId}`, () =>
      this.em.getRepository(Pseudonym).findOne({ where: { userId, workflowState: 'active' }, order: { id: 'ASC' } }),
    );
  }
  account(accountId: number) {
    return this.once(`account:${accountId}`, () => this.em.getRepository(Account).findOneBy({ id: accountId }));
  }
  course(courseId: number) {
    return this.once(`course:${courseId}`, () => this.em.getRepository(Course).findOneBy({ id: courseId }));
  }
  assignment(assignmentId: number) {
    return this.once(`assignment:${assignmentId}`, () => this.em.getRepository(Assignment).findOneBy({ id: assignmentId }));
  }
  async role(course: Course, userId: number): Promise<ContextRole | null> {
    return this.once(`role:${course.id}:${userId}`, async () => {
      const rows = await this.em.getRepository(Enrollment).findBy({ courseId: course.id, userId, workflowState: 'active' });
      const types = new Set(rows.map((r) => r.type as string));
      const found = ROLE_ORDER.find((t) => types.has(t));
      if (found) return found;
      const admin = await this.em.getRepository(AccountUser).findOneBy({ userId, workflowState: 'active' });
      return admin ? 'AccountAdmin' : null;
    });
  }
}

const readsByEm = new WeakMap<EntityManager, Reads>();
export function reads(em: EntityManager): Reads {
  let r = readsByEm.get(em);
  if (!r) readsByEm.set(em, (r = new Reads(em)));
  return r;
}

/** Canvas's metadata for an event caused by this request in this context. */
export async function buildMetadata(
  r: Reads,
  ctx: RequestContext,
  eventName: LiveEventMetadata['event_name'],
  at: Date,
  context: EventContext,
): Promise<{ metadata: LiveEventMetadata; actor: LiveEvent['actor'] }> {
  const viewer = ctx.viewer;
  const pseudonym = viewer ? await r.pseudonym(viewer.id) : null;
  const real = ctx.realUser && viewer && ctx.realUser.id !== viewer.id ? ctx.realUser : null;
  const role = viewer && context.course ? await r.role(context.course, viewer.id) : null;
  const req = ctx.request;
  // The public host (PUBLIC_URL when set), not whatever Host header the client sent.
  const hostname = hostOf(ctx.baseUrl);
  const root = context.rootAccount;
  const metadata: LiveEventMetadata = {
    event_name: eventName,
    event_time: eventTime(at),
    producer: 'canvas',
    root_account_id: id(root.id),
    root_account_uuid: root.uuid,
    root_account_lti_guid: `${root.uuid}.${hostname}`,
    user_id: id(viewer?.id),
    user_login: pseudonym?.uniqueId ?? null,
    user_account_id: id(pseudonym?.accountId),
    user_sis_id: pseudonym?.sisUserId ?? null,
    ...(real ? { real_user_id: id(real.id) } : {}),
    context_type: context.type,
    context_id: id(context.id),
    context_account_id: id(context.accountId),
    context_sis_source_id: context.sisSourceId,
    context_role: role,
    hostname,
    http_method: req?.method ?? null,
    url: req ? `${req.protocol}://${req.host}${req.path}${req.query ? `?${req.query}` : ''}` : null,
    referrer: req?.headers.referer ?? null,
    user_agent: req?.headers['user-agent'] ?? null,
    client_ip: req?.ip ?? null,
    request_id: req?.id ?? null,
    session_id: null,
    time_zone: viewer?.timeZone ?? null,
  };
  return { metadata, actor: { userId: viewer?.id ?? null, login: pseudonym?.uniqueId ?? null, sisId: pseudonym?.sisUserId ?? null, role } };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'localhost';
  }
}

/** A course's context for submission, grade and quiz events (Canvas forces these to the course). */
export async function courseContext(r: Reads, courseId: number): Promise<EventContext | null> {
  const course = await r.course(courseId);
  if (!course) return null;
  const root = await r.account(course.rootAccountId);
  if (!root) return null;
  return { type: 'Course', id: course.id, accountId: course.accountId, rootAccount: root, course, sisSourceId: course.sisCourseId };
}

/** Submission types never "missing" (nothing to turn in online), as the submissions area rules. */
const NOT_EXPECTED = new Set(['none', 'on_paper', 'not_graded', 'external_tool']);

/**
 * late and missing as SubmissionService.status derives them (due date and late policy status),
 * computed from rows read in this transaction: reading through the request's loaders here would take
 * a second pooled connection while the transaction holds one.
 */
export function lateAndMissing(s: Submission, a: Assignment | null, now = Date.now()): { late: boolean; missing: boolean } {
  const dueAt = a?.dueAt ?? null;
  const secondsLate = dueAt && s.submittedAt ? Math.max(0, Math.round((s.submittedAt.getTime() - dueAt.getTime()) / 1000)) : 0;
  let late = !s.excused && secondsLate > 0;
  let missing = !s.excused && s.submittedAt == null && s.score == null && dueAt != null && dueAt.getTime() < now && !!a && !a.types.every((t) => NOT_EXPECTED.has(t));
  if (s.latePolicyStatus === 'late') late = !s.excused;
  if (s.latePolicyStatus === 'missing') missing = !s.excused;
  if (s.latePolicyStatus === 'none') late = missing = false;
  return { late, missing };
}

/** The body Canvas's submission_created, submission_updated and plagiarism_resubmit share. */
export async function submissionBody(r: Reads, s: Submission, rootAccountUuid: string): Promise<SubmissionBody> {
  const [student, assignment] = await Promise.all([r.user(s.userId), r.assignment(s.assignmentId)]);
  const status = lateAndMissing(s, assignment);
  return {
    submission_id: id(s.id),
    assignment_id: id(s.assignmentId),
    user_id: id(s.userId),
    submitted_at: formatDateTime(s.submittedAt),
    graded_at: formatDateTime(s.gradedAt),
    updated_at: formatDateTime(s.updatedAt),
    // Grades are visible as soon as they are given (no post policies here).
    posted_at: formatDateTime(s.gradedAt),
    score: s.score,
    grade: s.grade,
    submission_type: s.submissionType,
    body: truncate(s.body),
    url: s.url,
    attempt: s.attempt,
    late: status.late,
    missing: status.missing,
    workflow_state: s.workflowState,
    lti_user_id: student ? ltiUserId(student) : null,
    lti_assignment_id: assignment ? ltiAssignmentId(rootAccountUuid, assignment.id) : null,
    group_id: null,
  };
}

/** Canvas's grade_change body. */
export async function gradeChangeBody(
  r: Reads,
  s: Submission,
  change: { oldScore: number | null; newScore: number | null; oldGrade: string | null; newGrade: string | null },
): Promise<GradeChangeBody> {
  const [assignment, pseudonym] = await Promise.all([r.assignment(s.assignmentId), r.pseudonym(s.userId)]);
  return {
    submission_id: id(s.id),
    assignment_id: id(s.assignmentId),
    assignment_name: assignment?.name ?? null,
    grade: change.newGrade,
    old_grade: change.oldGrade,
    score: change.newScore,
    old_score: change.oldScore,
    points_possible: assignment?.pointsPossible ?? null,
    old_points_possible: assignment?.pointsPossible ?? null,
    grader_id: id(s.graderId),
    student_id: id(s.userId),
    student_sis_id: pseudonym?.sisUserId ?? null,
    user_id: id(s.userId),
    grading_complete: s.workflowState === 'graded',
    muted: false,
  };
}

export { truncate as truncateText, id as idString };
