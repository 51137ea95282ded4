import { Entity, Index } from 'typeorm';
import { DateTimeColumn, IntColumn, NullableInt, StringColumn, Timestamped } from '../db/columns';

/** Only a keyed hash of the token and a 5-character hint are stored, as in Canvas. */
@Entity('access_tokens')
export class AccessToken extends Timestamped {
  @Index()
  @IntColumn()
  userId: number;

  @Index({ unique: true })
  @StringColumn(64)
  cryptedToken: string;

  @StringColumn(8)
  tokenHint: string;

  @StringColumn()
  purpose: string;

  @DateTimeColumn()
  expiresAt: Date | null;

  @DateTimeColumn()
  lastUsedAt: Date | null;

  /** active | pending | deleted */
  @StringColumn(32, { default: 'active' })
  workflowState: string;

  /** The admin who created the token for someone else. */
  @NullableInt()
  realUserId: number | null;

  isExpired(now = new Date()): boolean {
    return this.expiresAt != null && this.expiresAt.getTime() <= now.getTime();
  }
}
