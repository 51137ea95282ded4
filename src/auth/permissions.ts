import type { EnrollmentType } from '../courses/enrollment.entity';

/**
 * Named permissions, as the spec and Canvas name them. Account admins hold all of them on every
 * course and sub-account below their account; course roles hold the defaults below.
 */
export const COURSE_PERMISSIONS = [
  'read',
  'read_roster',
  'read_course_content',
  'manage_course',
  'manage_sections',
  'manage_students',
  'manage_admin_users',
  'manage_content',
  'manage_assignments',
  'manage_grades',
  'view_all_grades',
  'manage_files',
  'manage_groups',
  'manage_tags',
  'manage_calendar',
  'manage_course_pacing',
  'moderate_forum',
  'create_discussion_topic',
  'create_announcement',
  'post_to_forum',
  'view_unpublished_items',
  'participate_as_student',
  'read_sis',
  'manage_sis',
  'manage_storage_quotas',
  'manage_user_logins',
  'create_access_tokens',
  'become_user',
] as const;
export type Permission = (typeof COURSE_PERMISSIONS)[number];

/** Admin-only permissions no course role gets. */
const ADMIN_ONLY: Permission[] = ['manage_sis', 'manage_storage_quotas', 'manage_user_logins', 'create_access_tokens', 'become_user'];

const TEACHER: Permission[] = COURSE_PERMISSIONS.filter((p) => !ADMIN_ONLY.includes(p) && p !== 'participate_as_student');

const TA: Permission[] = TEACHER.filter((p) => !['manage_admin_users', 'manage_course', 'manage_course_pacing', 'manage_sections'].includes(p));

const DESIGNER: Permission[] = [
  'read',
  'read_roster',
  'read_course_content',
  'manage_content',
  'manage_assignments',
  'manage_files',
  'manage_groups',
  'manage_calendar',
  'manage_course_pacing',
  'moderate_forum',
  'create_discussion_topic',
  'create_announcement',
  'post_to_forum',
  'view_unpublished_items',
];

const STUDENT: Permission[] = ['read', 'read_roster', 'read_course_content', 'post_to_forum', 'create_discussion_topic', 'participate_as_student'];

const OBSERVER: Permission[] = ['read', 'read_course_content'];

export const ROLE_PERMISSIONS: Record<EnrollmentType, ReadonlySet<Permission>> = {
  TeacherEnrollment: new Set(TEACHER),
  TaEnrollment: new Set(TA),
  DesignerEnrollment: new Set(DESIGNER),
  StudentEnrollment: new Set(STUDENT),
  ObserverEnrollment: new Set(OBSERVER),
};

/** Roles whose holders see a course while it is unpublished. */
export const STAFF_TYPES: ReadonlySet<EnrollmentType> = new Set(['TeacherEnrollment', 'TaEnrollment', 'DesignerEnrollment']);
