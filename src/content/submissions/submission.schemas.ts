import { arr, constant, defineSchema, shape } from '../../api/rest/response';

const submission = {
  id: 'id', assignment_id: 'id', user_id: 'id', grader_id: 'id?', submission_type: 'string?', body: 'string?', url: 'string?',
  attempt: 'int?', grade: 'string?', score: 'number?', submitted_at: 'date?', graded_at: 'date?', posted_at: 'date?',
  workflow_state: 'string', grade_matches_current_submission: 'bool', late: 'bool', missing: 'bool', excused: 'bool',
  late_policy_status: 'string?', seconds_late: 'int', cached_due_date: 'date?',
  entered_grade: 'string?', entered_score: 'number?', points_deducted: 'number?', extra_attempts: constant(null),
  redo_request: 'bool', preview_url: 'string', attachments: arr(shape({ id: 'id' })),
} as const;

/** Canvas's Submission JSON (presentSubmission). */
export const SubmissionSchema = defineSchema('Submission', shape(submission));

/** The create answer also carries (empty) comments, as Canvas's include of submission_comments. */
export const CreatedSubmissionSchema = defineSchema('CreatedSubmission', shape({ ...submission, submission_comments: arr('any') }));
