import { Entity, Index } from 'typeorm';
import { NullableInt, NullableString, StringColumn, Timestamped } from '../db/columns';

@Entity('accounts')
export class Account extends Timestamped {
  @StringColumn()
  name: string;

  @Index()
  @NullableInt()
  parentAccountId: number | null;

  /** Null for a root account; otherwise the root of its chain. */
  @NullableInt()
  rootAccountId: number | null;

  @StringColumn(32, { default: 'active' })
  workflowState: string;

  @StringColumn(40)
  uuid: string;

  @NullableString(64)
  defaultTimeZone: string | null;

  @Index()
  @NullableString()
  sisAccountId: string | null;

  get isRoot(): boolean {
    return this.parentAccountId == null;
  }

  get resolvedRootId(): number {
    return this.rootAccountId ?? this.id;
  }
}
