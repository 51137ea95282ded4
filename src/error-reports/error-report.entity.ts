import { Entity, Index } from 'typeorm';
import { NullableInt, NullableString, StringColumn, TextColumn, Timestamped } from '../db/columns';

/** Canvas's user_perceived_severity values, mildest first. */
export const SEVERITIES = ['just_a_comment', 'not_urgent', 'workaround_possible', 'blocks_what_i_need_to_do', 'extreme_critical_emergency'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** A problem report from the help dialog ("report a problem"), kept for site admins to act on. */
@Entity('error_reports')
@Index(['userPerceivedSeverity', 'id'])
@Index(['createdAt'])
export class ErrorReport extends Timestamped {
  @StringColumn()
  subject: string;

  @TextColumn()
  comments: string | null;

  @NullableString(32)
  userPerceivedSeverity: Severity | null;

  @NullableString()
  email: string | null;

  @TextColumn()
  url: string | null;

  @NullableString()
  contextAssetString: string | null;

  /** Comma-joined roles of the reporter (user, student, teacher, observer, admin, root_admin); server-derived. */
  @NullableString()
  userRoles: string | null;

  /** JSON object: the client's environment as sent, or what the server collected from the request. */
  @TextColumn()
  httpEnv: string | null;

  @TextColumn()
  userAgent: string | null;

  @NullableString(64)
  requestId: string | null;

  @NullableInt()
  userId: number | null;

  /** The authenticated user when the report was made while masquerading. */
  @NullableInt()
  realUserId: number | null;

  @NullableInt()
  accountId: number | null;
}
