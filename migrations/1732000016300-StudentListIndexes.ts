import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * Lists of a course's students page in SQL by student id: an assignment's submissions and a
 * module's progressions read the course's student enrollments on (course, type, user) in student
 * order and stop after the page (the state is checked in the index, without a row lookup). A
 * module's overrides page by id on (module, state, id), which replaces (module, state).
 */
const INDEXES: [string, string[]][] = [
  ['enrollments', ['course_id', 'type', 'user_id', 'workflow_state']],
  ['module_overrides', ['module_id', 'workflow_state', 'id']],
];
const REPLACED: [string, string[]] = ['module_overrides', ['module_id', 'workflow_state']];

async function dropByColumns(q: QueryRunner, table: string, columnNames: string[]): Promise<void> {
  const index = (await q.getTable(table))?.indices.find((i) => i.columnNames.join(',') === columnNames.join(','));
  if (index) await q.dropIndex(table, index);
}

export class StudentListIndexes1732000016300 implements MigrationInterface {
  name = 'StudentListIndexes1732000016300';

  async up(q: QueryRunner): Promise<void> {
    for (const [table, columnNames] of INDEXES) await q.createIndex(table, new TableIndex({ columnNames }));
    await dropByColumns(q, ...REPLACED);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.createIndex(REPLACED[0], new TableIndex({ columnNames: REPLACED[1] }));
    for (const [table, columnNames] of INDEXES) await dropByColumns(q, table, columnNames);
  }
}
