import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { datetime, id, index, int, intNull, state, str, strNull, text, timestamps } from './columns';

/** LTI tool proxies and their webhook subscriptions. */
export class LtiSubscriptions1732000007000 implements MigrationInterface {
  name = 'LtiSubscriptions1732000007000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'lti_tool_proxies',
        columns: [
          id(),
          ...timestamps(),
          str('guid', 64),
          str('name'),
          text('shared_secret_encrypted', { isNullable: false }),
          text('capabilities', { isNullable: false }),
          str('context_type', 16),
          int('context_id'),
          int('account_id'),
          int('root_account_id'),
          intNull('created_by_id'),
          state('active', 16),
        ],
        indices: [index(['guid'], true), index(['context_type', 'context_id']), index(['account_id'])],
      }),
      true,
    );
    await q.createTable(
      new Table({
        name: 'webhook_subscriptions',
        columns: [
          str('id', 36, { isPrimary: true }),
          int('tool_proxy_id'),
          str('context_type', 32),
          str('context_id', 64),
          str('match_type', 16),
          int('match_id'),
          int('root_account_id'),
          text('event_types', { isNullable: false }),
          str('format', 16),
          str('transport_type', 8),
          str('transport_url', 2048),
          str('developer_key', 64),
          str('state', 16, { default: "'Active'" }),
          int('consecutive_failures', { default: 0 }),
          datetime('deactivated_at'),
          strNull('deactivation_reason'),
          datetime('created_at', { isNullable: false }),
          datetime('updated_at', { isNullable: false }),
        ],
        indices: [index(['tool_proxy_id', 'state', 'id']), index(['context_type', 'context_id', 'state'])],
      }),
      true,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('webhook_subscriptions', true);
    await q.dropTable('lti_tool_proxies', true);
  }
}
