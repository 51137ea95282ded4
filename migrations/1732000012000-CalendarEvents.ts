import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { bool, datetime, id, index, int, intNull, str, strNull, text, timestamps } from './columns';

/** Calendar events (issue 22): course, group, user and section-limited child events. */
export class CalendarEvents1732000012000 implements MigrationInterface {
  name = 'CalendarEvents1732000012000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'calendar_events',
        columns: [
          id(),
          ...timestamps(),
          str('context_type', 16),
          int('context_id'),
          str('context_code', 64),
          str('effective_context_code', 64),
          str('title'),
          text('description'),
          strNull('location_name'),
          strNull('location_address'),
          datetime('start_at'),
          datetime('end_at'),
          bool('all_day', false),
          strNull('all_day_date', 10),
          bool('hidden', false),
          intNull('parent_calendar_event_id'),
          intNull('user_id'),
          str('workflow_state', 16, { default: "'active'" }),
        ],
        indices: [
          index(['context_code', 'workflow_state', 'start_at']),
          index(['effective_context_code', 'workflow_state', 'start_at']),
          index(['parent_calendar_event_id']),
        ],
      }),
      true,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('calendar_events', true);
  }
}
