import { defineFragment, RestInput, RestRoute, PAYLOAD_ERRORS } from '../api/rest/route';
import { numericIds, reshape } from '../api/rest/present';
import { groupParams as P, membershipParams } from './group.params';

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

type Json = Record<string, any>;
const INCLUDE_VARS = '$withUsers: Boolean!, $withPermissions: Boolean!, $withCategory: Boolean!';

/** `course_id` or `account_id`, named after the context, as Canvas does. */
function contextKey(o: Json): Json {
  const { context_id, ...rest } = o;
  rest[o.context_type === 'Course' ? 'course_id' : 'account_id'] = Number(context_id);
  return rest;
}

const granted = (list: { name: string; granted: boolean }[] | undefined) => Object.fromEntries((list ?? []).map((p) => [p.name, p.granted]));

export function presentCategory(c: Json): Json {
  const out = contextKey(numericIds(c, ['id']));
  if (out.sis_group_category_id == null) delete out.sis_group_category_id;
  if (out.sis_import_id == null) delete out.sis_import_id;
  return out;
}

/** Keys of the group fragment that the presenter places itself (or drops). */
const GROUP_PLACED = new Set(['context_id', 'sis_rights', 'leader', 'users', 'permissions', 'group_category']);
const GROUP_NUMERIC = new Set(['id', 'group_category_id']);

/**
 * Group JSON with Canvas's presence rules: SIS fields only for callers with the SIS rights. One pass
 * over the result (reshape) instead of a copy per rule: a page has 100 groups.
 */
export function presentGroup(g: Json, input?: RestInput): Json {
  const rights = granted(g.sis_rights);
  const out = reshape(g, {
    numeric: GROUP_NUMERIC,
    omit: (k) => GROUP_PLACED.has(k) || (k === 'sis_group_id' && !rights.read_sis) || (k === 'sis_import_id' && !rights.manage_sis),
  });
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

/** include[] → the @include variables of the group fragment. */
function includes(input: RestInput, always = false): Json {
  const inc = new Set<string>(input.values.include ?? []);
  return {
    withUsers: always || inc.has('users'),
    withPermissions: always || inc.has('permissions'),
    withCategory: always || inc.has('group_category'),
  };
}

/** A blank text clears the field (Canvas stores nil for ''). */
const blankNull = (v: string | null | undefined) => (v === undefined ? undefined : v || null);

function groupFields({ values: v, params }: RestInput): Json {
  return {
    name: v.name,
    description: blankNull(v.description),
    isPublic: v.is_public,
    joinLevel: v.join_level,
    // '' or null leave the quota as it is (Canvas ignores a blank quota).
    storageQuotaMb: v.storage_quota_mb ?? undefined,
    sisGroupId: blankNull(v.sis_group_id),
    // A blank max_membership leaves it; JSON null clears it.
    maxMembership: params.max_membership === '' ? undefined : v.max_membership,
  };
}

function categoryFields(v: Json): Json {
  return {
    name: v.name,
    selfSignup: v.self_signup,
    groupLimit: v.group_limit,
    autoLeader: v.auto_leader,
    sisGroupCategoryId: blankNull(v.sis_group_category_id),
  };
}

/** The same rows under two Canvas paths (e.g. /memberships/:id and /users/:user_id); `accepts` may depend on the path. */
function both(base: Omit<RestRoute, 'path' | 'accepts'> & { accepts?: RestRoute['accepts'] }, paths: string[], accepts?: (path: string) => RestRoute['accepts']): RestRoute[] {
  return paths.map((path) => {
    const declared = accepts?.(path) ?? base.accepts;
    if (!declared) throw new Error(`REST route ${base.method} ${path} declares no params`);
    return { ...base, path, accepts: declared };
  });
}

const membershipRef = (v: Json) => (v.membership_id !== undefined ? { membershipId: v.membership_id } : { userId: v.user_id });

const groupMutation = (name: string, inputType: string) =>
  `mutation($input: ${inputType}!, ${INCLUDE_VARS}) { ${name}(input: $input) { group { ...GroupJson } ${PAYLOAD_ERRORS} } }`;

export const groupRoutes: RestRoute[] = [
  // ---- categories ----
  ...both(
    {
      method: 'POST',
      accepts: P.createCategory,
      operation: `mutation($input: CreateGroupCategoryInput!) { createGroupSet(input: $input) { groupCategory { ...GroupCategoryJson } ${PAYLOAD_ERRORS} } }`,
      variables: ({ values }) => ({
        input: {
          contextType: values.course_id !== undefined ? 'Course' : 'Account',
          contextId: values.course_id ?? values.account_id,
          ...categoryFields(values),
          nonCollaborative: values.non_collaborative,
          createGroupCount: values.create_group_count,
        },
      }),
      root: 'createGroupSet',
      payloadKey: 'groupCategory',
      present: presentCategory,
    },
    ['/api/v1/courses/:course_id/group_categories', '/api/v1/accounts/:account_id/group_categories'],
  ),
  ...both(
    {
      method: 'GET',
      accepts: P.listCategories,
      operation: `query($type: String!, $id: ID!, $first: Int, $after: String) { groupSetsConnection(contextType: $type, contextId: $id, first: $first, after: $after) {
        nodes { ...GroupCategoryJson } totalCount pageInfo { hasNextPage endCursor } } }`,
      variables: ({ values }) => ({ type: values.course_id !== undefined ? 'Course' : 'Account', id: values.course_id ?? values.account_id }),
      root: 'groupSetsConnection',
      list: true,
      present: presentCategory,
    },
    ['/api/v1/courses/:course_id/group_categories', '/api/v1/accounts/:account_id/group_categories'],
  ),
  {
    method: 'GET',
    path: '/api/v1/group_categories/:id',
    accepts: P.category,
    operation: `query($id: ID!) { groupSet(id: $id) { ...GroupCategoryJson } }`,
    variables: ({ values }) => ({ id: values.id }),
    root: 'groupSet',
    present: presentCategory,
  },
  {
    method: 'PUT',
    path: '/api/v1/group_categories/:id',
    accepts: P.updateCategory,
    operation: `mutation($input: UpdateGroupCategoryInput!) { updateGroupSet(input: $input) { groupCategory { ...GroupCategoryJson } ${PAYLOAD_ERRORS} } }`,
    variables: ({ values }) => ({ input: { id: values.id, ...categoryFields(values), nonCollaborative: values.non_collaborative } }),
    root: 'updateGroupSet',
    payloadKey: 'groupCategory',
    present: presentCategory,
  },
  {
    method: 'DELETE',
    path: '/api/v1/group_categories/:id',
    accepts: P.category,
    operation: `mutation($id: ID!) { deleteGroupSet(id: $id) { groupCategory { ...GroupCategoryJson } ${PAYLOAD_ERRORS} } }`,
    variables: ({ values }) => ({ id: values.id }),
    root: 'deleteGroupSet',
    payloadKey: 'groupCategory',
    present: presentCategory,
  },
  {
    method: 'GET',
    path: '/api/v1/group_categories/:id/groups',
    accepts: P.category,
    operation: `query($id: ID!, $first: Int, $after: String, ${INCLUDE_VARS}) { groupSet(id: $id) { groupsConnection(first: $first, after: $after) {
      nodes { ...GroupJson } totalCount pageInfo { hasNextPage endCursor } } } }`,
    variables: (input) => ({ id: input.values.id, ...includes(input) }),
    root: 'groupSet.groupsConnection',
    list: true,
    present: presentGroup,
  },

  // ---- groups ----
  {
    method: 'GET',
    path: '/api/v1/users/self/groups',
    accepts: P.viewerGroups,
    operation: `query($type: String, $first: Int, $after: String, ${INCLUDE_VARS}) { viewerGroupsConnection(contextType: $type, first: $first, after: $after) {
      nodes { ...GroupJson } totalCount pageInfo { hasNextPage endCursor } } }`,
    variables: (input) => ({ type: input.values.context_type, ...includes(input) }),
    root: 'viewerGroupsConnection',
    list: { bookmark: true },
    present: presentGroup,
  },
  ...both(
    {
      method: 'GET',
      accepts: P.contextGroups,
      operation: `query($type: String!, $id: ID!, $own: Boolean, $state: String, $first: Int, $after: String, ${INCLUDE_VARS}) {
        contextGroupsConnection(contextType: $type, contextId: $id, onlyOwnGroups: $own, collaborationState: $state, first: $first, after: $after) {
        nodes { ...GroupJson } totalCount pageInfo { hasNextPage endCursor } } }`,
      variables: (input) => ({
        type: input.values.course_id !== undefined ? 'Course' : 'Account',
        id: input.values.course_id ?? input.values.account_id,
        own: input.values.only_own_groups,
        state: input.values.collaboration_state,
        ...includes(input),
      }),
      root: 'contextGroupsConnection',
      list: true,
      present: presentGroup,
    },
    ['/api/v1/courses/:course_id/groups', '/api/v1/accounts/:account_id/groups'],
  ),
  {
    method: 'GET',
    path: '/api/v1/groups/:group_id',
    accepts: P.group,
    operation: `query($id: ID!, ${INCLUDE_VARS}) { group(id: $id) { ...GroupJson } }`,
    variables: (input) => ({ id: input.values.group_id, ...includes(input) }),
    root: 'group',
    present: presentGroup,
  },
  {
    method: 'POST',
    path: '/api/v1/groups',
    accepts: P.createCommunity,
    operation: groupMutation('createGroup', 'CreateGroupInput'),
    variables: (input) => ({ input: groupFields(input), ...includes(input, true) }),
    root: 'createGroup',
    payloadKey: 'group',
    present: presentGroup,
  },
  {
    method: 'POST',
    path: '/api/v1/group_categories/:group_category_id/groups',
    accepts: P.createInCategory,
    operation: groupMutation('createGroup', 'CreateGroupInput'),
    variables: (input) => ({ input: { ...groupFields(input), groupCategoryId: input.values.group_category_id }, ...includes(input, true) }),
    root: 'createGroup',
    payloadKey: 'group',
    present: presentGroup,
  },
  {
    method: 'PUT',
    path: '/api/v1/groups/:group_id',
    accepts: P.updateGroup,
    operation: groupMutation('updateGroup', 'UpdateGroupInput'),
    variables: (input) => {
      const p = input.values;
      return {
        input: {
          id: p.group_id,
          ...groupFields(input),
          avatarId: p.avatar_id,
          members: p.members,
          overrideSisStickiness: p.override_sis_stickiness,
          leaderId: p.leader === undefined ? undefined : typeof p.leader === 'object' && p.leader ? p.leader.id ?? null : null,
        },
        ...includes(input, true),
      };
    },
    root: 'updateGroup',
    payloadKey: 'group',
    present: presentGroup,
  },
  {
    method: 'DELETE',
    path: '/api/v1/groups/:group_id',
    accepts: P.group,
    operation: `mutation($id: ID!, ${INCLUDE_VARS}) { deleteGroup(id: $id) { group { ...GroupJson } ${PAYLOAD_ERRORS} } }`,
    variables: (input) => ({ id: input.values.group_id, ...includes(input) }),
    root: 'deleteGroup',
    payloadKey: 'group',
    present: presentGroup,
  },
  {
    method: 'POST',
    path: '/api/v1/groups/:group_id/invite',
    accepts: P.invite,
    operation: `mutation($input: InviteToGroupInput!) { inviteToGroup(input: $input) { memberships { ...MembershipJson } pendingEmails ${PAYLOAD_ERRORS} } }`,
    variables: ({ values }) => ({ input: { groupId: values.group_id, invitees: values.invitees ?? [] } }),
    root: 'inviteToGroup',
    payloadKey: 'memberships',
    present: (list: Json[]) => list.map(presentMembership),
  },
  {
    method: 'GET',
    path: '/api/v1/groups/:group_id/users',
    accepts: P.groupUsers,
    operation: `query($id: ID!, $term: String, $inactive: Boolean, $first: Int, $after: String, $avatar: Boolean!) {
      groupUsersConnection(groupId: $id, searchTerm: $term, excludeInactive: $inactive, first: $first, after: $after) {
      nodes { id: _id name sortable_name: sortableName short_name: shortName created_at: createdAt avatar_url: avatarUrl @include(if: $avatar) }
      totalCount pageInfo { hasNextPage endCursor } } }`,
    variables: ({ values }) => ({
      id: values.group_id,
      term: values.search_term,
      inactive: values.exclude_inactive,
      avatar: (values.include ?? []).includes('avatar_url'),
    }),
    root: 'groupUsersConnection',
    list: true,
    present: (u: Json) => numericIds(u, ['id']),
  },
  {
    method: 'POST',
    path: '/api/v1/groups/:group_id/preview_html',
    accepts: P.previewHtml,
    operation: `query($id: ID!, $html: String) { previewGroupHtml(groupId: $id, html: $html) }`,
    variables: ({ values }) => ({ id: values.group_id, html: values.html ?? '' }),
    root: 'previewGroupHtml',
    present: (html: string) => ({ html }),
  },
  {
    method: 'GET',
    path: '/api/v1/groups/:group_id/permissions',
    accepts: P.permissions,
    operation: `query($id: ID!, $names: [String!]!) { groupPermissions(groupId: $id, names: $names) { name granted } }`,
    variables: ({ values }) => ({ id: values.group_id, names: values.permissions ?? [] }),
    root: 'groupPermissions',
    present: granted,
  },

  // ---- memberships ----
  {
    method: 'GET',
    path: '/api/v1/groups/:group_id/memberships',
    accepts: P.memberships,
    operation: `query($id: ID!, $states: [String!], $first: Int, $after: String) { groupMembershipsConnection(groupId: $id, filterStates: $states, first: $first, after: $after) {
      nodes { ...MembershipJson } totalCount pageInfo { hasNextPage endCursor } } }`,
    variables: ({ values }) => ({ id: values.group_id, states: values.filter_states ?? null }),
    root: 'groupMembershipsConnection',
    list: true,
    present: presentMembership,
  },
  ...both(
    {
      method: 'GET',
      operation: `query($id: ID!, $mid: ID, $uid: ID) { groupMembership(groupId: $id, membershipId: $mid, userId: $uid) { ...MembershipJson } }`,
      variables: ({ values }) => {
        const ref = membershipRef(values);
        return { id: values.group_id, mid: ref.membershipId, uid: ref.userId };
      },
      root: 'groupMembership',
      present: presentMembership,
    },
    ['/api/v1/groups/:group_id/memberships/:membership_id', '/api/v1/groups/:group_id/users/:user_id'],
    (path) => membershipParams(path),
  ),
  {
    method: 'POST',
    path: '/api/v1/groups/:group_id/memberships',
    accepts: P.join,
    operation: `mutation($input: JoinGroupInput!) { joinGroup(input: $input) { membership { ...MembershipJson } added { ...MembershipJson } invalidUserIds ${PAYLOAD_ERRORS} } }`,
    variables: ({ values }) => ({
      input: {
        groupId: values.group_id,
        userId: values.user_id,
        members: values.members,
        allInGroupCourse: values.all_in_group_course,
        excludeUserIds: values.exclude_user_ids,
      },
    }),
    root: 'joinGroup',
    present: (r: Json) => {
      if (r.membership) return presentMembership(r.membership);
      // Bulk (tag) additions: Canvas answers an empty object, or the partial failure it met.
      if (r.invalidUserIds?.length) return { message: 'Partial failure encountered', invalid_user_ids: r.invalidUserIds.map((id: string) => (/^\d+$/.test(id) ? Number(id) : id)), membership_errors: [] };
      return {};
    },
  },
  ...both(
    {
      method: 'PUT',
      operation: `mutation($input: UpdateMembershipInput!) { updateGroupMembership(input: $input) { membership { ...MembershipJson } ${PAYLOAD_ERRORS} } }`,
      variables: ({ values }) => ({
        input: { groupId: values.group_id, ...membershipRef(values), workflowState: values.workflow_state, moderator: values.moderator },
      }),
      root: 'updateGroupMembership',
      payloadKey: 'membership',
      present: presentMembership,
    },
    ['/api/v1/groups/:group_id/memberships/:membership_id', '/api/v1/groups/:group_id/users/:user_id'],
    (path) => membershipParams(path, P.updateMembership),
  ),
  ...both(
    {
      method: 'DELETE',
      operation: `mutation($input: MembershipRefInput!) { leaveGroup(input: $input) { membership { ...MembershipJson } ${PAYLOAD_ERRORS} } }`,
      variables: ({ values }) => ({ input: { groupId: values.group_id, ...membershipRef(values) } }),
      root: 'leaveGroup',
      payloadKey: 'membership',
      // Canvas answers {"ok": true}; the deleted membership comes along.
      present: (m: Json) => ({ ok: true, ...presentMembership(m) }),
    },
    ['/api/v1/groups/:group_id/memberships/:membership_id', '/api/v1/groups/:group_id/users/:user_id'],
    (path) => membershipParams(path),
  ),
];
