import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { intNull } from './columns';

/**
 * attachments.replacement_attachment_id: the file that overwrote this one (an upload of the same name
 * in its folder), so a course's lookup of the old id finds the new file, as Canvas's does. Files
 * overwritten before get it where the file that took their place is still there: the newest available
 * file of the same name in the same folder that existed when they were deleted.
 */
export class AttachmentReplacements1732000016700 implements MigrationInterface {
  name = 'AttachmentReplacements1732000016700';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('attachments', new TableColumn(intNull('replacement_attachment_id')));
    // Read, then written by id: MySQL refuses an UPDATE whose subquery reads the table it writes.
    const pairs: { id: number | string; replacement: number | string }[] = await q.query(
      `SELECT x.id AS id, MAX(y.id) AS replacement FROM attachments x JOIN attachments y ON y.folder_id = x.folder_id` +
        ` AND y.display_name = x.display_name AND y.id <> x.id AND y.workflow_state = 'available' AND y.created_at <= x.deleted_at` +
        ` WHERE x.workflow_state = 'deleted' AND x.deleted_at IS NOT NULL GROUP BY x.id`,
    );
    for (const p of pairs) await q.query(`UPDATE attachments SET replacement_attachment_id = ? WHERE id = ?`, [Number(p.replacement), Number(p.id)]);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('attachments', 'replacement_attachment_id');
  }
}
