import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';
import { datetime, id, index, int, intNull, strNull, text } from './columns';

/**
 * Per-attempt delivery log, and the Standard Webhooks secret of a subscription (encrypted, with the
 * previous one kept for a grace period after a rotation).
 */
export class WebhookAttemptsAndSecrets1732000010000 implements MigrationInterface {
  name = 'WebhookAttemptsAndSecrets1732000010000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'webhook_attempts',
        columns: [
          id(),
          int('outbox_message_id'),
          int('attempt'),
          { name: 'started_at', type: 'datetime', precision: 3, isNullable: false },
          int('duration_ms'),
          intNull('status_code'),
          strNull('error_class', 32),
          strNull('error', 1024),
          text('response_body'),
        ],
        // A message's attempts in order (the operators' view and the retention purge).
        indices: [index(['outbox_message_id', 'id'])],
      }),
      true,
    );
    await q.addColumns('webhook_subscriptions', [
      new TableColumn(strNull('signing_secret', 512)),
      new TableColumn(strNull('previous_signing_secret', 512)),
      new TableColumn(datetime('previous_secret_until')),
    ]);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('webhook_subscriptions', 'previous_secret_until');
    await q.dropColumn('webhook_subscriptions', 'previous_signing_secret');
    await q.dropColumn('webhook_subscriptions', 'signing_secret');
    await q.dropTable('webhook_attempts', true);
  }
}
