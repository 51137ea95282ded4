import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { bool, datetime, id, index, int, intNull, str, strNull, text, timestamps } from './columns';

/**
 * Planner notes and overrides, and the indexes the planner's date-window queries read: each kind of
 * dated content by its context, published state and date (the entities declare the same indexes).
 */
const CONTENT_INDEXES: [string, string[]][] = [
  ['assignments', ['course_id', 'workflow_state', 'due_at']],
  ['quizzes', ['course_id', 'workflow_state', 'due_at']],
  ['wiki_pages', ['course_id', 'workflow_state', 'todo_date']],
  ['discussion_topics', ['context_type', 'context_id', 'todo_date']],
];

export class Planner1732000009000 implements MigrationInterface {
  name = 'Planner1732000009000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'planner_notes',
        columns: [
          id(),
          ...timestamps(),
          int('user_id'),
          intNull('course_id'),
          str('title'),
          text('details'),
          datetime('todo_date', { isNullable: false }),
          str('workflow_state', 16, { default: "'active'" }),
          strNull('linked_object_type', 32),
          intNull('linked_object_id'),
        ],
        indices: [index(['user_id', 'workflow_state', 'todo_date']), index(['user_id', 'linked_object_type', 'linked_object_id'])],
      }),
      true,
    );
    await q.createTable(
      new Table({
        name: 'planner_overrides',
        columns: [
          id(),
          ...timestamps(),
          int('user_id'),
          str('plannable_type', 32),
          int('plannable_id'),
          bool('marked_complete', false),
          bool('dismissed', false),
          str('workflow_state', 16, { default: "'active'" }),
          datetime('deleted_at'),
        ],
        indices: [index(['user_id', 'plannable_type', 'plannable_id'], true), index(['plannable_type', 'plannable_id'])],
      }),
      true,
    );
    for (const [table, columnNames] of CONTENT_INDEXES) await q.createIndex(table, new TableIndex({ columnNames }));
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [table, columnNames] of CONTENT_INDEXES) {
      await q.dropIndex(table, q.connection.namingStrategy.indexName(table, columnNames));
    }
    await q.dropTable('planner_overrides', true);
    await q.dropTable('planner_notes', true);
  }
}
