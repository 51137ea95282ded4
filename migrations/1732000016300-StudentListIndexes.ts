import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexes, dropByColumns } from './indexes';

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


export class StudentListIndexes1732000016300 implements MigrationInterface {
  name = 'StudentListIndexes1732000016300';

  async up(q: QueryRunner): Promise<void> {
    await createIndexes(q, INDEXES);
    for (const [table, columnNames] of REPLACED) await dropByColumns(q, table, columnNames);
  }

  async down(q: QueryRunner): Promise<void> {
    await createIndexes(q, REPLACED);
    for (const [table, columnNames] of INDEXES) await dropByColumns(q, table, columnNames);
  }
}
