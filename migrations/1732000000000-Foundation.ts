import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { bool, datetime, id, index, int, intNull, state, str, strNull, text, timestamps } from './columns';

/** Accounts, users, logins, access tokens, courses, sections and enrollments. */
export class Foundation1732000000000 implements MigrationInterface {
  name = 'Foundation1732000000000';

  async up(q: QueryRunner): Promise<void> {
    const create = (name: string, columns: Table['columns'] | object[], indices: object[] = []) =>
      q.createTable(new Table({ name, columns: columns as never, indices: indices as never }), true);

    await create('settings', [str('name', 100, { isPrimary: true }), { name: 'value', type: 'text' }]);

    await create(
      'accounts',
      [
        id(),
        ...timestamps(),
        str('name'),
        intNull('parent_account_id'),
        intNull('root_account_id'),
        state('active'),
        str('uuid', 40),
        strNull('default_time_zone', 64),
        strNull('sis_account_id'),
      ],
      [index(['parent_account_id']), index(['sis_account_id'])],
    );

    await create(
      'account_users',
      [id(), ...timestamps(), int('account_id'), int('user_id'), str('role', 64, { default: "'AccountAdmin'" }), state('active')],
      [index(['account_id', 'user_id', 'role'], true), index(['user_id'])],
    );

    await create('users', [
      id(),
      ...timestamps(),
      str('name'),
      str('short_name'),
      str('sortable_name'),
      state('registered'),
      str('uuid', 40),
      strNull('time_zone', 64),
      strNull('locale', 16),
      strNull('avatar_image_url', 1024),
    ]);

    await create(
      'pseudonyms',
      [
        id(),
        ...timestamps(),
        int('user_id'),
        int('account_id'),
        str('unique_id'),
        str('unique_id_normalized'),
        strNull('sis_user_id'),
        strNull('integration_id'),
        state('active'),
      ],
      [index(['account_id', 'unique_id_normalized'], true), index(['account_id', 'sis_user_id']), index(['user_id'])],
    );

    await create(
      'access_tokens',
      [
        id(),
        ...timestamps(),
        int('user_id'),
        str('crypted_token', 64),
        str('token_hint', 8),
        str('purpose'),
        datetime('expires_at'),
        datetime('last_used_at'),
        state('active'),
        intNull('real_user_id'),
      ],
      [index(['user_id']), index(['crypted_token'], true)],
    );

    await create(
      'courses',
      [
        id(),
        ...timestamps(),
        int('account_id'),
        int('root_account_id'),
        str('name'),
        str('course_code'),
        state('unpublished'),
        datetime('start_at'),
        datetime('end_at'),
        str('uuid', 40),
        strNull('sis_course_id'),
        strNull('integration_id'),
        intNull('storage_quota_mb'),
        strNull('time_zone', 64),
        str('default_view', 32, { default: "'modules'" }),
        strNull('license', 64),
        bool('is_public', false),
        text('public_description'),
        bool('restrict_enrollments_to_course_dates', false),
      ],
      [index(['account_id']), index(['root_account_id', 'sis_course_id'])],
    );

    await create(
      'course_sections',
      [
        id(),
        ...timestamps(),
        int('course_id'),
        int('root_account_id'),
        str('name'),
        strNull('sis_section_id'),
        strNull('integration_id'),
        datetime('start_at'),
        datetime('end_at'),
        bool('restrict_enrollments_to_section_dates', false),
        bool('default_section', false),
        state('active'),
      ],
      [index(['course_id'])],
    );

    await create(
      'enrollments',
      [
        id(),
        ...timestamps(),
        int('user_id'),
        int('course_id'),
        int('course_section_id'),
        int('root_account_id'),
        str('type', 32),
        state('invited'),
        intNull('associated_user_id'),
        bool('limit_privileges_to_course_section', false),
        datetime('start_at'),
        datetime('end_at'),
        datetime('last_activity_at'),
      ],
      [index(['course_id', 'type']), index(['user_id', 'course_id']), index(['course_section_id']), index(['associated_user_id'])],
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['enrollments', 'course_sections', 'courses', 'access_tokens', 'pseudonyms', 'users', 'account_users', 'accounts', 'settings']) {
      await q.dropTable(t, true);
    }
  }
}
