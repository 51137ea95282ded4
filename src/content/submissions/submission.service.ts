import { EntityManager, In } from 'typeorm';
import { ForbiddenError, NotFoundError, RequestError, ValidationError } from '../../common/errors';
import { sanitizeHtml } from '../../common/sanitize';
import { Course } from '../../courses/course.entity';
import { Enrollment } from '../../courses/enrollment.entity';
import { nowToSecond } from '../../db/columns';
import { transaction } from '../../db/transaction';
import { raise } from '../../events/domain-events';
import type { RequestContext } from '../../request/context';
import type { ConnectionResult } from '../../common/relay';
import type { User } from '../../users/user.entity';
import { lockState } from '../content-access';
import { fitText } from '../content-columns';
import { Assignment } from '../assignments/assignment.entity';
import { GradeError, gradeToScore, scoreToGrade } from './grading';
import { submittableFileIds } from './submission-files';
import { SubmissionListArgs, SubmissionPages } from './submission-pages';
import { Submission, SubmissionState } from './submission.entity';
import { ContentAccess } from '../content-access';
import { UserService } from '../../users/user.service';
import { AssignmentService } from '../assignments/assignment.service';

export interface SubmitInput {
  submissionType?: string | null;
  body?: string | null;
  url?: string | null;
  fileIds?: string[] | null;
}

export interface GradeInput {
  /** A number, "40%", a letter, pass/complete/fail/incomplete; "" clears the grade. */
  postedGrade?: string | null;
  excuse?: boolean | null;
  latePolicyStatus?: string | null;
}

/** What each submission type takes, as Canvas's API_SUBMISSION_TYPES (the ones this service supports). */
const API_SUBMISSION_TYPES: Record<string, 'body' | 'url' | 'file_ids'> = {
  online_text_entry: 'body',
  online_url: 'url',
  online_upload: 'file_ids',
};

/** Students who may be graded (a concluded or inactive student's work still can be). */
const GRADABLE_STUDENT_STATES = ['active', 'invited', 'inactive', 'completed'];
const LATE_POLICY_STATUSES = ['late', 'missing', 'none'];

/** Submission types that are never "missing" (nothing to turn in online). */
const NOT_EXPECTED = new Set(['none', 'on_paper', 'not_graded', 'external_tool']);

export class SubmissionService {
  constructor(private readonly ctx: RequestContext) {}

  private get access() {
    return this.ctx.use(ContentAccess);
  }

  // ---- who sees what --------------------------------------------------------------------------

  /** A user who is (or was) a student of the course; 404 otherwise, as Canvas's course.all_students.find. */
  private async studentOf(course: Course, userRaw: string): Promise<User> {
    const user = await this.ctx.use(UserService).lookup(userRaw);
    const enrolled = await this.ctx.ds.getRepository(Enrollment).findOneBy({
      courseId: course.id,
      userId: user.id,
      type: 'StudentEnrollment',
      workflowState: In(GRADABLE_STUDENT_STATES),
    });
    if (!enrolled) throw new NotFoundError();
    return user;
  }

  /**
   * Every student has a submission for every assignment, as Canvas's placeholder rows: the ones
   * missing are created (unsubmitted) the first time they are needed, then re-read by the caller.
   */
  private async ensure(pairs: { assignment: Assignment; userId: number }[], em?: EntityManager): Promise<void> {
    if (!pairs.length) return;
    const insert = async (m: EntityManager) => {
      const values = placeholders(pairs);
      for (let i = 0; i < values.length; i += 500) await m.createQueryBuilder().insert().into(Submission).values(values.slice(i, i + 500)).orIgnore().execute();
    };
    await (em ? insert(em) : transaction(this.ctx.ds, insert));
  }

  /** An assignment's submissions the viewer may read, by student, paged in SQL (submission-pages.ts). */
  listForAssignment(assignment: Assignment, args: SubmissionListArgs): Promise<ConnectionResult<Submission>> {
    return this.ctx.use(SubmissionPages).page(assignment, args, (pairs) => this.ensure(pairs));
  }

  /** GET …/submissions/:user_id: the student, their observers and the course's graders may read it. */
  async show(courseRaw: string | null | undefined, assignmentRaw: string, userRaw: string): Promise<Submission> {
    const { course, assignment } = await this.ctx.use(AssignmentService).find(courseRaw, assignmentRaw);
    const user = await this.studentOf(course, userRaw);
    const scope = await this.access.workScope(course);
    if (!scope.all && !scope.userIds.has(user.id)) throw new ForbiddenError();
    return this.row(assignment, user.id);
  }

  private async row(assignment: Assignment, userId: number): Promise<Submission> {
    const repo = this.ctx.ds.getRepository(Submission);
    let s = await repo.findOneBy({ assignmentId: assignment.id, userId });
    if (!s) {
      await this.ensure([{ assignment, userId }]);
      s = await repo.findOneByOrFail({ assignmentId: assignment.id, userId });
    }
    return s;
  }

  // ---- submitting -------------------------------------------------------------------------------

  /** POST …/submissions: a new attempt by the calling student, with Canvas's checks and 400 bodies. */
  async submit(courseRaw: string | null | undefined, assignmentRaw: string, input: SubmitInput): Promise<{ submission: Submission }> {
    const { course, assignment } = await this.ctx.use(AssignmentService).find(courseRaw, assignmentRaw);
    if (!(await this.access.isStudent(course)) || !assignment.published || lockState(assignment).locked) throw new ForbiddenError();
    const viewer = this.ctx.viewer!;
    const type = input.submissionType ?? '';
    if (type === 'online_text_entry' && !input.body?.trim()) throw new RequestError('Text entry submission cannot be empty');
    const field = API_SUBMISSION_TYPES[type];
    if (!field || !assignment.types.includes(type)) throw new RequestError('Invalid submission[submission_type] given');
    const given = field === 'body' ? input.body : field === 'url' ? input.url : input.fileIds;
    if (given == null || (field === 'url' && !String(given).trim())) {
      throw new RequestError(`Invalid parameters for submission_type ${type}. Required: submission[${field}]`);
    }
    let url: string | null = null;
    if (field === 'url') url = normalizeUrl(input.url!);
    // Checked before the placeholder row below is made, so a refused body stores nothing.
    const body = field === 'body' ? fitText(sanitizeHtml(input.body!, this.ctx.app.config), 'body', 'Body') : null;
    let fileIds: number[] = [];
    if (field === 'file_ids') {
      const asked = [...new Set(input.fileIds!.map((x) => String(x).trim()).filter((x) => /^\d{1,15}$/.test(x)).map(Number))];
      fileIds = await submittableFileIds(this.ctx, viewer.id, asked);
      if (!fileIds.length) throw new RequestError('No valid file ids given');
    }
    const existing = await this.row(assignment, viewer.id);
    return transaction(this.ctx.ds, async (em) => {
      const s = await em.getRepository(Submission).findOneByOrFail({ id: existing.id });
      Object.assign(s, {
        submissionType: type,
        body,
        url,
        attachmentIds: fileIds.length ? fileIds.join(',') : null,
        attempt: (s.attempt ?? 0) + 1,
        submittedAt: nowToSecond(),
        workflowState: 'submitted' as SubmissionState,
        gradeMatchesCurrentSubmission: s.score == null && !s.excused,
        latePolicyStatus: null,
      });
      await em.getRepository(Submission).save(s);
      await raise(em, this.ctx, { type: 'submission.submitted', courseId: course.id, assignmentId: assignment.id, userId: viewer.id, submissionId: s.id, attempt: s.attempt! });
      return { submission: s };
    });
  }

  // ---- grading ----------------------------------------------------------------------------------

  /** PUT …/submissions/:user_id: grade, clear, excuse, or set the late policy status. */
  async grade(courseRaw: string | null | undefined, assignmentRaw: string, userRaw: string, input: GradeInput): Promise<{ submission: Submission }> {
    const { course, assignment } = await this.ctx.use(AssignmentService).find(courseRaw, assignmentRaw);
    const user = await this.studentOf(course, userRaw);
    await this.access.assert(course, 'manage_grades');
    const excuse = input.excuse ?? null;
    const posted = input.postedGrade;
    if (excuse && posted != null && posted !== '') throw gradeError('Cannot simultaneously grade and excuse an assignment');
    if (input.latePolicyStatus != null && input.latePolicyStatus !== '' && !LATE_POLICY_STATUSES.includes(input.latePolicyStatus)) {
      throw ValidationError.of('late_policy_status', 'inclusion', `late_policy_status must be one of ${LATE_POLICY_STATUSES.join(', ')}`);
    }
    let score: number | null | undefined;
    if (posted != null) {
      try {
        score = posted.trim() === '' ? null : gradeToScore(posted, assignment.gradingType, assignment.pointsPossible);
      } catch (e) {
        if (e instanceof GradeError) throw gradeError(e.message);
        throw e;
      }
    }
    const existing = await this.row(assignment, user.id);
    const grader = this.ctx.viewer!;
    return transaction(this.ctx.ds, async (em) => {
      const s = await em.getRepository(Submission).findOneByOrFail({ id: existing.id });
      const before = { score: s.score, grade: s.grade, excused: s.excused, late: s.latePolicyStatus };
      const now = nowToSecond();
      if (excuse === true) {
        Object.assign(s, { excused: true, score: null, grade: null, workflowState: 'graded', gradedAt: now, graderId: grader.id });
      } else if (score !== undefined) {
        if (score === null) Object.assign(s, { score: null, grade: null, excused: false, gradedAt: null, graderId: grader.id, workflowState: ungradedState(s) });
        else {
          Object.assign(s, {
            score,
            grade: scoreToGrade(score, assignment.gradingType, assignment.pointsPossible),
            excused: false,
            workflowState: 'graded',
            gradedAt: now,
            graderId: grader.id,
            gradeMatchesCurrentSubmission: true,
          });
        }
      } else if (excuse === false && s.excused) {
        Object.assign(s, { excused: false, workflowState: ungradedState(s), graderId: grader.id });
      }
      if (input.latePolicyStatus != null) s.latePolicyStatus = input.latePolicyStatus === '' ? null : input.latePolicyStatus;
      await em.getRepository(Submission).save(s);
      const graded = before.score !== s.score || before.grade !== s.grade || before.excused !== s.excused;
      if (graded) {
        await raise(em, this.ctx, {
          type: 'submission.graded',
          courseId: course.id,
          assignmentId: assignment.id,
          userId: user.id,
          submissionId: s.id,
          oldScore: before.score,
          newScore: s.score,
          oldGrade: before.grade,
          newGrade: s.grade,
          excused: s.excused,
        });
      } else if (before.late !== s.latePolicyStatus && s.workflowState !== 'unsubmitted') {
        await raise(em, this.ctx, { type: 'submission.updated', courseId: course.id, assignmentId: assignment.id, userId: user.id, submissionId: s.id });
      }
      return { submission: s };
    });
  }

  /**
   * A quiz attempt turned in or scored, written to the quiz's assignment submission: a new attempt
   * raises submission.submitted, a changed score submission.graded (grader null: scored by the quiz).
   */
  async recordQuizResult(
    em: EntityManager,
    assignment: Assignment,
    userId: number,
    result: { attempt: number; submittedAt: Date | null; score: number | null; quizSubmissionId: number; pendingReview: boolean; newAttempt: boolean },
  ): Promise<Submission> {
    const repo = em.getRepository(Submission);
    let s = await repo.findOneBy({ assignmentId: assignment.id, userId });
    if (!s) {
      await this.ensure([{ assignment, userId }], em);
      s = await repo.findOneByOrFail({ assignmentId: assignment.id, userId });
    }
    const before = { score: s.score, grade: s.grade };
    Object.assign(s, {
      submissionType: 'online_quiz',
      attempt: result.attempt,
      submittedAt: result.submittedAt,
      quizSubmissionId: result.quizSubmissionId,
      score: result.score,
      grade: result.score == null ? null : scoreToGrade(result.score, assignment.gradingType, assignment.pointsPossible),
      workflowState: result.pendingReview ? 'pending_review' : result.score != null ? 'graded' : 'submitted',
      gradedAt: result.score != null ? nowToSecond() : s.gradedAt,
      graderId: null,
      gradeMatchesCurrentSubmission: true,
    });
    await repo.save(s);
    const base = { courseId: assignment.courseId, assignmentId: assignment.id, userId, submissionId: s.id };
    if (result.newAttempt) await raise(em, this.ctx, { type: 'submission.submitted', ...base, attempt: result.attempt });
    if (before.score !== s.score || before.grade !== s.grade) {
      await raise(em, this.ctx, { type: 'submission.graded', ...base, oldScore: before.score, newScore: s.score, oldGrade: before.grade, newGrade: s.grade, excused: s.excused });
    }
    return s;
  }

  /**
   * A student's post on a graded discussion, as Canvas's ensure_submission: the first post (or the
   * first since the submission was last turned in some other way) is a new attempt of type
   * discussion_topic, submitted when posted, raising submission.submitted as submit does; later posts
   * leave the turned-in submission as it is. Returns whether a new attempt was made.
   */
  async recordDiscussionEntry(em: EntityManager, assignment: Assignment, userId: number, postedAt: Date): Promise<boolean> {
    const repo = em.getRepository(Submission);
    let s = await repo.findOneBy({ assignmentId: assignment.id, userId });
    if (!s) {
      await this.ensure([{ assignment, userId }], em);
      s = await repo.findOneByOrFail({ assignmentId: assignment.id, userId });
    }
    if (s.submissionType === 'discussion_topic' && s.workflowState !== 'unsubmitted') return false;
    Object.assign(s, {
      submissionType: 'discussion_topic',
      body: null,
      url: null,
      attachmentIds: null,
      attempt: (s.attempt ?? 0) + 1,
      submittedAt: postedAt,
      workflowState: 'submitted' as SubmissionState,
      gradeMatchesCurrentSubmission: s.score == null && !s.excused,
      latePolicyStatus: null,
    });
    await repo.save(s);
    await raise(em, this.ctx, { type: 'submission.submitted', courseId: assignment.courseId, assignmentId: assignment.id, userId, submissionId: s.id, attempt: s.attempt! });
    return true;
  }

  // ---- derived fields ---------------------------------------------------------------------------

  /** late, missing and seconds_late as Canvas derives them from the due date and the late policy status. */
  async status(s: Submission): Promise<{ late: boolean; missing: boolean; secondsLate: number; dueAt: Date | null }> {
    const a = await this.ctx.loaders.byId(Assignment).load(s.assignmentId);
    const dueAt = a?.dueAt ?? null;
    const secondsLate = dueAt && s.submittedAt ? Math.max(0, Math.round((s.submittedAt.getTime() - dueAt.getTime()) / 1000)) : 0;
    let late = !s.excused && secondsLate > 0;
    let missing = !s.excused && s.submittedAt == null && s.score == null && dueAt != null && dueAt.getTime() < Date.now() && !!a && !a.types.every((t) => NOT_EXPECTED.has(t));
    if (s.latePolicyStatus === 'late') late = !s.excused;
    if (s.latePolicyStatus === 'missing') missing = !s.excused;
    if (s.latePolicyStatus === 'none') late = missing = false;
    return { late, missing, secondsLate: late ? secondsLate : 0, dueAt };
  }
}

/** Unsubmitted rows for (assignment, student) pairs, every column given (multi-row inserts need them on SQLite). */
function placeholders(pairs: { assignment: Assignment; userId: number }[]) {
  const now = nowToSecond();
  return pairs.map(({ assignment, userId }) => ({
    assignmentId: assignment.id,
    userId,
    courseId: assignment.courseId,
    workflowState: 'unsubmitted' as SubmissionState,
    submissionType: null,
    body: null,
    url: null,
    attachmentIds: null,
    attempt: null,
    submittedAt: null,
    score: null,
    grade: null,
    gradedAt: null,
    graderId: null,
    excused: false,
    latePolicyStatus: null,
    gradeMatchesCurrentSubmission: true,
    quizSubmissionId: null,
    createdAt: now,
    updatedAt: now,
  }));
}

/** Canvas's grading error body: 400 {"error": "…"}. */
function gradeError(message: string): RequestError {
  return new RequestError(message, 400, { error: message });
}

function ungradedState(s: Submission): SubmissionState {
  return s.submittedAt ? 'submitted' : 'unsubmitted';
}

/** A submitted URL: http assumed when no scheme is given; only http and https are accepted. */
function normalizeUrl(raw: string): string {
  let u = raw.trim();
  if (!/^[a-z][a-z0-9+.-]*:/i.test(u)) u = `http://${u}`;
  try {
    const parsed = new URL(u);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('scheme');
    if (!parsed.hostname) throw new Error('host');
    return u;
  } catch {
    throw ValidationError.of('url', 'invalid', 'is not a valid URL');
  }
}
