import { Entity, Index } from 'typeorm';
import { BoolColumn, DateTimeColumn, IntColumn, NullableInt, StringColumn, TextColumn, Timestamped } from '../../db/columns';

export type PageState = 'active' | 'unpublished' | 'deleted';

/** A course wiki page; `url` is its slug, unique among the course's live pages. */
@Entity('wiki_pages')
@Index(['courseId', 'url'])
@Index(['courseId', 'workflowState'])
// Planner date windows (migrations/1732000009000-Planner.ts).
@Index(['courseId', 'workflowState', 'todoDate'])
export class WikiPage extends Timestamped {
  @IntColumn()
  courseId: number;

  @StringColumn()
  title: string;

  @StringColumn()
  url: string;

  @TextColumn()
  body: string | null;

  @StringColumn(32, { default: 'unpublished' })
  workflowState: PageState;

  @StringColumn(255, { default: 'teachers' })
  editingRoles: string;

  @BoolColumn(false)
  frontPage: boolean;

  /** Written as student_todo_at, read as todo_date. */
  @DateTimeColumn()
  todoDate: Date | null;

  /** Who last edited the page. */
  @NullableInt()
  userId: number | null;

  get published(): boolean {
    return this.workflowState === 'active';
  }
}
