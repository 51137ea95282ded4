import { Column, Entity, Index } from 'typeorm';
import { IntColumn, NullableInt, NullableString, StringColumn, Timestamped } from '../db/columns';
import type { RequirementType } from './progression-evaluator';

/** Item types as the API names them. */
export const ITEM_TYPES = ['File', 'Page', 'Discussion', 'Assignment', 'Quiz', 'SubHeader', 'ExternalUrl', 'ExternalTool'] as const;
export type ItemType = (typeof ITEM_TYPES)[number];

/** A module item (Canvas's content tag). */
@Entity('module_items')
@Index(['courseId', 'contentType', 'contentId'])
// Item lists page in this order (position, id) with LIMIT after a key; the visibility rule reads the rest.
@Index(['moduleId', 'position', 'id', 'workflowState', 'contentType', 'contentId'])
export class ModuleItem extends Timestamped {
  @IntColumn()
  courseId: number;

  @IntColumn()
  moduleId: number;

  @StringColumn(16)
  contentType: ItemType;

  @NullableInt()
  contentId: number | null;

  @StringColumn()
  title: string;

  @IntColumn({ default: 0 })
  indent: number;

  @IntColumn()
  position: number;

  /** ExternalUrl / ExternalTool target. */
  @NullableString(2048)
  url: string | null;

  @Column({ type: 'boolean', nullable: true })
  newTab: boolean | null;

  @NullableInt()
  iframeWidth: number | null;

  @NullableInt()
  iframeHeight: number | null;

  @NullableString(32)
  requirementType: RequirementType | null;

  @Column({ type: 'double', nullable: true })
  requirementMinScore: number | null;

  @Column({ type: 'double', nullable: true })
  requirementMinPercentage: number | null;

  /** active (published), unpublished, deleted. */
  @StringColumn(16, { default: 'unpublished' })
  workflowState: 'active' | 'unpublished' | 'deleted';

  get published(): boolean {
    return this.workflowState === 'active';
  }
}
