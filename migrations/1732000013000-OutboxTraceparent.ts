import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { strNull } from './columns';

/**
 * The W3C trace context (traceparent) of the request that wrote each outbox message, so its deliveries
 * continue that trace. Null for messages written without tracing, and for every message written before.
 */
export class OutboxTraceparent1732000013000 implements MigrationInterface {
  name = 'OutboxTraceparent1732000013000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('outbox_messages', new TableColumn(strNull('traceparent', 64)));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('outbox_messages', 'traceparent');
  }
}
