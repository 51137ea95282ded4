import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';
import { dropByColumns } from './indexes';

/**
 * The calendar lists page by key in their list order: events by (start_at, id) per context code (and,
 * for a course whose sections the viewer all sees, per effective context code, which also holds the
 * section events), assignments by (due_at, id) per course and state. Each index ends in the order's
 * columns after the equality ones, so a page seeks to its cursor and reads first + 1 entries; the
 * columns after the id are those the lists still filter on (hidden, context type, end of a date
 * window), checked in the index without a row lookup per skipped entry.
 */
const REPLACEMENTS: [table: string, old: string[], replacement: string[]][] = [
  ['calendar_events', ['context_code', 'workflow_state', 'start_at'], ['context_code', 'workflow_state', 'start_at', 'id', 'hidden', 'end_at']],
  ['calendar_events', ['effective_context_code', 'workflow_state', 'start_at'], ['effective_context_code', 'workflow_state', 'start_at', 'id', 'hidden', 'context_type', 'end_at']],
  // Planner date windows read the same prefix (migrations/1732000009000-Planner.ts).
  ['assignments', ['course_id', 'workflow_state', 'due_at'], ['course_id', 'workflow_state', 'due_at', 'id']],
];

export class CalendarListIndexes1732000016000 implements MigrationInterface {
  name = 'CalendarListIndexes1732000016000';

  // The old indexes are prefixes of their replacements and serve nothing these do not; left beside them,
  // MariaDB (its statistics lagging after bulk inserts) may pick one for a page and sort by id.
  async up(q: QueryRunner): Promise<void> {
    for (const [table, old, columnNames] of REPLACEMENTS) {
      await q.createIndex(table, new TableIndex({ columnNames }));
      await dropByColumns(q, table, old);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [table, old, columnNames] of [...REPLACEMENTS].reverse()) {
      await q.createIndex(table, new TableIndex({ columnNames: old }));
      await dropByColumns(q, table, columnNames);
    }
  }
}
