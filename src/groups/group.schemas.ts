import { arr, defineSchema, mapOf, nullable, shape } from '../api/rest/response';

/** Canvas's GroupCategory JSON (presentCategory): the context's id is named after it (course_id or account_id). */
export const GroupCategorySchema = defineSchema(
  'GroupCategory',
  shape(
    {
      id: 'id', name: 'string', role: 'string?', self_signup: 'string?', group_limit: 'int?', auto_leader: 'string?',
      created_at: 'date', context_type: 'string', course_id: 'id', account_id: 'id', protected: 'bool',
      allows_multiple_memberships: 'bool', is_member: 'bool', non_collaborative: 'bool',
      sis_group_category_id: 'string', sis_import_id: 'int', groups_count: 'int',
    },
    { optional: ['course_id', 'account_id', 'sis_group_category_id', 'sis_import_id'] },
  ),
);

const GroupUser = shape({ id: 'id', name: 'string', sortable_name: 'string', short_name: 'string', created_at: 'date', avatar_url: 'string?' });

/** Canvas's Group JSON (presentGroup): SIS fields only for callers with the SIS rights; users, permissions and group_category by include[]. */
export const GroupSchema = defineSchema(
  'Group',
  shape(
    {
      id: 'id', name: 'string', description: 'string?', is_public: 'bool', followed_by_user: 'bool', join_level: 'string',
      members_count: 'int', avatar_url: 'string?', context_type: 'string', course_id: 'id', account_id: 'id',
      context_name: 'string?', role: 'string?', group_category_id: 'id', sis_group_id: 'string?', sis_import_id: 'int?',
      storage_quota_mb: 'int', non_collaborative: 'bool', max_membership: 'int?', created_at: 'date', concluded: 'bool',
      leader: nullable(shape({ id: 'id', display_name: 'string', avatar_image_url: 'string?', html_url: 'string' })),
      has_submission: 'bool',
      users: arr(GroupUser),
      permissions: mapOf('bool'),
      group_category: nullable(GroupCategorySchema),
    },
    { optional: ['course_id', 'account_id', 'sis_group_id', 'sis_import_id', 'users', 'permissions', 'group_category'] },
  ),
);

const Membership = shape(
  {
    id: 'id', group_id: 'id', user_id: 'id', workflow_state: 'string', moderator: 'bool', created_at: 'date',
    sis_import_id: 'int', just_created: 'bool',
  },
  { optional: ['sis_import_id', 'just_created'] },
);
export const GroupMembershipSchema = defineSchema('GroupMembership', Membership);

/** A group's user list entry; avatar_url with include[]=avatar_url. */
export const GroupUserSchema = defineSchema('GroupUser', shape(GroupUser.properties, { optional: ['avatar_url'] }));

export const PermissionsSchema = defineSchema('Permissions', { ...mapOf('bool'), description: 'Permission name → granted' });

export const HtmlPreviewSchema = defineSchema('HtmlPreview', shape({ html: 'string' }));

/** Adding members by a list (members[], all_in_group_course): empty, or the partial failure met. */
export const GroupJoinResultSchema = defineSchema('GroupJoinResult', {
  anyOf: [
    GroupMembershipSchema,
    shape({ message: 'string', invalid_user_ids: arr({ type: ['integer', 'string'] }), membership_errors: arr('any') }),
    { type: 'object', maxProperties: 0 },
  ],
});

/** Leaving a group: Canvas's {"ok": true}, with the deleted membership along. */
export const GroupLeaveResultSchema = defineSchema(
  'GroupLeaveResult',
  shape({ ok: { const: true }, ...Membership.properties }, { optional: ['sis_import_id', 'just_created'] }),
);
