import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { datetime, id, index, int, intNull, state, str, strNull, timestamps } from './columns';

/** Folders and attachments (files) of courses, groups and users. */
export class Files1732000002000 implements MigrationInterface {
  name = 'Files1732000002000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'folders',
        columns: [id(), ...timestamps(), str('context_type', 16), int('context_id'), intNull('parent_folder_id'), str('name'), str('full_name', 255), state('visible', 16)],
        indices: [index(['context_type', 'context_id', 'full_name'], true), index(['parent_folder_id'])],
      }),
      true,
    );
    await q.createTable(
      new Table({
        name: 'attachments',
        columns: [
          id(),
          ...timestamps(),
          str('context_type', 16),
          int('context_id'),
          intNull('root_account_id'),
          int('folder_id'),
          intNull('user_id'),
          str('display_name'),
          str('filename'),
          str('content_type'),
          intNull('size'),
          str('uuid', 40),
          strNull('storage_key'),
          str('on_duplicate', 16, { default: "'overwrite'" }),
          state('pending_upload', 16),
          datetime('uploaded_at'),
          datetime('deleted_at'),
        ],
        indices: [index(['context_type', 'context_id', 'workflow_state']), index(['folder_id']), index(['uuid'], true)],
      }),
      true,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['attachments', 'folders']) await q.dropTable(t, true);
  }
}
