import { Entity, Index } from 'typeorm';
import { NullableString, StringColumn, Timestamped } from '../db/columns';

@Entity('users')
// Whether any user is deleted, in one probe (a group's users are counted without a join while none is).
@Index(['workflowState'])
export class User extends Timestamped {
  @StringColumn()
  name: string;

  @StringColumn()
  shortName: string;

  @StringColumn()
  sortableName: string;

  /** registered | pre_registered | deleted */
  @StringColumn(32, { default: 'registered' })
  workflowState: string;

  @StringColumn(40)
  uuid: string;

  @NullableString(64)
  timeZone: string | null;

  @NullableString(16)
  locale: string | null;

  @NullableString(1024)
  avatarImageUrl: string | null;
}
