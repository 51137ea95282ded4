import { Entity, Index } from 'typeorm';
import { DateTimeColumn, IntColumn, NullableInt, NullableString, StringColumn, TextColumn, Timestamped } from '../db/columns';

export type PlannerNoteState = 'active' | 'deleted';

/** A user's note to self on the planner, optionally tied to a course and to one learning object there. */
@Entity('planner_notes')
@Index(['userId', 'workflowState', 'todoDate'])
@Index(['userId', 'linkedObjectType', 'linkedObjectId'])
// The page (by id) and its total (rel="last", totalCount), which leaves out notes of deleted courses,
// both read the note's course from this index instead of its row.
@Index(['userId', 'workflowState', 'id', 'courseId'])
export class PlannerNote extends Timestamped {
  @IntColumn()
  userId: number;

  @NullableInt()
  courseId: number | null;

  @StringColumn()
  title: string;

  /** The note text: `details` in Canvas's input and output, `description` in the team spec. */
  @TextColumn()
  details: string | null;

  @DateTimeColumn({ nullable: false })
  todoDate: Date;

  @StringColumn(16, { default: 'active' })
  workflowState: PlannerNoteState;

  /** Planner name of the linked object: assignment, quiz, discussion_topic or wiki_page. */
  @NullableString(32)
  linkedObjectType: string | null;

  @NullableInt()
  linkedObjectId: number | null;
}
