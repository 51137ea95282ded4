import { Entity, Index } from 'typeorm';
import { BoolColumn, IntColumn, NullableInt, StringColumn, Timestamped } from '../db/columns';

export const MEMBERSHIP_STATES = ['accepted', 'invited', 'requested', 'rejected', 'deleted'] as const;
export type MembershipState = (typeof MEMBERSHIP_STATES)[number];
/** States a membership list can be filtered to; rejected and deleted rows are never listed. */
export const LISTED_STATES: MembershipState[] = ['accepted', 'invited', 'requested'];

/** One row per user and group; leaving or removal marks it deleted and a later join revives it. */
@Entity('group_memberships')
@Index(['groupId', 'userId'], { unique: true })
@Index(['userId', 'workflowState'])
@Index(['groupId', 'sortableName', 'userId', 'workflowState'])
@Index(['groupId', 'id', 'workflowState'])
export class GroupMembership extends Timestamped {
  @IntColumn()
  groupId: number;

  @IntColumn()
  userId: number;

  @StringColumn(16)
  workflowState: MembershipState;

  /** The member's sortable name, copied at creation: a group's users page by it from an index. */
  @StringColumn(255, { default: '' })
  sortableName: string;

  @BoolColumn(false)
  moderator: boolean;

  @NullableInt()
  sisImportId: number | null;

  get isAccepted(): boolean {
    return this.workflowState === 'accepted';
  }

  get isLive(): boolean {
    return this.workflowState !== 'deleted' && this.workflowState !== 'rejected';
  }
}
