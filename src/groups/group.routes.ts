import { RestInput, RestRoute, PAYLOAD_ERRORS } from '../api/rest/route';
import { numericIds } from '../api/rest/present';
import { GroupCategorySchema, GroupJoinResultSchema, GroupLeaveResultSchema, GroupMembershipSchema, GroupSchema, GroupUserSchema, HtmlPreviewSchema, PermissionsSchema } from './group.schemas';
import { granted, INCLUDE_VARS, Json, presentCategory, presentGroup, presentMembership } from './group.present';
import { groupParams as P, membershipParams } from './group.params';

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
      response: GroupCategorySchema,
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
      response: GroupCategorySchema,
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
    response: GroupCategorySchema,
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
    response: GroupCategorySchema,
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
    response: GroupCategorySchema,
  },
  {
    method: 'GET',
    // Named as the create row below names it: one Canvas path, one parameter name (OpenAPI has no two).
    path: '/api/v1/group_categories/:group_category_id/groups',
    accepts: P.categoryGroups,
    operation: `query($id: ID!, $first: Int, $after: String, ${INCLUDE_VARS}) { groupSet(id: $id) { groupsConnection(first: $first, after: $after) {
      nodes { ...GroupJson } totalCount pageInfo { hasNextPage endCursor } } } }`,
    variables: (input) => ({ id: input.values.group_category_id, ...includes(input) }),
    root: 'groupSet.groupsConnection',
    list: true,
    present: presentGroup,
    response: GroupSchema,
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
    response: GroupSchema,
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
      response: GroupSchema,
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
    response: GroupSchema,
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
    response: GroupSchema,
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
    response: GroupSchema,
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
    response: GroupSchema,
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
    response: GroupSchema,
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
    response: { type: 'array', items: GroupMembershipSchema },
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
    response: GroupUserSchema,
  },
  {
    method: 'POST',
    path: '/api/v1/groups/:group_id/preview_html',
    accepts: P.previewHtml,
    operation: `query($id: ID!, $html: String) { previewGroupHtml(groupId: $id, html: $html) }`,
    variables: ({ values }) => ({ id: values.group_id, html: values.html ?? '' }),
    root: 'previewGroupHtml',
    present: (html: string) => ({ html }),
    response: HtmlPreviewSchema,
  },
  {
    method: 'GET',
    path: '/api/v1/groups/:group_id/permissions',
    accepts: P.permissions,
    operation: `query($id: ID!, $names: [String!]!) { groupPermissions(groupId: $id, names: $names) { name granted } }`,
    variables: ({ values }) => ({ id: values.group_id, names: values.permissions ?? [] }),
    root: 'groupPermissions',
    present: granted,
    response: PermissionsSchema,
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
    response: GroupMembershipSchema,
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
      response: GroupMembershipSchema,
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
    response: GroupJoinResultSchema,
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
      response: GroupMembershipSchema,
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
      response: GroupLeaveResultSchema,
    },
    ['/api/v1/groups/:group_id/memberships/:membership_id', '/api/v1/groups/:group_id/users/:user_id'],
    (path) => membershipParams(path),
  ),
];
