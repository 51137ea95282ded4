import { defineFragment, RestInput } from '../api/rest/route';
import { numericIds, reshape } from '../api/rest/present';

/** The group fragments and presenters (Canvas's Group, GroupCategory and GroupMembership JSON). */

defineFragment(`fragment GroupCategoryJson on GroupSet {
  id: _id name role self_signup: selfSignup group_limit: groupLimit auto_leader: autoLeader created_at: createdAt
  context_type: contextType context_id: contextId protected allows_multiple_memberships: allowsMultipleMemberships
  is_member: isMember non_collaborative: nonCollaborative sis_group_category_id: sisGroupCategoryId sis_import_id: sisImportId
  groups_count: groupsCount
}`);

defineFragment(`fragment GroupJson on Group {
  id: _id name description is_public: isPublic followed_by_user: followedByUser join_level: joinLevel
  members_count: membersCount avatar_url: avatarUrl context_type: contextType context_id: contextId
  context_name: contextName role group_category_id: groupCategoryId sis_group_id: sisGroupId sis_import_id: sisImportId
  storage_quota_mb: storageQuotaMb non_collaborative: nonCollaborative max_membership: maxMembership
  created_at: createdAt concluded
  leader { id: _id display_name: shortName avatar_image_url: avatarUrl }
  sis_rights: permissions(names: ["read_sis", "manage_sis"]) { name granted }
  users @include(if: $withUsers) { id: _id name sortable_name: sortableName short_name: shortName created_at: createdAt avatar_url: avatarUrl }
  permissions @include(if: $withPermissions) { name granted }
  group_category: groupCategory @include(if: $withCategory) { ...GroupCategoryJson }
}`);

defineFragment(`fragment MembershipJson on GroupMembership {
  id: _id group_id: groupId user_id: userId workflow_state: workflowState moderator created_at: createdAt
  sis_import_id: sisImportId just_created: justCreated
}`);

export type Json = Record<string, any>;
export const INCLUDE_VARS = '$withUsers: Boolean!, $withPermissions: Boolean!, $withCategory: Boolean!';

/** `course_id` or `account_id`, named after the context, as Canvas does. */
function contextKey(o: Json): Json {
  const { context_id, ...rest } = o;
  rest[o.context_type === 'Course' ? 'course_id' : 'account_id'] = Number(context_id);
  return rest;
}

export const granted = (list: { name: string; granted: boolean }[] | undefined) => Object.fromEntries((list ?? []).map((p) => [p.name, p.granted]));

export function presentCategory(c: Json): Json {
  const out = contextKey(numericIds(c, ['id']));
  if (out.sis_group_category_id == null) delete out.sis_group_category_id;
  if (out.sis_import_id == null) delete out.sis_import_id;
  return out;
}

/** Keys of the group fragment that the presenter places itself (or drops). */
const GROUP_PLACED = new Set(['context_id', 'sis_rights', 'leader', 'users', 'permissions', 'group_category']);
const GROUP_NUMERIC = new Set(['id', 'group_category_id']);

/** read_sis (1) and manage_sis (2) as granted in the fragment's sis_rights (a later entry wins, as in `granted`). */
function sisMask(list: { name: string; granted: boolean }[] | undefined): number {
  let read = false;
  let manage = false;
  for (const p of list ?? []) {
    if (p.name === 'read_sis') read = p.granted;
    else if (p.name === 'manage_sis') manage = p.granted;
  }
  return (read ? 1 : 0) | (manage ? 2 : 0);
}

/** The reshape rules for each sisMask: made once, not per group of a page. */
const GROUP_RESHAPE = [0, 1, 2, 3].map((mask) => ({
  numeric: GROUP_NUMERIC,
  omit: (k: string) => GROUP_PLACED.has(k) || (k === 'sis_group_id' && !(mask & 1)) || (k === 'sis_import_id' && !(mask & 2)),
}));

/**
 * Group JSON with Canvas's presence rules: SIS fields only for callers with the SIS rights. One pass
 * over the result (reshape) instead of a copy per rule: a page has 100 groups (issue 11).
 */
export function presentGroup(g: Json, input?: RestInput): Json {
  const out = reshape(g, GROUP_RESHAPE[sisMask(g.sis_rights)]);
  // `course_id` or `account_id`, named after the context, as Canvas does.
  out[g.context_type === 'Course' ? 'course_id' : 'account_id'] = Number(g.context_id);
  // Canvas's user_display_json: html_url is the user's page in the group's course (or the user page).
  const { leader, users, permissions, group_category } = g;
  const base = input?.ctx.baseUrl ?? '';
  const leaderUrl = (id: unknown) => (out.context_type === 'Course' ? `${base}/courses/${out.course_id}/users/${id}` : `${base}/users/${id}`);
  out.leader = leader ? { ...numericIds(leader, ['id']), html_url: leaderUrl(leader.id) } : null;
  out.has_submission = false;
  if (users !== undefined) out.users = (users as Json[]).map((u) => numericIds(u, ['id']));
  if (permissions !== undefined) out.permissions = granted(permissions);
  if (group_category !== undefined) out.group_category = group_category ? presentCategory(group_category) : null;
  return out;
}

export function presentMembership(m: Json): Json {
  const out = numericIds(m, ['id', 'group_id', 'user_id']);
  if (out.just_created == null) delete out.just_created;
  if (out.sis_import_id == null) delete out.sis_import_id;
  return out;
}

