import { Entity, Index } from 'typeorm';
import { BoolColumn, DateTimeColumn, IntColumn, NullableInt, NullableString, StringColumn, TextColumn, Timestamped } from '../db/columns';
import type { ContextType } from './group-category.entity';

export const JOIN_LEVELS = ['parent_context_auto_join', 'parent_context_request', 'invitation_only'] as const;
export type JoinLevel = (typeof JOIN_LEVELS)[number];

/** Canvas's default group quota. */
export const DEFAULT_GROUP_QUOTA_MB = 50;

/** Fields a user's change makes "sticky" against SIS updates (override_sis_stickiness). */
export const STICKY_FIELDS = ['name', 'description'] as const;

@Entity('groups')
@Index(['contextType', 'contextId'])
@Index(['rootAccountId', 'sisGroupId'])
@Index(['contextType', 'contextId', 'groupCategoryId', 'name', 'id', 'workflowState', 'nonCollaborative'])
@Index(['groupCategoryId', 'name', 'id', 'workflowState', 'nonCollaborative'])
export class Group extends Timestamped {
  @StringColumn(16)
  contextType: ContextType;

  @IntColumn()
  contextId: number;

  @IntColumn()
  rootAccountId: number;

  @Index()
  @IntColumn()
  groupCategoryId: number;

  @StringColumn()
  name: string;

  @TextColumn()
  description: string | null;

  @BoolColumn(false)
  isPublic: boolean;

  @StringColumn(32, { default: 'invitation_only' })
  joinLevel: JoinLevel;

  @NullableInt()
  maxMembership: number | null;

  @NullableInt()
  storageQuotaMb: number | null;

  @NullableInt()
  avatarAttachmentId: number | null;

  @NullableInt()
  leaderId: number | null;

  @NullableString()
  sisGroupId: string | null;

  @NullableInt()
  sisImportId: number | null;

  @BoolColumn(false)
  nonCollaborative: boolean;

  /** JSON array of field names changed through the API on an SIS-managed group. */
  @TextColumn()
  stickyFields: string | null;

  @StringColumn(16, { default: 'available' })
  workflowState: 'available' | 'deleted';

  @DateTimeColumn()
  deletedAt: Date | null;

  get quotaMb(): number {
    return this.storageQuotaMb ?? DEFAULT_GROUP_QUOTA_MB;
  }

  get sticky(): Set<string> {
    return new Set(this.stickyFields ? (JSON.parse(this.stickyFields) as string[]) : []);
  }
}
