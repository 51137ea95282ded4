import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';
import { createIndexes, dropByColumns } from './indexes';

/**
 * Module lists page in SQL in their list order: a module's items by (position, id) and a course's
 * modules by (position, id), each read from an index in order with LIMIT (no sort of the whole set).
 * The columns after the order are those the lists' visibility conditions read, so a count or the
 * rows a numbered page skips are walked in the index alone, without a row lookup each.
 */
const INDEXES: [string, string[]][] = [
  ['module_items', ['module_id', 'position', 'id', 'workflow_state', 'content_type', 'content_id']],
  ['context_modules', ['course_id', 'position', 'id', 'workflow_state']],
];

/**
 * Replaced by the first: it served the same reads less well, and MariaDB, its statistics lagging
 * after bulk inserts, picked it for item pages and sorted a whole module.
 */
const REPLACED: [string, string[]] = ['module_items', ['module_id', 'workflow_state', 'position']];


export class ModuleListIndexes1732000015000 implements MigrationInterface {
  name = 'ModuleListIndexes1732000015000';

  async up(q: QueryRunner): Promise<void> {
    await createIndexes(q, INDEXES);
    await dropByColumns(q, ...REPLACED);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.createIndex(REPLACED[0], new TableIndex({ columnNames: REPLACED[1] }));
    for (const [table, columnNames] of INDEXES) await dropByColumns(q, table, columnNames);
  }
}
