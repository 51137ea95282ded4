import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { datetime, index, str } from './columns';

/** Used jti values of LTI JWT-bearer assertions (single use across instances). */
export class LtiNonces1732000007500 implements MigrationInterface {
  name = 'LtiNonces1732000007500';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'lti_nonces',
        columns: [str('nonce', 64, { isPrimary: true }), datetime('expires_at', { isNullable: false })],
        indices: [index(['expires_at'])],
      }),
      true,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('lti_nonces', true);
  }
}
