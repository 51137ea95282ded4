import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { createIndexes, dropIndexes } from './indexes';

/**
 * Indexes in the orders the lists page in, so a key set page seeks to its cursor and reads first + 1
 * index entries, whatever the size of the course, group or planner behind it. A group's users page by
 * the member's sortable name, which lives on users: memberships carry a copy (user names do not change
 * after creation here) so the (group, name, user) index gives that order without a join and sort (the state is
 * checked on the rows walked: it is not in the index, so the (group, id) index keeps serving the
 * memberships list, whatever states it filters on, on MariaDB too).
 */
const INDEXES: [table: string, columns: string[]][] = [
  ['enrollments', ['course_id', 'id']],
  ['group_memberships', ['group_id', 'sortable_name', 'user_id']],
  ['group_memberships', ['group_id', 'id']],
  ['groups', ['context_type', 'context_id', 'group_category_id', 'name', 'id']],
  ['groups', ['group_category_id', 'name', 'id']],
  ['planner_notes', ['user_id', 'workflow_state', 'id']],
];

export class ListOrderIndexes1732000013500 implements MigrationInterface {
  name = 'ListOrderIndexes1732000013500';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('group_memberships', new TableColumn({ name: 'sortable_name', type: 'varchar', length: '255', default: "''" }));
    await q.query('UPDATE group_memberships SET sortable_name = COALESCE((SELECT u.sortable_name FROM users u WHERE u.id = group_memberships.user_id), \'\')');
    await createIndexes(q, INDEXES);
  }

  async down(q: QueryRunner): Promise<void> {
    await dropIndexes(q, INDEXES);
    await q.dropColumn('group_memberships', 'sortable_name');
  }
}
