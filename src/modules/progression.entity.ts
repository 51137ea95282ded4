import { Entity, Index } from 'typeorm';
import { BoolColumn, DateTimeColumn, IntColumn, NullableInt, StringColumn, TextColumn, Timestamped } from '../db/columns';
import type { MetRequirement, ModuleState } from './progression-evaluator';

/** A student's standing in a module, stored so reads are cheap; re-evaluated when stale. */
@Entity('module_progressions')
@Index(['moduleId', 'userId'], { unique: true })
@Index(['courseId', 'userId'])
export class ModuleProgression extends Timestamped {
  @IntColumn()
  courseId: number;

  @IntColumn()
  moduleId: number;

  @IntColumn()
  userId: number;

  @StringColumn(16, { default: 'locked' })
  state: ModuleState;

  /** JSON array of {id, type}: requirements met and actions recorded (views, contributions, done). */
  @TextColumn()
  requirementsMet: string | null;

  @DateTimeColumn()
  completedAt: Date | null;

  @NullableInt()
  currentPosition: number | null;

  /** JSON array of item ids locked by sequential progress. */
  @TextColumn()
  lockedItems: string | null;

  /** Set when the module or the student's work changed; the next read re-evaluates. */
  @BoolColumn(true)
  stale: boolean;

  get met(): MetRequirement[] {
    return this.requirementsMet ? (JSON.parse(this.requirementsMet) as MetRequirement[]) : [];
  }

  get lockedItemIds(): number[] {
    return this.lockedItems ? (JSON.parse(this.lockedItems) as number[]) : [];
  }
}
