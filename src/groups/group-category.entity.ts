import { Entity, Index } from 'typeorm';
import { BoolColumn, DateTimeColumn, IntColumn, NullableInt, NullableString, StringColumn, Timestamped } from '../db/columns';

export type ContextType = 'Course' | 'Account';
/** Built-in category roles; regular categories have none. */
export type CategoryRole = 'student_organized' | 'communities' | 'imported';

@Entity('group_categories')
@Index(['contextType', 'contextId'])
export class GroupCategory extends Timestamped {
  @StringColumn(16)
  contextType: ContextType;

  @IntColumn()
  contextId: number;

  @IntColumn()
  rootAccountId: number;

  @StringColumn()
  name: string;

  @NullableString(32)
  role: CategoryRole | null;

  /** null (off), enabled or restricted (members must share a section). */
  @NullableString(16)
  selfSignup: 'enabled' | 'restricted' | null;

  @NullableInt()
  groupLimit: number | null;

  @NullableString(16)
  autoLeader: 'first' | 'random' | null;

  /** Differentiation tags: managed with manage_tags, no collaborative features. */
  @BoolColumn(false)
  nonCollaborative: boolean;

  @NullableString()
  sisGroupCategoryId: string | null;

  @NullableInt()
  sisImportId: number | null;

  @StringColumn(16, { default: 'active' })
  workflowState: 'active' | 'deleted';

  @DateTimeColumn()
  deletedAt: Date | null;

  /** Student-organized and community categories let a user be in several of their groups. */
  get allowsMultipleMemberships(): boolean {
    return this.role === 'student_organized' || this.role === 'communities';
  }

  get isProtected(): boolean {
    return this.role != null;
  }

  get isCommunities(): boolean {
    return this.role === 'communities';
  }
}
