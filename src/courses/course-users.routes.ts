import { defineFragment, RestInput, RestRoute } from '../api/rest/route';
import { CourseUserSchema } from './course-user.schemas';
import { id, ids, list, oneOf, params, text } from '../api/rest/input';
import { strArray } from '../api/rest/params';
import { numericIds, omitNull } from '../api/rest/present';
import { userId } from '../users/user.params';
import { courseId } from './course.params';
import { presentEnrollment } from './course.routes';
import { COURSE_USER_SORTS, COURSE_USER_STATES, COURSE_USER_TYPES } from './course-users.service';

/**
 * Canvas's user_json for a course's people (courses#users, #search_users, #user). Optional parts follow
 * include[]: enrollments (the person's enrollments here the viewer may read, in the listed states),
 * sections (of those enrollments), avatar_url, locale, time_zone, uuid, bio (no bios are kept: null).
 * email and sis_user_id are always asked for, as Canvas adds them itself, and appear only to those
 * who may see them (the user and their admins; SIS ids to admins).
 */
defineFragment(`fragment CourseUserJson on User {
  id: _id name created_at: createdAt sortable_name: sortableName short_name: shortName
  sis_user_id: sisUserId integration_id: integrationId login_id: loginId email
  avatar_url: avatarUrl @include(if: $avatar) locale @include(if: $locale) time_zone: timeZone @include(if: $timeZone)
  uuid @include(if: $uuid)
  enrollments(courseId: $course) @include(if: $enrollments) {
    id: _id course_id: courseId course_section_id: courseSectionId root_account_id: rootAccountId
    user_id: userId type role role_id: roleId enrollment_state: state associated_user_id: associatedUserId
    limit_privileges_to_course_section: limitPrivilegesToCourseSection created_at: createdAt
    updated_at: updatedAt start_at: startAt end_at: endAt last_activity_at: lastActivityAt
    section { id: _id name start_at: startAt end_at: endAt }
  }
}`);

const includeFlags = (input: RestInput) => {
  const inc = new Set(strArray(input.params.include));
  const sections = inc.has('sections');
  return {
    avatar: inc.has('avatar_url'),
    locale: inc.has('locale'),
    timeZone: inc.has('time_zone'),
    uuid: inc.has('uuid'),
    // Sections are read through the enrollments.
    enrollments: inc.has('enrollments') || sections,
  };
};

export function presentCourseUser(u: Record<string, any>, input: RestInput) {
  const inc = new Set(strArray(input.params.include));
  const { enrollments, ...rest } = u;
  const out: Record<string, unknown> = omitNull(numericIds(rest, ['id']), ['sis_user_id', 'integration_id', 'login_id', 'email']);
  if (inc.has('bio')) out.bio = null;
  if (inc.has('last_login')) out.last_login = null;
  if (!Array.isArray(enrollments)) return out;
  // The person's enrollments in the states the list asked for (the current ones by default).
  const asked = strArray(input.params.enrollment_state);
  const shown = enrollments.filter((e: Record<string, unknown>) =>
    asked.length ? asked.includes(e.enrollment_state as string) : ['active', 'invited', 'creation_pending'].includes(e.enrollment_state as string),
  );
  if (inc.has('enrollments')) {
    out.enrollments = shown.map(({ section, ...e }: Record<string, any>) => {
      const json = presentEnrollment(e, input) as Record<string, unknown>;
      json.role_id = Number(e.role_id);
      return json;
    });
  }
  if (inc.has('sections')) {
    const seen = new Map<number, unknown>();
    for (const e of shown) if (e.section && !seen.has(Number(e.section.id))) seen.set(Number(e.section.id), numericIds(e.section, ['id']));
    out.sections = [...seen.values()];
  }
  return out;
}

const listParams = params({
  course_id: courseId(),
  search_term: text({ max: 255 }).optional(),
  enrollment_type: list(oneOf(Object.keys(COURSE_USER_TYPES) as [string, ...string[]]), { max: 10 }).optional(),
  enrollment_role_id: id().optional(),
  enrollment_state: list(oneOf(COURSE_USER_STATES), { max: 10 }).optional(),
  user_ids: ids(id(), { max: 100 }).optional(),
  sort: oneOf(COURSE_USER_SORTS).optional(),
  order: oneOf(['asc', 'desc']).optional(),
});

const FLAG_VARS = '$avatar: Boolean!, $locale: Boolean!, $timeZone: Boolean!, $uuid: Boolean!, $enrollments: Boolean!, $course: ID';

const listRoute = (path: string): RestRoute => ({
  method: 'GET',
  path,
  response: CourseUserSchema,
  accepts: listParams,
  operation: `query($id: ID!, $first: Int, $after: String, $searchTerm: String, $types: [String!], $roleId: ID, $states: [String!], $userIds: [ID!], $sort: String, $order: String, ${FLAG_VARS}) {
    course(id: $id) { usersConnection(first: $first, after: $after, searchTerm: $searchTerm, enrollmentTypes: $types, enrollmentRoleId: $roleId,
      enrollmentStates: $states, userIds: $userIds, sort: $sort, order: $order) {
      nodes { ...CourseUserJson } pageInfo { hasNextPage endCursor } } } }`,
  variables: (input) => {
    const v = input.values;
    const types = (v.enrollment_type as string[] | undefined) ?? [];
    const states = (v.enrollment_state as string[] | undefined) ?? [];
    const users = (v.user_ids as string[] | undefined) ?? [];
    return {
      id: v.course_id,
      course: v.course_id,
      searchTerm: v.search_term,
      types: types.length ? types : null,
      roleId: v.enrollment_role_id,
      states: states.length ? states : null,
      userIds: users.length ? users : null,
      sort: v.sort,
      order: v.order,
      ...includeFlags(input),
    };
  },
  root: 'course.usersConnection',
  // Canvas numbers these pages; the Link header's next is a bookmark so following it never skips rows
  // with an offset (a deep page of a large course costs what the first does), and page=N still works.
  list: { bookmark: true, numbered: true },
  present: presentCourseUser,
});

export const courseUserRoutes: RestRoute[] = [
  listRoute('/api/v1/courses/:course_id/users'),
  listRoute('/api/v1/courses/:course_id/search_users'),
  {
    method: 'GET',
    path: '/api/v1/courses/:course_id/users/:id',
    response: CourseUserSchema,
    accepts: params({ course_id: courseId(), id: userId() }),
    operation: `query($cid: ID!, $uid: ID!, ${FLAG_VARS}) { course(id: $cid) { user(id: $uid) { ...CourseUserJson } } }`,
    variables: (input) => ({ cid: input.values.course_id, course: input.values.course_id, uid: input.values.id, ...includeFlags(input) }),
    root: 'course.user',
    present: presentCourseUser,
  },
];
