import { Entity, Index } from 'typeorm';
import { BoolColumn, DateTimeColumn, IntColumn, NullableInt, NullableString, StringColumn, TextColumn, Timestamped } from '../../db/columns';
import { NullableDouble } from '../content-columns';

export type QuizSubmissionState = 'untaken' | 'pending_review' | 'complete' | 'settings_only' | 'preview';

/** The columns QuizSubmission.draft fills when not given. */
type QuizSubmissionDefaulted =
  | 'submissionId'
  | 'attempt'
  | 'workflowState'
  | 'score'
  | 'keptScore'
  | 'fudgePoints'
  | 'questionScores'
  | 'startedAt'
  | 'finishedAt'
  | 'endAt'
  | 'extraAttempts'
  | 'extraTime'
  | 'manuallyUnlocked'
  | 'validationToken'
  | 'wasPreview';

/**
 * One person's submission for one quiz, as Canvas keeps it: a single row whose attempt advances,
 * with the current attempt's state, the kept score, and the per-student extension settings
 * (extra_attempts, extra_time, manually_unlocked, end_at) that course quiz extensions set.
 */
@Entity('quiz_submissions')
@Index(['quizId', 'userId'], { unique: true })
export class QuizSubmission extends Timestamped {
  @IntColumn()
  quizId: number;

  @Index()
  @IntColumn()
  userId: number;

  /** The backing assignment submission (graded quizzes). */
  @NullableInt()
  submissionId: number | null;

  /** 0 until the first attempt starts. */
  @IntColumn({ default: 0 })
  attempt: number;

  @StringColumn(32, { default: 'settings_only' })
  workflowState: QuizSubmissionState;

  @NullableDouble()
  score: number | null;

  @NullableDouble()
  keptScore: number | null;

  @NullableDouble()
  fudgePoints: number | null;

  /** JSON object of question id → manually set score for the current attempt. */
  @TextColumn()
  questionScores: string | null;

  @DateTimeColumn()
  startedAt: Date | null;

  @DateTimeColumn()
  finishedAt: Date | null;

  @DateTimeColumn()
  endAt: Date | null;

  @NullableInt()
  extraAttempts: number | null;

  @NullableInt()
  extraTime: number | null;

  @BoolColumn(false)
  manuallyUnlocked: boolean;

  @NullableString(64)
  validationToken: string | null;

  @BoolColumn(false)
  wasPreview: boolean;

  /**
   * A new row with the column defaults (settings only, no attempt started, no extension), as Canvas's
   * find_or_create_submission makes it; `fields` sets the rest.
   */
  static draft(fields: Pick<QuizSubmission, 'quizId' | 'userId'> & Partial<Pick<QuizSubmission, QuizSubmissionDefaulted>>): QuizSubmission {
    return Object.assign(new QuizSubmission(), {
      submissionId: null,
      attempt: 0,
      workflowState: 'settings_only',
      score: null,
      keptScore: null,
      fudgePoints: null,
      questionScores: null,
      startedAt: null,
      finishedAt: null,
      endAt: null,
      extraAttempts: null,
      extraTime: null,
      manuallyUnlocked: false,
      validationToken: null,
      wasPreview: false,
      ...fields,
    });
  }

  get completed(): boolean {
    return this.workflowState === 'complete' || this.workflowState === 'pending_review';
  }

  get timeSpent(): number | null {
    return this.startedAt && this.finishedAt ? Math.round((this.finishedAt.getTime() - this.startedAt.getTime()) / 1000) : null;
  }
}

/** A completed attempt as it was turned in (and later scored): Canvas's quiz submission versions. */
@Entity('quiz_submission_attempts')
@Index(['quizSubmissionId', 'attempt'], { unique: true })
export class QuizSubmissionAttempt extends Timestamped {
  @IntColumn()
  quizSubmissionId: number;

  @IntColumn()
  attempt: number;

  @StringColumn(32, { default: 'complete' })
  workflowState: QuizSubmissionState;

  @NullableDouble()
  score: number | null;

  @NullableDouble()
  fudgePoints: number | null;

  @TextColumn()
  questionScores: string | null;

  @DateTimeColumn()
  startedAt: Date | null;

  @DateTimeColumn()
  finishedAt: Date | null;

  @DateTimeColumn()
  endAt: Date | null;
}
