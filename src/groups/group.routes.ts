import { RestInput, RestRoute, PAYLOAD_ERRORS } from '../api/rest/route';
import { idList, nullableStr, str, strArray, toBool } from '../api/rest/params';
import { numericIds } from '../api/rest/present';
import { GroupCategorySchema, GroupJoinResultSchema, GroupLeaveResultSchema, GroupMembershipSchema, GroupSchema, GroupUserSchema, HtmlPreviewSchema, PermissionsSchema } from './group.schemas';
import { granted, INCLUDE_VARS, Json, presentCategory, presentGroup, presentMembership } from './group.present';
import { groupParams as P, membershipParams } from './group.params';

/** include[] → the @include variables of the group fragment. */
function includes(input: RestInput, always = false): Json {
  const inc = new Set(strArray(input.params.include));
  return {
    withUsers: always || inc.has('users'),
    withPermissions: always || inc.has('permissions'),
    withCategory: always || inc.has('group_category'),
  };
}

function groupFields(p: Json): Json {
  return {
    name: p.name === undefined ? undefined : str(p.name) ?? null,
    description: p.description === undefined ? undefined : nullableStr(p.description),
    isPublic: toBool(p.is_public),
    joinLevel: str(p.join_level),
    // '' or null leave the quota as it is (Canvas ignores a blank quota); Number(null) would be 0.
    storageQuotaMb: p.storage_quota_mb === undefined || p.storage_quota_mb === '' || p.storage_quota_mb === null ? undefined : Number(p.storage_quota_mb),
    sisGroupId: p.sis_group_id === undefined ? undefined : nullableStr(p.sis_group_id),
    maxMembership: p.max_membership === undefined || p.max_membership === '' ? undefined : p.max_membership === null ? null : Number(p.max_membership),
  };
}

function categoryFields(p: Json): Json {
  return {
    name: p.name === undefined ? undefined : str(p.name) ?? null,
    selfSignup: p.self_signup === undefined ? undefined : nullableStr(p.self_signup),
    groupLimit: p.group_limit === undefined ? undefined : p.group_limit === '' || p.group_limit === null ? null : Number(p.group_limit),
    autoLeader: p.auto_leader === undefined ? undefined : nullableStr(p.auto_leader),
    sisGroupCategoryId: p.sis_group_category_id === undefined ? undefined : nullableStr(p.sis_group_category_id),
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

const membershipRef = (p: Json) => (p.membership_id !== undefined ? { membershipId: str(p.membership_id) } : { userId: str(p.user_id) });

const groupMutation = (name: string, inputType: string) =>
  `mutation($input: ${inputType}!, ${INCLUDE_VARS}) { ${name}(input: $input) { group { ...GroupJson } ${PAYLOAD_ERRORS} } }`;

export const groupRoutes: RestRoute[] = [
  // ---- categories ----
  ...both(
    {
      method: 'POST',
      accepts: P.createCategory,
      operation: `mutation($input: CreateGroupCategoryInput!) { createGroupSet(input: $input) { groupCategory { ...GroupCategoryJson } ${PAYLOAD_ERRORS} } }`,
      variables: ({ params }) => ({
        input: {
          contextType: params.course_id !== undefined ? 'Course' : 'Account',
          contextId: str(params.course_id ?? params.account_id),
          ...categoryFields(params),
          nonCollaborative: toBool(params.non_collaborative),
          createGroupCount: params.create_group_count === undefined ? undefined : Number(params.create_group_count),
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
      variables: ({ params }) => ({ type: params.course_id !== undefined ? 'Course' : 'Account', id: str(params.course_id ?? params.account_id) }),
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
    variables: ({ params }) => ({ id: str(params.id) }),
    root: 'groupSet',
    present: presentCategory,
    response: GroupCategorySchema,
  },
  {
    method: 'PUT',
    path: '/api/v1/group_categories/:id',
    accepts: P.updateCategory,
    operation: `mutation($input: UpdateGroupCategoryInput!) { updateGroupSet(input: $input) { groupCategory { ...GroupCategoryJson } ${PAYLOAD_ERRORS} } }`,
    variables: ({ params }) => ({ input: { id: str(params.id), ...categoryFields(params), nonCollaborative: toBool(params.non_collaborative) } }),
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
    variables: ({ params }) => ({ id: str(params.id) }),
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
    variables: (input) => ({ id: str(input.params.group_category_id), ...includes(input) }),
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
    variables: (input) => ({ type: str(input.params.context_type), ...includes(input) }),
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
        type: input.params.course_id !== undefined ? 'Course' : 'Account',
        id: str(input.params.course_id ?? input.params.account_id),
        own: toBool(input.params.only_own_groups),
        state: str(input.params.collaboration_state),
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
    variables: (input) => ({ id: str(input.params.group_id), ...includes(input) }),
    root: 'group',
    present: presentGroup,
    response: GroupSchema,
  },
  {
    method: 'POST',
    path: '/api/v1/groups',
    accepts: P.createCommunity,
    operation: groupMutation('createGroup', 'CreateGroupInput'),
    variables: (input) => ({ input: groupFields(input.params), ...includes(input, true) }),
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
    variables: (input) => ({ input: { ...groupFields(input.params), groupCategoryId: str(input.params.group_category_id) }, ...includes(input, true) }),
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
      const p = input.params;
      return {
        input: {
          id: str(p.group_id),
          ...groupFields(p),
          avatarId: p.avatar_id === undefined ? undefined : nullableStr(p.avatar_id),
          members: p.members === undefined ? undefined : idList(p.members),
          overrideSisStickiness: toBool(p.override_sis_stickiness),
          leaderId: p.leader === undefined ? undefined : typeof p.leader === 'object' && p.leader ? str((p.leader as Json).id) ?? null : null,
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
    variables: (input) => ({ id: str(input.params.group_id), ...includes(input) }),
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
    variables: ({ params }) => ({ input: { groupId: str(params.group_id), invitees: strArray(params.invitees) } }),
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
    variables: ({ params }) => ({
      id: str(params.group_id),
      term: params.search_term === undefined ? undefined : str(params.search_term) ?? '',
      inactive: toBool(params.exclude_inactive),
      avatar: strArray(params.include).includes('avatar_url'),
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
    variables: ({ params }) => ({ id: str(params.group_id), html: str(params.html) ?? '' }),
    root: 'previewGroupHtml',
    present: (html: string) => ({ html }),
    response: HtmlPreviewSchema,
  },
  {
    method: 'GET',
    path: '/api/v1/groups/:group_id/permissions',
    accepts: P.permissions,
    operation: `query($id: ID!, $names: [String!]!) { groupPermissions(groupId: $id, names: $names) { name granted } }`,
    variables: ({ params }) => ({ id: str(params.group_id), names: strArray(params.permissions) }),
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
    variables: ({ params }) => ({ id: str(params.group_id), states: params.filter_states === undefined ? null : strArray(params.filter_states) }),
    root: 'groupMembershipsConnection',
    list: true,
    present: presentMembership,
    response: GroupMembershipSchema,
  },
  ...both(
    {
      method: 'GET',
      operation: `query($id: ID!, $mid: ID, $uid: ID) { groupMembership(groupId: $id, membershipId: $mid, userId: $uid) { ...MembershipJson } }`,
      variables: ({ params }) => {
        const ref = membershipRef(params);
        return { id: str(params.group_id), mid: ref.membershipId, uid: ref.userId };
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
    variables: ({ params }) => ({
      input: {
        groupId: str(params.group_id),
        userId: str(params.user_id),
        members: params.members === undefined ? undefined : strArray(params.members),
        allInGroupCourse: params.all_in_group_course === undefined ? undefined : toBool(params.all_in_group_course),
        excludeUserIds: params.exclude_user_ids === undefined ? undefined : strArray(params.exclude_user_ids),
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
      variables: ({ params }) => ({
        input: { groupId: str(params.group_id), ...membershipRef(params), workflowState: str(params.workflow_state), moderator: toBool(params.moderator) },
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
      variables: ({ params }) => ({ input: { groupId: str(params.group_id), ...membershipRef(params) } }),
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
