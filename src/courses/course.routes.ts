import { defineFragment, RestInput, RestRoute, PAYLOAD_ERRORS } from '../api/rest/route';
import { numericIds, omitNull } from '../api/rest/present';
import { courseParams as P } from './course.params';
import { CourseSchema, EnrollmentSchema, SectionSchema } from './course.schemas';

defineFragment(`fragment CourseJson on Course {
  id: _id name account_id: accountId root_account_id: rootAccountId uuid start_at: startAt end_at: endAt
  course_code: courseCode default_view: defaultView license is_public: isPublic
  public_description: publicDescription storage_quota_mb: storageQuotaMb created_at: createdAt
  time_zone: timeZone workflow_state: workflowState
  restrict_enrollments_to_course_dates: restrictEnrollmentsToCourseDates
  sis_course_id: sisCourseId integration_id: integrationId conditional_release: masteryPathsEnabled
}`);

defineFragment(`fragment SectionJson on Section {
  id: _id name course_id: courseId sis_section_id: sisSectionId integration_id: integrationId
  start_at: startAt end_at: endAt restrict_enrollments_to_section_dates: restrictEnrollmentsToSectionDates
  created_at: createdAt
}`);

defineFragment(`fragment EnrollmentJson on Enrollment {
  id: _id course_id: courseId course_section_id: courseSectionId root_account_id: rootAccountId
  user_id: userId type role enrollment_state: state associated_user_id: associatedUserId
  limit_privileges_to_course_section: limitPrivilegesToCourseSection created_at: createdAt
  updated_at: updatedAt start_at: startAt end_at: endAt last_activity_at: lastActivityAt
  user { id: _id name sortable_name: sortableName short_name: shortName login_id: loginId }
}`);

/** Canvas's short enrollment type names, used in a course's `enrollments` list. */
const SHORT_TYPE: Record<string, string> = {
  StudentEnrollment: 'student',
  TeacherEnrollment: 'teacher',
  TaEnrollment: 'ta',
  DesignerEnrollment: 'designer',
  ObserverEnrollment: 'observer',
};

export function presentCourse(c: Record<string, any>, input: RestInput) {
  const out: Record<string, unknown> = omitNull(
    numericIds(c, ['id', 'account_id', 'root_account_id']),
    ['sis_course_id', 'integration_id'],
  );
  Object.assign(out, {
    enrollment_term_id: null,
    grading_standard_id: null,
    is_public_to_auth_users: false,
    public_syllabus: false,
    public_syllabus_to_auth: false,
    blueprint: false,
    hide_final_grades: false,
    apply_assignment_group_weights: false,
    calendar: { ics: `${input.ctx.baseUrl}/feeds/calendars/course_${c.uuid}.ics` },
  });
  if (Array.isArray(c.enrollments)) {
    out.enrollments = c.enrollments.map((e: Record<string, unknown>) => ({
      type: SHORT_TYPE[e.type as string],
      role: e.role,
      user_id: Number(e.user_id),
      enrollment_state: e.enrollment_state,
      limit_privileges_to_course_section: e.limit_privileges_to_course_section,
    }));
  }
  return out;
}

export const presentSection = (s: Record<string, unknown>) => ({
  ...numericIds(s, ['id', 'course_id']),
  sis_import_id: null,
  nonxlist_course_id: null,
});

export function presentEnrollment(e: Record<string, any>, input: RestInput) {
  const out: Record<string, unknown> = numericIds(e, ['id', 'course_id', 'course_section_id', 'root_account_id', 'user_id', 'associated_user_id']);
  out.html_url = `${input.ctx.baseUrl}/courses/${e.course_id}/users/${e.user_id}`;
  if (e.user) out.user = omitNull(numericIds(e.user, ['id']), ['login_id']);
  if (e.type === 'StudentEnrollment') {
    out.grades = {
      html_url: `${input.ctx.baseUrl}/courses/${e.course_id}/grades/${e.user_id}`,
      current_score: null,
      final_score: null,
      current_grade: null,
      final_grade: null,
    };
  }
  return out;
}

/** A blank text clears the field (Canvas stores nil for ''). */
const blankNull = (v: string | null | undefined) => (v === undefined ? undefined : v || null);

function courseFields({ values, params }: RestInput) {
  const c: Record<string, any> = values.course ?? {};
  // conclude_at stands in for an end_at that is absent or JSON null (a blank end_at clears it).
  const rawEnd = (params.course as Record<string, unknown> | undefined)?.end_at;
  return {
    name: c.name,
    courseCode: c.course_code,
    startAt: c.start_at,
    endAt: rawEnd != null ? c.end_at : c.conclude_at,
    sisCourseId: blankNull(c.sis_course_id),
    integrationId: blankNull(c.integration_id),
    // '' or null leave the quota as it is.
    storageQuotaMb: c.storage_quota_mb ?? undefined,
    timeZone: c.time_zone,
    license: c.license,
    isPublic: c.is_public,
    publicDescription: c.public_description ?? undefined,
    defaultView: c.default_view,
    restrictEnrollmentsToCourseDates: c.restrict_enrollments_to_course_dates,
    masteryPathsEnabled: c.conditional_release,
  };
}


export const courseRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/v1/accounts/:account_id/courses',
    accepts: P.create,
    operation: `mutation($input: CreateCourseInput!) { createCourse(input: $input) { course { ...CourseJson } ${PAYLOAD_ERRORS} } }`,
    variables: (input) => ({
      input: {
        accountId: input.values.account_id,
        ...courseFields(input),
        offer: input.values.offer,
        // Canvas's value_to_boolean, as declared (1, yes and on count too).
        enrollMe: input.values.enroll_me === true,
      },
    }),
    root: 'createCourse',
    payloadKey: 'course',
    present: presentCourse,
    response: CourseSchema,
  },
  {
    method: 'GET',
    path: '/api/v1/courses',
    accepts: P.list,
    operation: `query($first: Int, $after: String, $state: String, $type: String) {
      coursesConnection(first: $first, after: $after, enrollmentState: $state, enrollmentType: $type) {
        nodes { ...CourseJson enrollments: viewerEnrollments { type role user_id: userId enrollment_state: state limit_privileges_to_course_section: limitPrivilegesToCourseSection } }
        totalCount pageInfo { hasNextPage endCursor } } }`,
    variables: ({ values }) => ({ state: values.enrollment_state, type: values.enrollment_type }),
    root: 'coursesConnection',
    list: true,
    present: presentCourse,
    response: CourseSchema,
  },
  {
    method: 'GET',
    path: '/api/v1/courses/:id',
    accepts: P.course,
    operation: `query($id: ID!) { course(id: $id) { ...CourseJson } }`,
    variables: ({ values }) => ({ id: values.id }),
    root: 'course',
    present: presentCourse,
    response: CourseSchema,
  },
  {
    method: 'PUT',
    path: '/api/v1/courses/:id',
    accepts: P.update,
    operation: `mutation($input: UpdateCourseInput!) { updateCourse(input: $input) { course { ...CourseJson } ${PAYLOAD_ERRORS} } }`,
    variables: (input) => {
      const event = input.values.course?.event ?? (input.values.offer ? 'offer' : undefined);
      return { input: { id: input.values.id, ...courseFields(input), event } };
    },
    root: 'updateCourse',
    payloadKey: 'course',
    present: presentCourse,
    response: CourseSchema,
  },
  {
    method: 'POST',
    path: '/api/v1/courses/:course_id/sections',
    accepts: P.createSection,
    operation: `mutation($input: CreateSectionInput!) { createSection(input: $input) { section { ...SectionJson } ${PAYLOAD_ERRORS} } }`,
    variables: ({ values }) => {
      const s: Record<string, any> = values.course_section ?? {};
      return {
        input: {
          courseId: values.course_id,
          name: s.name,
          sisSectionId: s.sis_section_id ?? undefined,
          integrationId: s.integration_id ?? undefined,
          startAt: s.start_at,
          endAt: s.end_at,
          restrictEnrollmentsToSectionDates: s.restrict_enrollments_to_section_dates,
        },
      };
    },
    root: 'createSection',
    payloadKey: 'section',
    present: presentSection,
    response: SectionSchema,
  },
  {
    method: 'GET',
    path: '/api/v1/courses/:course_id/sections',
    accepts: P.sections,
    operation: `query($id: ID!, $first: Int, $after: String) { course(id: $id) {
      sectionsConnection(first: $first, after: $after) { nodes { ...SectionJson } totalCount pageInfo { hasNextPage endCursor } } } }`,
    variables: ({ values }) => ({ id: values.course_id }),
    root: 'course.sectionsConnection',
    list: true,
    present: presentSection,
    response: SectionSchema,
  },
  {
    method: 'POST',
    path: '/api/v1/courses/:course_id/enrollments',
    accepts: P.createEnrollment,
    operation: `mutation($input: CreateEnrollmentInput!) { createEnrollment(input: $input) { enrollment { ...EnrollmentJson } ${PAYLOAD_ERRORS} } }`,
    variables: ({ values }) => {
      const e: Record<string, any> = values.enrollment ?? {};
      return {
        input: {
          courseId: values.course_id,
          userId: e.user_id,
          type: e.type,
          enrollmentState: e.enrollment_state,
          courseSectionId: e.course_section_id,
          associatedUserId: e.associated_user_id,
          limitPrivilegesToCourseSection: e.limit_privileges_to_course_section,
          startAt: e.start_at,
          endAt: e.end_at,
        },
      };
    },
    root: 'createEnrollment',
    payloadKey: 'enrollment',
    // Canvas renders enrollment-create problems as one message: {"message":"Invalid type, Can't …"}.
    validationBody: (fields) => ({ message: fields.map((f) => f.message).join(', ') }),
    present: presentEnrollment,
    response: EnrollmentSchema,
  },
  {
    method: 'GET',
    path: '/api/v1/courses/:course_id/enrollments',
    accepts: P.enrollments,
    operation: `query($id: ID!, $first: Int, $after: String, $types: [String!], $states: [String!], $userId: ID, $sectionId: ID) {
      course(id: $id) { enrollmentsConnection(first: $first, after: $after, types: $types, states: $states, userId: $userId, sectionId: $sectionId) {
        nodes { ...EnrollmentJson } pageInfo { hasNextPage endCursor } } } }`,
    variables: ({ values }) => ({
      id: values.course_id,
      types: values.type?.length ? values.type : values.role?.length ? values.role : null,
      states: values.state?.length ? values.state : null,
      userId: values.user_id,
      sectionId: values.section_id,
    }),
    root: 'course.enrollmentsConnection',
    list: { bookmark: true },
    present: presentEnrollment,
    response: EnrollmentSchema,
  },
];
