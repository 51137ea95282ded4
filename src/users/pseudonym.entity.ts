import { Entity, Index } from 'typeorm';
import { IntColumn, NullableString, StringColumn, Timestamped } from '../db/columns';

/** A login of a user in a root account (Canvas's pseudonym). unique_id is usually an e-mail. */
@Entity('pseudonyms')
@Index(['accountId', 'uniqueIdNormalized'], { unique: true })
@Index(['accountId', 'sisUserId'])
@Index(['accountId', 'sortableName', 'userId', 'workflowState'])
// The account's users by id (Canvas's sort=id, bookmarked pages).
@Index(['accountId', 'userId', 'workflowState'])
export class Pseudonym extends Timestamped {
  @Index()
  @IntColumn()
  userId: number;

  @IntColumn()
  accountId: number;

  @StringColumn()
  uniqueId: string;

  /** Lower-cased unique_id: logins are unique case-insensitively, as in Canvas. */
  @StringColumn()
  uniqueIdNormalized: string;

  @NullableString()
  sisUserId: string | null;

  @NullableString()
  integrationId: string | null;

  @StringColumn(32, { default: 'active' })
  workflowState: string;

  /** The user's sortable name, copied when the login is created: an account's users page by it from an index. */
  @StringColumn(255, { default: '' })
  sortableName: string;
}
