import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexes, dropIndexes, IndexSpec } from './indexes';

/**
 * An account's users page by (sortable name, user) over its `active` logins. With the state in the
 * index, after the order, the page's read is served by the index alone: a deep numbered page's OFFSET
 * walks index entries instead of rows, and MariaDB no longer prefers a scan of the table and a sort
 * when the account holds most of the logins (on the scaling bench's 100x world a page 40 deep took
 * 9 ms before and 3 ms after).
 *
 * Not done for a group's users, which would gain as much: a group's memberships list filters on three
 * states and pages by id from (group_id, id), and MariaDB took a covering membership index with the
 * state in it over that one, reading and sorting the group's memberships (the EXPLAIN test caught it).
 *
 * The replaced index is a prefix of its replacement, which serves every read the old one did.
 */
const INDEXES: IndexSpec[] = [['pseudonyms', ['account_id', 'sortable_name', 'user_id', 'workflow_state']]];

const REPLACED: IndexSpec[] = [['pseudonyms', ['account_id', 'sortable_name', 'user_id']]];

export class AccountUsersCoveringIndex1732000016400 implements MigrationInterface {
  name = 'AccountUsersCoveringIndex1732000016400';

  async up(q: QueryRunner): Promise<void> {
    await createIndexes(q, INDEXES);
    await dropIndexes(q, REPLACED);
  }

  async down(q: QueryRunner): Promise<void> {
    await createIndexes(q, REPLACED);
    await dropIndexes(q, INDEXES);
  }
}
