import { Entity, Index } from 'typeorm';
import { BoolColumn, DateTimeColumn, IntColumn, StringColumn, Timestamped } from '../db/columns';

export type PlannerOverrideState = 'active' | 'unpublished' | 'deleted';

/**
 * How one user wants one plannable shown on their planner (marked complete, dismissed). One row per
 * (user, plannable) whatever its state, as Canvas's uniqueness rule; plannable_type is stored as the
 * planner's snake-case name (assignment, quiz, discussion_topic, announcement, wiki_page, planner_note).
 */
@Entity('planner_overrides')
@Index(['userId', 'plannableType', 'plannableId'], { unique: true })
@Index(['plannableType', 'plannableId'])
@Index(['userId', 'workflowState', 'id'])
export class PlannerOverride extends Timestamped {
  @IntColumn()
  userId: number;

  @StringColumn(32)
  plannableType: string;

  @IntColumn()
  plannableId: number;

  @BoolColumn(false)
  markedComplete: boolean;

  @BoolColumn(false)
  dismissed: boolean;

  /** Follows the plannable: active (published), unpublished, deleted (the object's or this row's deletion). */
  @StringColumn(16, { default: 'active' })
  workflowState: PlannerOverrideState;

  @DateTimeColumn()
  deletedAt: Date | null;
}
