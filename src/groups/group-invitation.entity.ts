import { Entity, Index } from 'typeorm';
import { IntColumn, StringColumn, Timestamped } from '../db/columns';

/**
 * An invitation to an address that matched no user. It is kept until someone with that login
 * appears, who then finds an invited membership waiting.
 */
@Entity('group_invitations')
@Index(['groupId', 'email'], { unique: true })
@Index(['email'])
export class GroupInvitation extends Timestamped {
  @IntColumn()
  groupId: number;

  /** Lower-cased address. */
  @StringColumn()
  email: string;

  @IntColumn()
  invitedById: number;

  @StringColumn(16, { default: 'pending' })
  workflowState: 'pending' | 'accepted';
}
