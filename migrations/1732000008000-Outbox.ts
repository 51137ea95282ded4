import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { id, index, int, intNull, str, strNull, text } from './columns';

/** Millisecond datetimes: retry and lease times are compared by the claim query. */
const time = (name: string, nullable: boolean) => ({ name, type: 'datetime', precision: 3, isNullable: nullable });

/** The transactional outbox of webhook messages and their delivery state. */
export class Outbox1732000008000 implements MigrationInterface {
  name = 'Outbox1732000008000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'outbox_messages',
        columns: [
          id(),
          str('message_id', 36),
          str('subscription_id', 36),
          int('tool_proxy_id'),
          str('event_name', 64),
          str('format', 16),
          text('payload', { isNullable: false }),
          str('status', 16, { default: "'pending'" }),
          int('attempts', { default: 0 }),
          time('next_attempt_at', false),
          time('retry_until', false),
          strNull('lease_token', 64),
          strNull('claimed_by', 128),
          strNull('last_error', 1024),
          intNull('last_status_code'),
          time('first_attempt_at', true),
          time('last_attempt_at', true),
          time('delivered_at', true),
          time('created_at', false),
          time('updated_at', false),
        ],
        indices: [
          index(['message_id'], true),
          // The dispatchers' claim: due pending messages and expired leases, oldest first.
          index(['status', 'next_attempt_at']),
          // An operator's view of one subscription's recent deliveries.
          index(['subscription_id', 'id']),
        ],
      }),
      true,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('outbox_messages', true);
  }
}
