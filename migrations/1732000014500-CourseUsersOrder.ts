import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/**
 * A course's people page by sortable name. The name lives on users, so each enrollment carries a
 * copy (users' names do not change after creation here) and the (course, name, user) index gives
 * that order for one course without a join and sort of its whole roster. The column is nullable so
 * rows written by older code still insert; every writer of this version sets it, and existing rows
 * are filled here.
 */
const INDEX = ['course_id', 'sortable_name', 'user_id'];

export class CourseUsersOrder1732000014500 implements MigrationInterface {
  name = 'CourseUsersOrder1732000014500';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('enrollments', new TableColumn({ name: 'sortable_name', type: 'varchar', length: '255', isNullable: true }));
    await q.query('UPDATE enrollments SET sortable_name = (SELECT u.sortable_name FROM users u WHERE u.id = enrollments.user_id)');
    await q.createIndex('enrollments', new TableIndex({ columnNames: INDEX }));
  }

  async down(q: QueryRunner): Promise<void> {
    const t = await q.getTable('enrollments');
    const index = t?.indices.find((i) => i.columnNames.join(',') === INDEX.join(','));
    if (index) await q.dropIndex('enrollments', index);
    await q.dropColumn('enrollments', 'sortable_name');
  }
}
