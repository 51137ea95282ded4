import DataLoader from 'dataloader';
import { In, IsNull, MoreThan, Not } from 'typeorm';
import { ForbiddenError, NotFoundError, Validator } from '../common/errors';
import { anyId } from '../content/content-access';
import { QuizSubmission } from '../content/quizzes/quiz-submission.entity';
import { attemptEndAt, reject } from '../content/quizzes/quiz-submission.service';
import { Quiz } from '../content/quizzes/quiz.entity';
import type { Course } from '../courses/course.entity';
import { nowToSecond } from '../db/columns';
import { transaction } from '../db/transaction';
import type { RequestContext } from '../request/context';
import { parseAnyId } from '../common/relay';
import { CourseService } from '../courses/course.service';
import { ContentAccess } from '../content/content-access';

/**
 * The spec's Limits table. Canvas clamps (and takes the absolute value of) numbers outside these; this
 * service refuses them with a 400 naming the field, so a mistaken request is visible and nothing applies.
 */
export const QUIZ_EXTENSION_LIMITS = {
  extra_attempts: 1000,
  extra_time: 10_080,
  extend_from_now: 1440,
  extend_from_end_at: 1440,
} as const;
type LimitedField = keyof typeof QUIZ_EXTENSION_LIMITS;

/** Most entries one request may carry: a bound on the work (entries × quizzes) of one transaction. */
export const QUIZ_EXTENSIONS_MAX = 1000;

export const NOT_ALLOWED = 'you are not allowed to change extension settings for these submissions';

/** One element of `quiz_extensions`: absent (undefined or null) settings are left as they are. */
export interface QuizExtensionEntry {
  userId?: string | number | null;
  extraAttempts?: number | null;
  extraTime?: number | null;
  manuallyUnlocked?: boolean | null;
  extendFromNow?: number | null;
  extendFromEndAt?: number | null;
}

/** The resulting settings of one student's submission for one quiz (Canvas's QuizExtension). */
export interface QuizExtension {
  quizId: number;
  userId: number;
  quizSubmissionId: number;
  extraAttempts: number | null;
  extraTime: number | null;
  manuallyUnlocked: boolean;
  endAt: Date | null;
}

const FIELDS: [keyof QuizExtensionEntry, LimitedField][] = [
  ['extraAttempts', 'extra_attempts'],
  ['extraTime', 'extra_time'],
  ['extendFromNow', 'extend_from_now'],
  ['extendFromEndAt', 'extend_from_end_at'],
];

const given = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;

/**
 * Canvas's "extendable?": an attempt in progress on a timed quiz whose end_at is set and has not been
 * past for an hour. Only such attempts get a new end_at; others are skipped silently, as in Canvas
 * (one request covers every quiz of the course, most of which have nothing in progress).
 */
function extendable(quiz: Quiz, qs: QuizSubmission, now: number): boolean {
  return qs.workflowState === 'untaken' && !qs.wasPreview && quiz.timeLimit != null && qs.endAt != null && qs.endAt.getTime() + 3_600_000 > now;
}

const view = (qs: QuizSubmission): QuizExtension => ({
  quizId: qs.quizId,
  userId: qs.userId,
  quizSubmissionId: qs.id,
  extraAttempts: qs.extraAttempts,
  extraTime: qs.extraTime,
  manuallyUnlocked: qs.manuallyUnlocked,
  endAt: qs.endAt,
});

/**
 * Course quiz extensions (POST /api/v1/courses/:course_id/quiz_extensions): per-student extra attempts,
 * extra time, manual unlocking and a later end for the attempt in progress, applied to the student's
 * submission of every quiz of the course. Who may: holders of manage_grades on the course (teachers,
 * TAs, admins), as Canvas's `add_attempts` right on quiz submissions.
 */
export class QuizExtensionService {
  constructor(private readonly ctx: RequestContext) {}

  private async canExtend(course: Course): Promise<boolean> {
    return this.ctx.authz.canCourse(course, 'manage_grades');
  }

  /** Checks every entry, collecting all problems, before anything is looked up or written. */
  private validate(entries: QuizExtensionEntry[]): number[] {
    const v = new Validator();
    if (entries.length > QUIZ_EXTENSIONS_MAX) {
      v.add('quiz_extensions', 'too_long', `quiz_extensions can hold at most ${QUIZ_EXTENSIONS_MAX} entries`);
      v.throwIfInvalid();
    }
    const userIds = entries.map((e, i) => {
      const attr = (k: string) => `quiz_extensions[${i}][${k}]`;
      let userId = NaN;
      if (e.userId == null || String(e.userId).trim() === '') v.add(attr('user_id'), 'blank', `${attr('user_id')} is required`);
      else {
        userId = parseAnyId(e.userId, 'User') ?? NaN;
        if (!Number.isInteger(userId) || userId <= 0) v.add(attr('user_id'), 'invalid', `${attr('user_id')} must be the id of a student of the course`);
      }
      for (const [key, field] of FIELDS) {
        const value = e[key] as number | null | undefined;
        if (!given(value)) continue;
        const cap = QUIZ_EXTENSION_LIMITS[field];
        if (typeof value !== 'number' || !Number.isInteger(value)) v.add(attr(field), 'not_an_integer', `${attr(field)} must be an integer`);
        else if (value < 0) v.add(attr(field), 'greater_than_or_equal_to', `${attr(field)} must be greater than or equal to 0`);
        else if (value > cap) v.add(attr(field), 'less_than_or_equal_to', `${attr(field)} must be less than or equal to ${cap}`);
      }
      if (given(e.extendFromNow) && given(e.extendFromEndAt)) {
        v.add(attr('extend_from_end_at'), 'exclusion', `${attr('extend_from_now')} and ${attr('extend_from_end_at')} are mutually exclusive: give one of them`);
      }
      return userId;
    });
    v.throwIfInvalid();
    return userIds;
  }

  /**
   * Applies the entries to each listed student's submission of every live quiz of the course (creating
   * settings-only submissions where none exist), atomically: the caller's right, every entry and every
   * student are checked before anything is written, and the writes are one transaction.
   * The result has one element per (quiz, entry) pair, by quiz id, in request order within a quiz.
   */
  async extend(courseRaw: string | number, entries: QuizExtensionEntry[]): Promise<{ quizExtensions: QuizExtension[] }> {
    this.ctx.authz.requireViewer();
    const course = await this.ctx.use(CourseService).lookup(anyId(courseRaw, 'Course'));
    if (!(await this.canExtend(course))) throw reject(NOT_ALLOWED, 403);
    const userIds = this.validate(entries);

    // Canvas finds each user among the course's students (404 otherwise): current student enrollments.
    const students = await this.ctx.use(ContentAccess).currentStudents().load(course.id);
    const unknown = userIds.findIndex((id) => !students.has(id));
    if (unknown >= 0) throw new NotFoundError(`quiz_extensions[${unknown}][user_id]: user ${userIds[unknown]} is not a student of this course`);
    if (!entries.length) return { quizExtensions: [] };

    return transaction(this.ctx.ds, async (em) => {
      const quizzes = await em.getRepository(Quiz).find({ where: { courseId: course.id, workflowState: Not('deleted' as const) }, order: { id: 'ASC' } });
      if (!quizzes.length) return { quizExtensions: [] };
      const repo = em.getRepository(QuizSubmission);
      const existing = await repo.find({ where: { quizId: In(quizzes.map((q) => q.id)), userId: In([...new Set(userIds)]) } });
      const rows = new Map(existing.map((r) => [`${r.quizId}:${r.userId}`, r]));
      const touched = new Set<QuizSubmission>();
      const pairs: QuizSubmission[] = [];
      const now = nowToSecond().getTime();

      for (const quiz of quizzes) {
        entries.forEach((entry, i) => {
          const key = `${quiz.id}:${userIds[i]}`;
          let qs = rows.get(key);
          if (!qs) {
            // Canvas's find_or_create_submission(student, nil, 'settings_only').
            qs = QuizSubmission.draft({ quizId: quiz.id, userId: userIds[i] });
            rows.set(key, qs);
          }
          this.apply(quiz, qs, entry, now);
          touched.add(qs);
          pairs.push(qs);
        });
      }
      await repo.save([...touched]);
      return { quizExtensions: pairs.map(view) };
    });
  }

  /** Canvas's QuizExtension#extend_submission!, on values already validated. */
  private apply(quiz: Quiz, qs: QuizSubmission, e: QuizExtensionEntry, now: number): void {
    if (given(e.extraAttempts)) qs.extraAttempts = e.extraAttempts;
    if (given(e.extraTime)) qs.extraTime = e.extraTime;
    if (given(e.manuallyUnlocked)) qs.manuallyUnlocked = e.manuallyUnlocked;
    if (!extendable(quiz, qs, now)) return;
    if (given(e.extendFromNow) && e.extendFromNow > 0) qs.endAt = new Date(now + e.extendFromNow * 60_000);
    else if (given(e.extendFromEndAt) && e.extendFromEndAt > 0) qs.endAt = new Date(qs.endAt!.getTime() + e.extendFromEndAt * 60_000);
  }

  // ---- reads ------------------------------------------------------------------------------------

  /**
   * Quiz.extensions: the current students' submissions of the quiz that carry an extension (extra
   * attempts, extra time, manual unlocking, or an attempt in progress whose end_at lies beyond what its
   * time limit gives it), by user id. Graders only (manage_grades or view_all_grades).
   */
  async forQuiz(quiz: Quiz): Promise<QuizExtension[]> {
    const course = await this.ctx.use(ContentAccess).courseOf(quiz.courseId);
    if (!(await this.ctx.use(ContentAccess).isGrader(course))) throw new ForbiddenError();
    return this.loader().load(quiz);
  }

  private loader(): DataLoader<Quiz, QuizExtension[], number> {
    return this.ctx.loaders.get('quizExtensions:byQuiz', () =>
      new DataLoader<Quiz, QuizExtension[], number>(
        async (quizzes) => {
          const courseIds = [...new Set(quizzes.map((q) => q.courseId))];
          const base = { quizId: In(quizzes.map((q) => q.id)), wasPreview: false };
          const [students, rows] = await Promise.all([
            this.ctx.use(ContentAccess).currentStudents().loadMany(courseIds),
            this.ctx.ds.getRepository(QuizSubmission).find({
              where: [
                { ...base, extraAttempts: MoreThan(0) },
                { ...base, extraTime: MoreThan(0) },
                { ...base, manuallyUnlocked: true },
                { ...base, workflowState: 'untaken' as const, endAt: Not(IsNull()) },
              ],
              order: { userId: 'ASC' },
            }),
          ]);
          const byCourse = new Map(courseIds.map((id, i) => [id, students[i] instanceof Set ? (students[i] as Set<number>) : new Set<number>()]));
          return quizzes.map((quiz) =>
            rows
              .filter((r) => r.quizId === quiz.id && byCourse.get(quiz.courseId)!.has(r.userId))
              .filter((r) => (r.extraAttempts ?? 0) > 0 || (r.extraTime ?? 0) > 0 || r.manuallyUnlocked || endExtended(quiz, r))
              .map(view),
          );
        },
        { cacheKeyFn: (q) => q.id },
      ),
    );
  }
}

/** An attempt in progress whose end_at is later than the time limit (and lock date) would give it. */
function endExtended(quiz: Quiz, qs: QuizSubmission): boolean {
  if (qs.workflowState !== 'untaken' || !qs.endAt || !qs.startedAt) return false;
  const natural = attemptEndAt(quiz, qs, qs.startedAt, false);
  return natural != null && qs.endAt.getTime() > natural.getTime();
}
