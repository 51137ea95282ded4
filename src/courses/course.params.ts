import { accountId } from '../accounts/account.params';
import { bool, date, id, int, list, model, nullableText, oneOf, params, text } from '../api/rest/input';
import { userId } from '../users/user.params';
import { COURSE_EVENTS, DEFAULT_VIEWS } from './course.service';
import { ENROLLMENT_STATES, ENROLLMENT_TYPES } from './enrollment.entity';

/** A course as the course service looks one up: id or sis_course_id:. */
export const courseId = (opts: { nullable?: boolean } = {}) => id({ prefixes: ['sis_course_id'], ...opts });

/** A section as the section service looks one up within its course: id or sis_section_id:. */
export const sectionId = () => id({ prefixes: ['sis_section_id'] });

/**
 * Declared params of the course, section and enrollment rows (src/courses/course.routes.ts). The
 * course[...], course_section[...] and enrollment[...] hashes are model() hashes: a refusal names the
 * attribute (`start_at`) as Canvas's model errors do. Canvas answers a bad enrollment[type] or
 * enrollment[enrollment_state] with its own one-line message, so those two stay short text for the
 * service to judge.
 */
const courseFields = model({
  name: text({ max: 255 }).optional(),
  course_code: text({ max: 255 }).optional(),
  start_at: date().optional(),
  end_at: date().optional(),
  conclude_at: date().optional(),
  sis_course_id: nullableText({ max: 255 }).optional(),
  integration_id: nullableText({ max: 255 }).optional(),
  storage_quota_mb: int({ min: 0, max: 2_147_483_647, nullable: true }).optional(),
  // 64-character columns, which the service does not check (MySQL would refuse a longer value).
  time_zone: text({ max: 64 }).optional(),
  license: text({ max: 64 }).optional(),
  is_public: bool().optional(),
  public_description: nullableText({ max: 65_535 }).optional(),
  default_view: oneOf(DEFAULT_VIEWS).optional(),
  restrict_enrollments_to_course_dates: bool().optional(),
  conditional_release: bool().optional(),
  event: oneOf(COURSE_EVENTS).optional(),
});

/** Canvas's enrollment state filters: the states themselves and its three aliases. */
const ENROLLMENT_STATE_FILTERS = [...ENROLLMENT_STATES, 'current_and_invited', 'current_and_future', 'current_and_concluded'] as const;

export const courseParams = {
  create: params({ account_id: accountId(), course: courseFields.optional(), offer: bool().optional(), enroll_me: bool().optional() }),
  list: params({
    enrollment_state: oneOf(['active', 'invited_or_pending', 'completed']).optional(),
    enrollment_type: oneOf(['teacher', 'student', 'ta', 'observer', 'designer']).optional(),
  }),
  course: params({ id: courseId() }),
  update: params({ id: courseId(), course: courseFields.optional(), offer: bool().optional() }),
  createSection: params({
    course_id: courseId(),
    course_section: model({
      name: text({ max: 255 }).optional(),
      sis_section_id: nullableText({ max: 255 }).optional(),
      integration_id: nullableText({ max: 255 }).optional(),
      start_at: date().optional(),
      end_at: date().optional(),
      restrict_enrollments_to_section_dates: bool().optional(),
    }).optional(),
  }),
  sections: params({ course_id: courseId() }),
  createEnrollment: params({
    course_id: courseId(),
    enrollment: model({
      user_id: userId().optional(),
      type: text({ max: 64 }).optional(),
      enrollment_state: text({ max: 64 }).optional(),
      course_section_id: sectionId().optional(),
      associated_user_id: userId().optional(),
      limit_privileges_to_course_section: bool().optional(),
      start_at: date().optional(),
      end_at: date().optional(),
    }).optional(),
  }),
  enrollments: params({
    course_id: courseId(),
    type: list(oneOf(ENROLLMENT_TYPES), { max: 10 }).optional(),
    // Role names (custom roles included) are words, not a fixed set.
    role: list(text({ max: 255 }), { max: 50 }).optional(),
    state: list(oneOf(ENROLLMENT_STATE_FILTERS), { max: 20 }).optional(),
    user_id: userId().optional(),
    section_id: sectionId().optional(),
  }),
};
