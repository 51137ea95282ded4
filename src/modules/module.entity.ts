import { Entity, Index } from 'typeorm';
import { BoolColumn, DateTimeColumn, IntColumn, NullableInt, StringColumn, TextColumn, Timestamped } from '../db/columns';

/** Stored states: active (published), unpublished, deleted. The API shows active/deleted plus `published`. */
export type ModuleWorkflow = 'active' | 'unpublished' | 'deleted';

@Entity('context_modules')
@Index(['courseId', 'workflowState', 'position'])
// Module lists page in this order (position, id) with LIMIT after a key; the visibility rule reads the state.
@Index(['courseId', 'position', 'id', 'workflowState'])
export class ContextModule extends Timestamped {
  @IntColumn()
  courseId: number;

  @StringColumn()
  name: string;

  @IntColumn()
  position: number;

  @DateTimeColumn()
  unlockAt: Date | null;

  @BoolColumn(false)
  requireSequentialProgress: boolean;

  /** 1 means requirement_type "one"; null means "all". */
  @NullableInt()
  requirementCount: number | null;

  @BoolColumn(false)
  publishFinalGrade: boolean;

  /** JSON array of prerequisite module ids. */
  @TextColumn()
  prerequisites: string | null;

  @StringColumn(16, { default: 'unpublished' })
  workflowState: ModuleWorkflow;

  @DateTimeColumn()
  deletedAt: Date | null;

  get published(): boolean {
    return this.workflowState === 'active';
  }

  get prerequisiteIds(): number[] {
    return this.prerequisites ? (JSON.parse(this.prerequisites) as number[]) : [];
  }

  get requirementType(): 'all' | 'one' {
    return this.requirementCount === 1 ? 'one' : 'all';
  }
}
