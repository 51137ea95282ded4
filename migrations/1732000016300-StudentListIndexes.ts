import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * Lists of a course's students page in SQL by student id: an assignment's submissions and a
 * module's progressions read the course's student enrollments on (course, type, user) in student
 * order and stop after the page (the state read from the row). It replaces (course, type), its prefix. The state stays out of it:
 * with the state in it, MariaDB took it for the enrollments list (by id, filtered on the state) and
 * sorted a whole course. A module's overrides page by id on (module, state, id), which replaces
 * (module, state).
 */
const INDEXES: [string, string[]][] = [
  ['enrollments', ['course_id', 'type', 'user_id']],
  ['module_overrides', ['module_id', 'workflow_state', 'id']],
];
const REPLACED: [string, string[]][] = [
  ['enrollments', ['course_id', 'type']],
  ['module_overrides', ['module_id', 'workflow_state']],
];

async function dropByColumns(q: QueryRunner, table: string, columnNames: string[]): Promise<void> {
  const index = (await q.getTable(table))?.indices.find((i) => i.columnNames.join(',') === columnNames.join(','));
  if (index) await q.dropIndex(table, index);
}

export class StudentListIndexes1732000016300 implements MigrationInterface {
  name = 'StudentListIndexes1732000016300';

  async up(q: QueryRunner): Promise<void> {
    for (const [table, columnNames] of INDEXES) await q.createIndex(table, new TableIndex({ columnNames }));
    for (const [table, columnNames] of REPLACED) await dropByColumns(q, table, columnNames);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [table, columnNames] of REPLACED) await q.createIndex(table, new TableIndex({ columnNames }));
    for (const [table, columnNames] of INDEXES) await dropByColumns(q, table, columnNames);
  }
}
