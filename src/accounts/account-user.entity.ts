import { Entity, Index } from 'typeorm';
import { IntColumn, StringColumn, Timestamped } from '../db/columns';

/** An account admin. Admins of a root account are site admins. */
@Entity('account_users')
@Index(['accountId', 'userId', 'role'], { unique: true })
export class AccountUser extends Timestamped {
  @IntColumn()
  accountId: number;

  @Index()
  @IntColumn()
  userId: number;

  @StringColumn(64, { default: 'AccountAdmin' })
  role: string;

  @StringColumn(32, { default: 'active' })
  workflowState: string;
}
