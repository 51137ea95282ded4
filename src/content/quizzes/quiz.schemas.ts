import { arr, constant, defineSchema, shape } from '../../api/rest/response';
import { LOCK_OPTIONAL, lockProps } from '../content.schemas';

/** Canvas's Quiz JSON (presentQuiz). */
export const QuizSchema = defineSchema(
  'Quiz',
  shape(
    {
      id: 'id', title: 'string', description: 'string?', html_url: 'string', quiz_type: 'string', time_limit: 'int?',
      shuffle_answers: 'bool', scoring_policy: 'string', allowed_attempts: 'int', question_count: 'int',
      points_possible: 'number?', access_code: 'string?', due_at: 'date?', lock_at: 'date?', unlock_at: 'date?',
      published: 'bool', unpublishable: 'bool', assignment_id: 'id?',
      ...lockProps,
      permissions: shape({
        read: 'bool', submit: 'bool', create: 'bool', manage: 'bool', update: 'bool', delete: 'bool', grade: 'bool',
        read_statistics: 'bool', review_grades: 'bool',
      }),
      mobile_url: 'string', preview_url: 'string', assignment_group_id: constant(null), hide_results: constant(null),
      show_correct_answers: 'bool', show_correct_answers_last_attempt: 'bool', show_correct_answers_at: constant(null),
      hide_correct_answers_at: constant(null), one_time_results: 'bool', one_question_at_a_time: 'bool', cant_go_back: 'bool',
      ip_filter: constant(null), speedgrader_url: 'string?', quiz_extensions_url: 'string', version_number: 'int',
      question_types: arr('string'), anonymous_submissions: 'bool',
    },
    { optional: LOCK_OPTIONAL },
  ),
);

/** Canvas's QuizSubmission JSON (presentQuizSubmission): validation_token only for its own taker. */
export const QuizSubmissionSchema = defineSchema(
  'QuizSubmission',
  shape(
    {
      id: 'id', quiz_id: 'id', user_id: 'id', submission_id: 'id?', score: 'number?', kept_score: 'number?',
      started_at: 'date?', finished_at: 'date?', end_at: 'date?', attempt: 'int', extra_attempts: 'int?', extra_time: 'int?',
      manually_unlocked: 'bool', time_spent: 'int?', fudge_points: 'number?', workflow_state: 'string',
      overdue_and_needs_submission: 'bool', quiz_points_possible: 'number?', validation_token: 'string',
      quiz_version: 'int', score_before_regrade: constant(null), has_seen_results: 'bool', html_url: 'string', result_url: 'string',
    },
    { optional: ['validation_token'] },
  ),
);

/** Canvas wraps one quiz submission as a one-element list. */
export const QuizSubmissionsSchema = defineSchema('QuizSubmissions', shape({ quiz_submissions: arr(QuizSubmissionSchema) }));
