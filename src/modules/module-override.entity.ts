import { Entity, Index } from 'typeorm';
import { IntColumn, NullableInt, StringColumn, TextColumn, Timestamped } from '../db/columns';

/**
 * An assignment override on a module: it limits the module to a section or an ad-hoc set of
 * students (or a differentiation tag). A module with overrides is visible only to its targets.
 */
@Entity('module_overrides')
@Index(['moduleId', 'workflowState', 'id'])
export class ModuleOverride extends Timestamped {
  @IntColumn()
  courseId: number;

  @IntColumn()
  moduleId: number;

  @StringColumn()
  title: string;

  @NullableInt()
  courseSectionId: number | null;

  @NullableInt()
  groupId: number | null;

  /** JSON array of student ids for an ad-hoc override. */
  @TextColumn()
  studentIds: string | null;

  @StringColumn(16, { default: 'active' })
  workflowState: 'active' | 'deleted';

  get students(): number[] {
    return this.studentIds ? (JSON.parse(this.studentIds) as number[]) : [];
  }
}
