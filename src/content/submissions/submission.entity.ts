import { Entity, Index } from 'typeorm';
import { BoolColumn, DateTimeColumn, IntColumn, NullableInt, NullableString, StringColumn, TextColumn, Timestamped } from '../../db/columns';
import { NullableDouble } from '../content-columns';

export type SubmissionState = 'unsubmitted' | 'submitted' | 'pending_review' | 'graded';

/** One student's submission for one assignment: its latest attempt and its grade. */
@Entity('submissions')
@Index(['assignmentId', 'userId'], { unique: true })
@Index(['userId', 'workflowState'])
export class Submission extends Timestamped {
  @IntColumn()
  assignmentId: number;

  @IntColumn()
  userId: number;

  @Index()
  @IntColumn()
  courseId: number;

  @StringColumn(32, { default: 'unsubmitted' })
  workflowState: SubmissionState;

  @NullableString(32)
  submissionType: string | null;

  @TextColumn()
  body: string | null;

  @NullableString(2048)
  url: string | null;

  /** Comma-separated attachment ids of an online_upload. */
  @TextColumn()
  attachmentIds: string | null;

  @NullableInt()
  attempt: number | null;

  @DateTimeColumn()
  submittedAt: Date | null;

  @NullableDouble()
  score: number | null;

  @NullableString()
  grade: string | null;

  @DateTimeColumn()
  gradedAt: Date | null;

  @NullableInt()
  graderId: number | null;

  @BoolColumn(false)
  excused: boolean;

  /** late, missing or none (a teacher's override of the computed status); null when not set. */
  @NullableString(16)
  latePolicyStatus: string | null;

  /** False once the student submits again after being graded. */
  @BoolColumn(true)
  gradeMatchesCurrentSubmission: boolean;

  @NullableInt()
  quizSubmissionId: number | null;

  get fileIds(): number[] {
    return this.attachmentIds ? this.attachmentIds.split(',').filter(Boolean).map(Number) : [];
  }
}
