import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { id, index, int, intNull, str, strNull, text, timestamps } from './columns';

/** Blackout dates of courses and accounts (course pacing), and problem reports from the help dialog. */
export class BlackoutDatesAndErrorReports1732000004000 implements MigrationInterface {
  name = 'BlackoutDatesAndErrorReports1732000004000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'blackout_dates',
        columns: [
          id(),
          ...timestamps(),
          str('context_type', 16),
          int('context_id'),
          int('root_account_id'),
          // Calendar days as 'YYYY-MM-DD': identical on both engines, no time zone involved.
          str('start_date', 10),
          str('end_date', 10),
          str('event_title'),
        ],
        // A context's dates in start order; the pacing view reads a course and its account chain with it.
        indices: [index(['context_type', 'context_id', 'start_date'])],
      }),
      true,
    );
    await q.createTable(
      new Table({
        name: 'error_reports',
        columns: [
          id(),
          ...timestamps(),
          str('subject'),
          text('comments'),
          strNull('user_perceived_severity', 32),
          strNull('email'),
          text('url'),
          strNull('context_asset_string'),
          strNull('user_roles'),
          text('http_env'),
          text('user_agent'),
          strNull('request_id', 64),
          intNull('user_id'),
          intNull('real_user_id'),
          intNull('account_id'),
        ],
        // Newest first is id order; the severity filter walks (severity, id); retention clean-up goes by created_at.
        indices: [index(['user_perceived_severity', 'id']), index(['created_at'])],
      }),
      true,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['error_reports', 'blackout_dates']) await q.dropTable(t, true);
  }
}
