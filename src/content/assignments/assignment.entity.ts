import { Entity, Index } from 'typeorm';
import { DateTimeColumn, IntColumn, StringColumn, TextColumn, Timestamped } from '../../db/columns';
import { NullableDouble } from '../content-columns';

export const GRADING_TYPES = ['pass_fail', 'percent', 'letter_grade', 'gpa_scale', 'points', 'not_graded'] as const;
export type GradingType = (typeof GRADING_TYPES)[number];

/** Canvas's accepted assignment submission types. */
export const SUBMISSION_TYPES = [
  'online_quiz',
  'none',
  'on_paper',
  'discussion_topic',
  'external_tool',
  'online_upload',
  'online_text_entry',
  'online_url',
  'media_recording',
  'student_annotation',
  'not_graded',
] as const;

export type AssignmentState = 'published' | 'unpublished' | 'deleted';

@Entity('assignments')
@Index(['courseId', 'workflowState'])
// Planner date windows and the calendar's key set pages (migrations/1732000016000-CalendarListIndexes.ts).
@Index(['courseId', 'workflowState', 'dueAt', 'id'])
export class Assignment extends Timestamped {
  @IntColumn()
  courseId: number;

  @StringColumn()
  name: string;

  @TextColumn()
  description: string | null;

  @NullableDouble()
  pointsPossible: number | null;

  @StringColumn(32, { default: 'points' })
  gradingType: GradingType;

  /** Comma-separated, as Canvas stores them. */
  @StringColumn(255, { default: 'none' })
  submissionTypes: string;

  @DateTimeColumn()
  dueAt: Date | null;

  @DateTimeColumn()
  unlockAt: Date | null;

  @DateTimeColumn()
  lockAt: Date | null;

  @IntColumn({ default: 1 })
  position: number;

  @StringColumn(32, { default: 'unpublished' })
  workflowState: AssignmentState;

  get types(): string[] {
    return this.submissionTypes ? this.submissionTypes.split(',').filter(Boolean) : [];
  }

  get published(): boolean {
    return this.workflowState === 'published';
  }
}
