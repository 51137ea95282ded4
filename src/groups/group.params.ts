import { accountId } from '../accounts/account.params';
import { courseId } from '../courses/course.params';
import { bool, id, ids, int, list, nullableText, obj, oneOf, params, text, z } from '../api/rest/input';
import { userId } from '../users/user.params';
import { JOIN_LEVELS } from './group.entity';

/**
 * Declared params of the groups area's REST rows (src/groups/group.routes.ts). Business rules with
 * Canvas's own messages (a limit "Must be greater than 1", a taken name) stay in the services; these
 * catch shapes, ranges and enumerations before anything is built.
 */

/** Counts and sizes stored in 32-bit INT columns. */
const INT_MAX = 2_147_483_647;

/** A group as the group service looks it up: id or sis_group_id:. */
export const groupId = () => id({ prefixes: ['sis_group_id'] });
const categoryId = () => id({ prefixes: ['sis_group_category_id'] });

/** The course or account a category or group list lives in (one of the two paths). */
const context = { course_id: courseId().optional(), account_id: accountId().optional() };

const categoryFields = {
  name: text({ max: 255 }).optional(),
  self_signup: oneOf(['enabled', 'restricted'], { nullable: true }).optional(),
  // "Must be greater than 1" is the service's (Canvas's) message; the schema keeps it a small integer.
  group_limit: int({ min: 0, max: INT_MAX, nullable: true }).optional(),
  auto_leader: oneOf(['first', 'random'], { nullable: true }).optional(),
  sis_group_category_id: nullableText({ max: 255 }).optional(),
  non_collaborative: bool().optional(),
};

const groupFields = {
  name: text({ max: 255 }).optional(),
  description: nullableText({ max: 65_535 }).optional(),
  is_public: bool().optional(),
  join_level: oneOf(JOIN_LEVELS).optional(),
  storage_quota_mb: int({ min: 0, max: INT_MAX, nullable: true }).optional(),
  sis_group_id: nullableText({ max: 255 }).optional(),
  max_membership: int({ min: 0, max: INT_MAX, nullable: true }).optional(),
};

/** members[] of a group update: user ids (a comma string works too); an empty value empties the group. */
const memberIds = ids(id(), { max: 10_000 });

export const groupParams = {
  createCategory: params({ ...context, ...categoryFields, create_group_count: int({ min: 0, max: 200 }).optional() }),
  listCategories: params(context),
  category: params({ id: categoryId() }),
  updateCategory: params({ id: categoryId(), ...categoryFields }),
  categoryGroups: params({ group_category_id: categoryId() }),

  viewerGroups: params({ context_type: oneOf(['Account', 'Course']).optional() }),
  contextGroups: params({
    ...context,
    only_own_groups: bool().optional(),
    collaboration_state: oneOf(['collaborative', 'non_collaborative', 'all']).optional(),
  }),
  group: params({ group_id: groupId() }),
  createCommunity: params(groupFields),
  createInCategory: params({ group_category_id: categoryId(), ...groupFields }),
  updateGroup: params({
    group_id: groupId(),
    ...groupFields,
    avatar_id: id({ nullable: true }).optional(),
    members: memberIds.optional(),
    override_sis_stickiness: bool().optional(),
    // leader[id] names a member; a blank leader clears it.
    leader: z.union([obj({ id: id({ nullable: true }).optional() }), z.literal(''), z.null()], { error: 'must be leader[id] or empty' }).optional(),
  }),
  // invitees[] is required; left optional here so a missing list gets the service's Canvas body ("invitees[] is missing").
  invite: params({ group_id: groupId(), invitees: list(text({ max: 255 }), { max: 1_000 }).optional() }),
  groupUsers: params({
    group_id: groupId(),
    // At least 3 characters: the service answers that with Canvas's own body.
    search_term: text({ max: 255 }).optional(),
    exclude_inactive: bool().optional(),
  }),
  previewHtml: params({ group_id: groupId(), html: nullableText({ max: 1_048_576 }).optional() }),
  permissions: params({ group_id: groupId(), permissions: list(text({ max: 255 }), { max: 100 }).optional() }),

  memberships: params({ group_id: groupId(), filter_states: list(oneOf(['accepted', 'invited', 'requested'])).optional() }),
  join: params({
    group_id: groupId(),
    user_id: userId().optional(),
    // Differentiation tags report ids they cannot add (Canvas's partial failure), so any short word is taken here.
    members: list(text({ max: 255 }), { max: 10_000 }).optional(),
    all_in_group_course: bool().optional(),
    exclude_user_ids: list(id(), { max: 10_000 }).optional(),
  }),
  // The only state a membership may be moved to is accepted (Canvas ignored others; we refuse them).
  updateMembership: { workflow_state: oneOf(['accepted']).optional(), moderator: bool().optional() },
};

/** A membership row's params under /memberships/:membership_id or /users/:user_id (`self` in either). */
export function membershipParams(path: string, extra: Record<string, z.ZodType<unknown>> = {}) {
  const ref: Record<string, z.ZodType<unknown>> = path.includes(':membership_id') ? { membership_id: id({ self: true }) } : { user_id: userId() };
  return params({ group_id: groupId(), ...ref, ...extra });
}
