import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { createIndexes, dropByColumns, dropIndexes } from './indexes';

/**
 * Indexes in the orders the course, account user and discussion lists page in, so a page seeks to its
 * cursor and reads first + 1 index entries whatever the size of the account, topic or course behind it:
 *
 * - an account's courses by id: (root_account_id, id) for a root account, (account_id, id) for a sub-account;
 * - an account's users by sortable name: the name lives on users, so each login carries a copy (names do
 *   not change after a user is created here) and (account_id, sortable_name, user_id) gives the order
 *   without a join and sort of every user of the account;
 * - a topic's top-level entries and an entry's replies, newest first: the state the lists filter on
 *   sits before the id, so the walk reads only listed rows;
 * - a course's or group's activity stream: (context, activity_at, activity_seq, id), the whole order.
 *
 * Each replaced index is a prefix of its replacement, which serves every read the old one did.
 */
const INDEXES: [table: string, columns: string[]][] = [
  ['courses', ['root_account_id', 'id']],
  ['courses', ['account_id', 'id']],
  ['pseudonyms', ['account_id', 'sortable_name', 'user_id']],
  ['discussion_entries', ['discussion_topic_id', 'parent_id', 'workflow_state', 'id']],
  ['discussion_entries', ['root_entry_id', 'workflow_state', 'id']],
  ['discussion_topics', ['context_type', 'context_id', 'activity_at', 'activity_seq', 'id']],
];

const REPLACED: [table: string, columns: string[]][] = [
  ['courses', ['account_id']],
  ['discussion_entries', ['discussion_topic_id', 'parent_id']],
  ['discussion_entries', ['root_entry_id']],
  ['discussion_topics', ['context_type', 'context_id', 'activity_at', 'activity_seq']],
];


export class CourseDiscussionListIndexes1732000016200 implements MigrationInterface {
  name = 'CourseDiscussionListIndexes1732000016200';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('pseudonyms', new TableColumn({ name: 'sortable_name', type: 'varchar', length: '255', default: "''" }));
    await q.query("UPDATE pseudonyms SET sortable_name = COALESCE((SELECT u.sortable_name FROM users u WHERE u.id = pseudonyms.user_id), '')");
    await createIndexes(q, INDEXES);
    for (const [table, columnNames] of REPLACED) await dropByColumns(q, table, columnNames);
  }

  async down(q: QueryRunner): Promise<void> {
    await createIndexes(q, REPLACED);
    await dropIndexes(q, INDEXES);
    await q.dropColumn('pseudonyms', 'sortable_name');
  }
}
