import { randomBytes } from 'node:crypto';
import DataLoader from 'dataloader';
import { EntityManager } from 'typeorm';
import { ForbiddenError, NotFoundError, RequestError } from '../../common/errors';
import type { Course } from '../../courses/course.entity';
import { nowToSecond } from '../../db/columns';
import { transaction } from '../../db/transaction';
import { raise } from '../../events/domain-events';
import type { RequestContext } from '../../request/context';
import type { ConnectionResult } from '../../common/relay';
import { contentId, lockState } from '../content-access';
import { Assignment } from '../assignments/assignment.entity';
import { QuizSubmission, QuizSubmissionAttempt } from './quiz-submission.entity';
import type { Quiz } from './quiz.entity';
import { ContentAccess } from '../content-access';
import { QuizService } from './quiz.service';
import { ownQuizSubmissions } from './quiz-submission.reads';
import { SubmissionService } from '../submissions/submission.service';
import { QuizSubmissionPages } from './quiz-submission-pages';

/** Canvas's RequestError body for the quiz submission endpoints: {"status": "...", "message": "..."}. */
const STATUS_NAMES: Record<number, string> = { 400: 'bad_request', 403: 'forbidden', 404: 'not_found', 409: 'conflict', 501: 'not_implemented' };
export function reject(message: string, status = 400): RequestError {
  return new RequestError(message, status, { status: STATUS_NAMES[status] ?? 'bad_request', message });
}

export interface QuestionScoreInput {
  questionId: string;
  score?: number | null;
  comment?: string | null;
}

export interface ScoreInput {
  attempt?: number | null;
  fudgePoints?: number | null;
  questions?: QuestionScoreInput[] | null;
}

const parseScores = (json: string | null): Record<string, number> => (json ? (JSON.parse(json) as Record<string, number>) : {});
const sum = (scores: Record<string, number>) => Object.values(scores).reduce((a, b) => a + b, 0);

export class QuizSubmissionService {
  constructor(private readonly ctx: RequestContext) {}

  private get access() {
    return this.ctx.use(ContentAccess);
  }

  /** The viewer's own submission for each quiz, batched (null when there is none). */
  ownLoader(): DataLoader<number, QuizSubmission | null> {
    return ownQuizSubmissions(this.ctx);
  }

  private async inQuiz(quiz: Quiz, raw: string | number): Promise<QuizSubmission> {
    const qs = await this.ctx.loaders.byId(QuizSubmission).load(contentId(raw, 'QuizSubmission'));
    if (!qs || qs.quizId !== quiz.id) throw new NotFoundError();
    return qs;
  }

  /**
   * Canvas's takeability checks: access code, then the quiz's dates (unless manually unlocked). When
   * turning an attempt in (`turningIn`), an attempt whose own end_at is still ahead may finish after the
   * quiz locked: that end_at was granted to it (a course quiz extension, or the dates as they were when
   * it started). Canvas would say "quiz is locked" here; honouring the extension is the point of one.
   */
  private assertTakeable(quiz: Quiz, qs: QuizSubmission | null, accessCode: string | null | undefined, turningIn = false): void {
    if (quiz.accessCode && accessCode !== quiz.accessCode) throw reject('invalid access code', 403);
    if (!lockState(quiz).locked || qs?.manuallyUnlocked) return;
    if (turningIn && qs?.workflowState === 'untaken' && qs.endAt && qs.endAt.getTime() > Date.now()) return;
    throw reject('quiz is locked', 400);
  }

  /** Attempts allowed in all, or null when unlimited. */
  private allowed(quiz: Quiz, qs: QuizSubmission): number | null {
    return quiz.unlimitedAttempts ? null : quiz.allowedAttempts + (qs.extraAttempts ?? 0);
  }

  /** Whether a new attempt may start over this row: settings-only and preview rows, or a completed attempt with attempts left. */
  private retriable(quiz: Quiz, qs: QuizSubmission): boolean {
    if (qs.workflowState === 'settings_only' || qs.wasPreview) return true;
    const allowed = this.allowed(quiz, qs);
    return qs.completed && (allowed == null || allowed - qs.attempt > 0);
  }

  private endAt(quiz: Quiz, qs: QuizSubmission, startedAt: Date, staff: boolean): Date | null {
    return attemptEndAt(quiz, qs, startedAt, staff);
  }

  // ---- start / complete -------------------------------------------------------------------------

  /** POST …/quizzes/:quiz_id/submissions: a new attempt (or a preview for the quiz's authors). */
  async start(courseRaw: string | null | undefined, quizRaw: string, opts: { accessCode?: string | null; preview?: boolean | null }): Promise<{ quizSubmission: QuizSubmission }> {
    const { course, quiz } = await this.ctx.use(QuizService).find(courseRaw, quizRaw);
    const viewer = this.ctx.authz.requireViewer();
    const preview = Boolean(opts.preview);
    if (preview) {
      if (!(await this.access.can(course, 'manage_assignments'))) throw reject('you are not allowed to preview this quiz', 403);
    } else if (!(await this.access.isStudent(course))) {
      throw reject('you are not allowed to participate in this quiz', 403);
    }
    const existing = await this.ctx.ds.getRepository(QuizSubmission).findOneBy({ quizId: quiz.id, userId: viewer.id });
    if (!preview) {
      this.assertTakeable(quiz, existing, opts.accessCode);
      if (existing && !this.retriable(quiz, existing)) throw reject('a quiz submission already exists', 409);
    } else if (existing && !existing.wasPreview) {
      throw reject('a quiz submission already exists', 409);
    }
    return transaction(this.ctx.ds, async (em) => {
      const repo = em.getRepository(QuizSubmission);
      const qs =
        (existing && (await repo.findOneBy({ id: existing.id }))) ??
        QuizSubmission.draft({ quizId: quiz.id, userId: viewer.id });
      const startedAt = nowToSecond();
      Object.assign(qs, {
        attempt: qs.attempt + 1,
        workflowState: preview ? 'preview' : 'untaken',
        wasPreview: preview,
        score: null,
        fudgePoints: null,
        questionScores: null,
        startedAt,
        finishedAt: null,
        endAt: this.endAt(quiz, qs, startedAt, preview),
        validationToken: randomBytes(32).toString('hex'),
      });
      return { quizSubmission: await repo.save(qs) };
    });
  }

  /** POST …/submissions/:id/complete: turns the current attempt in and scores it. */
  async complete(
    courseRaw: string | null | undefined,
    quizRaw: string,
    raw: string,
    input: { attempt?: string | number | null; validationToken?: string | null; accessCode?: string | null },
  ): Promise<{ quizSubmission: QuizSubmission }> {
    const { course, quiz } = await this.ctx.use(QuizService).find(courseRaw, quizRaw);
    const viewer = this.ctx.authz.requireViewer();
    const qs = await this.inQuiz(quiz, raw);
    const preview = qs.wasPreview;
    if (!preview && !(await this.access.isStudent(course))) throw reject('you are not allowed to complete this quiz submission', 403);
    if (!preview) this.assertTakeable(quiz, qs, input.accessCode, true);
    if (qs.userId !== viewer.id || !input.validationToken || input.validationToken !== qs.validationToken) throw reject('invalid token', 403);
    if (qs.workflowState !== 'untaken' && qs.workflowState !== 'preview') throw reject('quiz submission is already complete', 400);
    if (qs.workflowState === 'preview' && qs.finishedAt) throw reject('quiz submission is already complete', 400);
    const attempt = input.attempt == null ? NaN : Number(input.attempt);
    if (!Number.isInteger(attempt)) throw reject('invalid attempt', 400);
    if (!preview && attempt !== qs.attempt) throw reject(`attempt ${attempt} can not be modified`, 400);

    return transaction(this.ctx.ds, async (em) => {
      const row = await em.getRepository(QuizSubmission).findOneByOrFail({ id: qs.id });
      const finishedAt = nowToSecond();
      // No question is scored automatically here: an attempt scores what manual scoring gives it.
      Object.assign(row, { finishedAt, workflowState: preview ? 'preview' : 'complete', score: sum(parseScores(row.questionScores)) + (row.fudgePoints ?? 0) });
      if (preview) {
        await em.getRepository(QuizSubmission).save(row);
        return { quizSubmission: row };
      }
      await em.getRepository(QuizSubmissionAttempt).save(
        em.getRepository(QuizSubmissionAttempt).create({
          quizSubmissionId: row.id,
          attempt: row.attempt,
          workflowState: 'complete',
          score: row.score,
          fudgePoints: row.fudgePoints,
          questionScores: row.questionScores,
          startedAt: row.startedAt,
          finishedAt,
          endAt: row.endAt,
        }),
      );
      row.keptScore = await this.keptScore(em, quiz, row);
      await this.writeAssignment(em, quiz, row, true);
      await em.getRepository(QuizSubmission).save(row);
      await raise(em, this.ctx, { type: 'quiz_submission.completed', courseId: course.id, quizId: quiz.id, userId: row.userId, quizSubmissionId: row.id, score: row.score });
      return { quizSubmission: row };
    });
  }

  /** The score that counts: the highest of all attempts, or the latest one, per the quiz's policy. */
  private async keptScore(em: EntityManager, quiz: Quiz, qs: QuizSubmission): Promise<number | null> {
    const attempts = await em.getRepository(QuizSubmissionAttempt).find({ where: { quizSubmissionId: qs.id }, order: { attempt: 'ASC' } });
    const scored = attempts.filter((a) => a.score != null);
    if (!scored.length) return null;
    if (quiz.scoringPolicy === 'keep_latest') return scored[scored.length - 1].score;
    return Math.max(...scored.map((a) => a.score!));
  }

  /** A graded quiz's result goes to its assignment submission, as Canvas's quiz submissions do. */
  private async writeAssignment(em: EntityManager, quiz: Quiz, qs: QuizSubmission, newAttempt: boolean): Promise<void> {
    if (!quiz.assignmentId) return;
    const assignment = await em.getRepository(Assignment).findOneBy({ id: quiz.assignmentId });
    if (!assignment || assignment.workflowState === 'deleted') return;
    // The latest turned-in attempt, even while a newer one is in progress.
    const latest = await em.getRepository(QuizSubmissionAttempt).findOne({ where: { quizSubmissionId: qs.id }, order: { attempt: 'DESC' } });
    if (!latest) return;
    const s = await this.ctx.use(SubmissionService).recordQuizResult(em, assignment, qs.userId, {
      attempt: latest.attempt,
      submittedAt: latest.finishedAt,
      score: qs.keptScore,
      quizSubmissionId: qs.id,
      pendingReview: qs.workflowState === 'pending_review',
      newAttempt,
    });
    qs.submissionId = s.id;
  }

  // ---- manual scoring ---------------------------------------------------------------------------

  /** PUT …/quizzes/:quiz_id/submissions/:id: fudge points and question scores for a completed attempt. */
  async updateScores(courseRaw: string | null | undefined, quizRaw: string, raw: string, input: ScoreInput): Promise<{ quizSubmission: QuizSubmission }> {
    const { course, quiz } = await this.ctx.use(QuizService).find(courseRaw, quizRaw);
    const qs = await this.inQuiz(quiz, raw);
    if (!(await this.access.can(course, 'manage_grades'))) throw reject('you are not allowed to update scores for this quiz submission', 403);
    if (input.attempt == null || !Number.isInteger(input.attempt)) throw reject('invalid attempt', 400);
    const snapshot = await this.ctx.ds.getRepository(QuizSubmissionAttempt).findOneBy({ quizSubmissionId: qs.id, attempt: input.attempt });
    const current = input.attempt === qs.attempt;
    if (!snapshot && !current) throw reject('invalid attempt', 400);
    if (!snapshot || (current && !qs.completed)) throw reject('quiz submission attempt must be complete', 400);
    const scores = parseScores(snapshot.questionScores);
    let changed = false;
    for (const q of input.questions ?? []) {
      if (q.score == null) continue;
      if (!Number.isFinite(q.score)) throw reject('question score must be an unsigned decimal', 400);
      scores[String(q.questionId)] = q.score;
      changed = true;
    }
    if (input.fudgePoints != null) changed = true;
    if (!changed) return { quizSubmission: qs };

    return transaction(this.ctx.ds, async (em) => {
      const snap = await em.getRepository(QuizSubmissionAttempt).findOneByOrFail({ id: snapshot.id });
      if (input.fudgePoints != null) snap.fudgePoints = input.fudgePoints;
      snap.questionScores = Object.keys(scores).length ? JSON.stringify(scores) : null;
      snap.score = sum(scores) + (snap.fudgePoints ?? 0);
      await em.getRepository(QuizSubmissionAttempt).save(snap);
      const row = await em.getRepository(QuizSubmission).findOneByOrFail({ id: qs.id });
      if (current) Object.assign(row, { fudgePoints: snap.fudgePoints, questionScores: snap.questionScores, score: snap.score });
      row.keptScore = await this.keptScore(em, quiz, row);
      await this.writeAssignment(em, quiz, row, false);
      await em.getRepository(QuizSubmission).save(row);
      await raise(em, this.ctx, { type: 'quiz_submission.scored', courseId: course.id, quizId: quiz.id, userId: row.userId, quizSubmissionId: row.id, score: row.keptScore });
      return { quizSubmission: row };
    });
  }

  // ---- reads ------------------------------------------------------------------------------------

  /** GET …/submissions/:id: the taker, their observers and the course's graders. */
  async show(courseRaw: string | null | undefined, quizRaw: string, raw: string): Promise<QuizSubmission> {
    const { course, quiz } = await this.ctx.use(QuizService).find(courseRaw, quizRaw);
    const qs = await this.inQuiz(quiz, raw);
    if (!(await this.canRead(course, qs))) throw reject('you are not allowed to view this quiz submission', 403);
    return qs;
  }

  private async canRead(course: Course, qs: QuizSubmission): Promise<boolean> {
    const scope = await this.access.workScope(course);
    return scope.all || scope.userIds.has(qs.userId);
  }

  /**
   * GET …/submissions: graders see every current student's submission; a student sees their attempt
   * in progress, or else every attempt they turned in; anyone else is refused.
   */
  async list(quiz: Quiz, args: { first?: number | null; after?: string | null }): Promise<ConnectionResult<QuizSubmission>> {
    const course = await this.access.courseOf(quiz.courseId);
    const page = await this.ctx.use(QuizSubmissionPages).page(quiz, await this.access.isGrader(course), args);
    if (page == null) throw new ForbiddenError();
    return page;
  }

  /** Attempts the student may still start (null when unlimited). */
  attemptsLeft(quiz: Quiz, qs: QuizSubmission): number | null {
    const allowed = this.allowed(quiz, qs);
    return allowed == null ? null : Math.max(0, allowed - qs.attempt);
  }
}

/**
 * When an attempt started at `startedAt` must end: the time limit plus the student's extra time, capped
 * at the lock date unless manually unlocked (staff are never capped), as Canvas's build_submission_end_at.
 */
export function attemptEndAt(quiz: Quiz, qs: Pick<QuizSubmission, 'extraTime' | 'manuallyUnlocked'>, startedAt: Date, staff: boolean): Date | null {
  let end: Date | null = quiz.timeLimit ? new Date(startedAt.getTime() + (quiz.timeLimit + (qs.extraTime ?? 0)) * 60_000) : null;
  if (!staff && quiz.lockAt && !qs.manuallyUnlocked && (!end || quiz.lockAt < end)) end = quiz.lockAt;
  return end;
}
