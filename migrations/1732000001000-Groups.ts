import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { bool, datetime, id, index, int, intNull, state, str, strNull, text, timestamps } from './columns';

/** Group categories, groups, memberships and pending e-mail invitations. */
export class Groups1732000001000 implements MigrationInterface {
  name = 'Groups1732000001000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'group_categories',
        columns: [
          id(),
          ...timestamps(),
          str('context_type', 16),
          int('context_id'),
          int('root_account_id'),
          str('name'),
          strNull('role', 32),
          strNull('self_signup', 16),
          intNull('group_limit'),
          strNull('auto_leader', 16),
          bool('non_collaborative', false),
          strNull('sis_group_category_id'),
          intNull('sis_import_id'),
          state('active', 16),
          datetime('deleted_at'),
        ],
        indices: [index(['context_type', 'context_id'])],
      }),
      true,
    );
    await q.createTable(
      new Table({
        name: 'groups',
        columns: [
          id(),
          ...timestamps(),
          str('context_type', 16),
          int('context_id'),
          int('root_account_id'),
          int('group_category_id'),
          str('name'),
          text('description'),
          bool('is_public', false),
          str('join_level', 32, { default: "'invitation_only'" }),
          intNull('max_membership'),
          intNull('storage_quota_mb'),
          intNull('avatar_attachment_id'),
          intNull('leader_id'),
          strNull('sis_group_id'),
          intNull('sis_import_id'),
          bool('non_collaborative', false),
          text('sticky_fields'),
          state('available', 16),
          datetime('deleted_at'),
        ],
        indices: [index(['context_type', 'context_id']), index(['root_account_id', 'sis_group_id']), index(['group_category_id'])],
      }),
      true,
    );
    await q.createTable(
      new Table({
        name: 'group_memberships',
        columns: [id(), ...timestamps(), int('group_id'), int('user_id'), str('workflow_state', 16), bool('moderator', false), intNull('sis_import_id')],
        indices: [index(['group_id', 'user_id'], true), index(['user_id', 'workflow_state'])],
      }),
      true,
    );
    await q.createTable(
      new Table({
        name: 'group_invitations',
        columns: [id(), ...timestamps(), int('group_id'), str('email'), int('invited_by_id'), state('pending', 16)],
        indices: [index(['group_id', 'email'], true), index(['email'])],
      }),
      true,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['group_invitations', 'group_memberships', 'groups', 'group_categories']) await q.dropTable(t, true);
  }
}
