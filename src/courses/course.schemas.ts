import { arr, constant, defineSchema, shape } from '../api/rest/response';

/** Canvas's Course JSON, as presentCourse answers it (src/courses/course.routes.ts). */
export const CourseSchema = defineSchema(
  'Course',
  shape(
    {
      id: 'id', name: 'string', account_id: 'id', root_account_id: 'id', uuid: 'string',
      start_at: 'date?', end_at: 'date?', course_code: 'string', default_view: 'string', license: 'string?',
      is_public: 'bool', public_description: 'string?', storage_quota_mb: 'int?', created_at: 'date',
      time_zone: 'string?', workflow_state: 'string', restrict_enrollments_to_course_dates: 'bool',
      sis_course_id: 'string?', integration_id: 'string?', conditional_release: 'bool',
      enrollment_term_id: constant(null), grading_standard_id: constant(null),
      is_public_to_auth_users: 'bool', public_syllabus: 'bool', public_syllabus_to_auth: 'bool', blueprint: 'bool',
      hide_final_grades: 'bool', apply_assignment_group_weights: 'bool',
      calendar: shape({ ics: 'string' }),
      enrollments: arr(
        shape({ type: 'string', role: 'string', user_id: 'id', enrollment_state: 'string', limit_privileges_to_course_section: 'bool' }),
      ),
    },
    { optional: ['sis_course_id', 'integration_id', 'enrollments'] },
  ),
);

export const SectionSchema = defineSchema(
  'Section',
  shape({
    id: 'id', name: 'string', course_id: 'id', sis_section_id: 'string?', integration_id: 'string?',
    start_at: 'date?', end_at: 'date?', restrict_enrollments_to_section_dates: 'bool', created_at: 'date',
    sis_import_id: constant(null), nonxlist_course_id: constant(null),
  }),
);

export const EnrollmentSchema = defineSchema(
  'Enrollment',
  shape(
    {
      id: 'id', course_id: 'id', course_section_id: 'id', root_account_id: 'id', user_id: 'id',
      type: 'string', role: 'string', enrollment_state: 'string', associated_user_id: 'id?',
      limit_privileges_to_course_section: 'bool', created_at: 'date', updated_at: 'date',
      start_at: 'date?', end_at: 'date?', last_activity_at: 'date?', html_url: 'string',
      user: shape({ id: 'id', name: 'string', sortable_name: 'string', short_name: 'string', login_id: 'string' }, { optional: ['login_id'] }),
      grades: shape({ html_url: 'string', current_score: 'number?', final_score: 'number?', current_grade: 'string?', final_grade: 'string?' }),
    },
    { optional: ['grades'] },
  ),
);
