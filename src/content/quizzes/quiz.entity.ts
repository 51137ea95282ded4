import { Entity, Index } from 'typeorm';
import { BoolColumn, DateTimeColumn, IntColumn, NullableInt, NullableString, StringColumn, TextColumn, Timestamped } from '../../db/columns';
import { NullableDouble } from '../content-columns';

export const QUIZ_TYPES = ['practice_quiz', 'assignment', 'graded_survey', 'survey'] as const;
export type QuizType = (typeof QUIZ_TYPES)[number];
/** Quiz types that are graded through a backing assignment. */
export const GRADED_QUIZ_TYPES: ReadonlySet<string> = new Set(['assignment', 'graded_survey']);
export const SCORING_POLICIES = ['keep_highest', 'keep_latest'] as const;

export type QuizState = 'unpublished' | 'available' | 'deleted';

@Entity('quizzes')
@Index(['courseId', 'workflowState'])
// Planner date windows (migrations/1732000009000-Planner.ts).
@Index(['courseId', 'workflowState', 'dueAt'])
export class Quiz extends Timestamped {
  @IntColumn()
  courseId: number;

  @StringColumn()
  title: string;

  @TextColumn()
  description: string | null;

  @StringColumn(32, { default: 'assignment' })
  quizType: QuizType;

  /** The backing assignment of a graded quiz. */
  @Index()
  @NullableInt()
  assignmentId: number | null;

  /** Minutes; null for none. */
  @NullableInt()
  timeLimit: number | null;

  /** -1 for unlimited. */
  @IntColumn({ default: 1 })
  allowedAttempts: number;

  @StringColumn(32, { default: 'keep_highest' })
  scoringPolicy: string;

  @BoolColumn(false)
  shuffleAnswers: boolean;

  @NullableString()
  accessCode: string | null;

  @NullableDouble()
  pointsPossible: number | null;

  @DateTimeColumn()
  dueAt: Date | null;

  @DateTimeColumn()
  unlockAt: Date | null;

  @DateTimeColumn()
  lockAt: Date | null;

  @StringColumn(32, { default: 'unpublished' })
  workflowState: QuizState;

  get published(): boolean {
    return this.workflowState === 'available';
  }

  get graded(): boolean {
    return GRADED_QUIZ_TYPES.has(this.quizType);
  }

  get unlimitedAttempts(): boolean {
    return this.allowedAttempts === -1;
  }
}
