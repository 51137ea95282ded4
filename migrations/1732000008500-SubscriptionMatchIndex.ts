import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/** Events find their subscriptions by resolved context: index that lookup. */
export class SubscriptionMatchIndex1732000008500 implements MigrationInterface {
  name = 'SubscriptionMatchIndex1732000008500';

  async up(q: QueryRunner): Promise<void> {
    await q.createIndex('webhook_subscriptions', new TableIndex({ columnNames: ['match_type', 'match_id', 'state'] }));
  }

  async down(q: QueryRunner): Promise<void> {
    const table = await q.getTable('webhook_subscriptions');
    const index = table?.indices.find((i) => i.columnNames.join(',') === 'match_type,match_id,state');
    if (index) await q.dropIndex('webhook_subscriptions', index);
  }
}
