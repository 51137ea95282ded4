import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/** The sweep of expired presigned uploads finds pending attachments by age: index that lookup. */
export class PendingUploadIndex1732000011400 implements MigrationInterface {
  name = 'PendingUploadIndex1732000011400';

  async up(q: QueryRunner): Promise<void> {
    await q.createIndex('attachments', new TableIndex({ columnNames: ['workflow_state', 'created_at'] }));
  }

  async down(q: QueryRunner): Promise<void> {
    const table = await q.getTable('attachments');
    const index = table?.indices.find((i) => i.columnNames.join(',') === 'workflow_state,created_at');
    if (index) await q.dropIndex('attachments', index);
  }
}
