import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexes, dropIndexes } from './indexes';

/**
 * Indexes in the orders the admin and per-user lists page in (issue 23), so a key set page seeks to
 * its cursor and reads first + 1 entries: a user's active planner overrides by id, and tool proxies
 * by id within an account or within a root account's tree. Error reports (the primary key, and
 * (severity, id)) and webhook deliveries ((subscription, id)) already had theirs.
 */
const INDEXES: [table: string, columns: string[]][] = [
  ['planner_overrides', ['user_id', 'workflow_state', 'id']],
  ['lti_tool_proxies', ['account_id', 'workflow_state', 'id']],
  ['lti_tool_proxies', ['root_account_id', 'workflow_state', 'id']],
];

export class AdminListIndexes1732000016100 implements MigrationInterface {
  name = 'AdminListIndexes1732000016100';

  async up(q: QueryRunner): Promise<void> {
    await createIndexes(q, INDEXES);
  }

  async down(q: QueryRunner): Promise<void> {
    await dropIndexes(q, INDEXES);
  }
}
