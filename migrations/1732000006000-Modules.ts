import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';
import { bool, datetime, id, index, int, intNull, state, str, strNull, text, timestamps } from './columns';

const double = (name: string) => ({ name, type: 'double', isNullable: true });

/** Modules, module items, student progressions, module overrides and mastery path rules. */
export class Modules1732000006000 implements MigrationInterface {
  name = 'Modules1732000006000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'context_modules',
        columns: [
          id(),
          ...timestamps(),
          int('course_id'),
          str('name'),
          int('position'),
          datetime('unlock_at'),
          bool('require_sequential_progress', false),
          intNull('requirement_count'),
          bool('publish_final_grade', false),
          text('prerequisites'),
          state('unpublished', 16),
          datetime('deleted_at'),
        ],
        indices: [index(['course_id', 'workflow_state', 'position'])],
      }),
      true,
    );
    await q.createTable(
      new Table({
        name: 'module_items',
        columns: [
          id(),
          ...timestamps(),
          int('course_id'),
          int('module_id'),
          str('content_type', 16),
          intNull('content_id'),
          str('title'),
          int('indent', { default: 0 }),
          int('position'),
          strNull('url', 2048),
          { name: 'new_tab', type: 'boolean', isNullable: true },
          intNull('iframe_width'),
          intNull('iframe_height'),
          strNull('requirement_type', 32),
          double('requirement_min_score'),
          double('requirement_min_percentage'),
          state('unpublished', 16),
        ],
        indices: [index(['module_id', 'workflow_state', 'position']), index(['course_id', 'content_type', 'content_id'])],
      }),
      true,
    );
    await q.createTable(
      new Table({
        name: 'module_progressions',
        columns: [
          id(),
          ...timestamps(),
          int('course_id'),
          int('module_id'),
          int('user_id'),
          str('state', 16, { default: "'locked'" }),
          text('requirements_met'),
          datetime('completed_at'),
          intNull('current_position'),
          text('locked_items'),
          bool('stale', true),
        ],
        indices: [index(['module_id', 'user_id'], true), index(['course_id', 'user_id'])],
      }),
      true,
    );
    await q.createTable(
      new Table({
        name: 'module_overrides',
        columns: [
          id(),
          ...timestamps(),
          int('course_id'),
          int('module_id'),
          str('title'),
          intNull('course_section_id'),
          intNull('group_id'),
          text('student_ids'),
          state('active', 16),
        ],
        indices: [index(['module_id', 'workflow_state'])],
      }),
      true,
    );
    await q.createTable(
      new Table({
        name: 'mastery_path_rules',
        columns: [id(), ...timestamps(), int('course_id'), int('trigger_assignment_id'), text('ranges')],
        indices: [index(['course_id', 'trigger_assignment_id'], true)],
      }),
      true,
    );
    await q.createTable(
      new Table({
        name: 'mastery_path_selections',
        columns: [id(), ...timestamps(), int('rule_id'), int('user_id'), int('assignment_set_id')],
        indices: [index(['rule_id', 'user_id'], true)],
      }),
      true,
    );
    await q.addColumn('courses', new TableColumn({ name: 'mastery_paths_enabled', type: 'boolean', default: 0 }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('courses', 'mastery_paths_enabled');
    for (const t of ['mastery_path_selections', 'mastery_path_rules', 'module_overrides', 'module_progressions', 'module_items', 'context_modules']) {
      await q.dropTable(t, true);
    }
  }
}
