import { Entity, Index } from 'typeorm';
import { IntColumn, NullableString, StringColumn, TextColumn, Timestamped } from '../../db/columns';

export const PRIVACY_LEVELS = ['anonymous', 'name_only', 'email_only', 'public'] as const;

/** A minimal course external tool (LTI 1.1 style): where it launches and how it signs. */
@Entity('context_external_tools')
@Index(['courseId', 'workflowState'])
export class ExternalTool extends Timestamped {
  @IntColumn()
  courseId: number;

  @StringColumn()
  name: string;

  @TextColumn()
  description: string | null;

  @NullableString(2048)
  url: string | null;

  @NullableString()
  domain: string | null;

  @NullableString()
  consumerKey: string | null;

  /** Used to sign launches; never leaves the server. */
  @NullableString()
  sharedSecret: string | null;

  @StringColumn(32, { default: 'anonymous' })
  privacyLevel: string;

  /** JSON object of custom launch fields. */
  @TextColumn()
  customFields: string | null;

  @StringColumn(32, { default: 'active' })
  workflowState: 'active' | 'deleted';
}
