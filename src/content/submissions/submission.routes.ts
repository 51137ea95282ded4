import { defineFragment, RestInput, RestRoute, PAYLOAD_ERRORS } from '../../api/rest/route';
import { numericIds } from '../../api/rest/present';
import { bool, id, list, nullableText, obj, oneOf, params } from '../../api/rest/input';
import { userId } from '../../users/user.params';
import { checked, courseId, html } from '../content.params';
import { CreatedSubmissionSchema, SubmissionSchema } from './submission.schemas';

defineFragment(`fragment SubmissionJson on Submission {
  id: _id assignment_id: assignmentId user_id: userId course_id: courseId grader_id: graderId submission_type: submissionType
  body url attempt grade score submitted_at: submittedAt graded_at: gradedAt posted_at: postedAt workflow_state: workflowState
  grade_matches_current_submission: gradeMatchesCurrentSubmission late missing excused late_policy_status: latePolicyStatus
  seconds_late: secondsLate cached_due_date: cachedDueDate attachment_ids: attachmentIds
}`);

type Json = Record<string, any>;

/** Submission JSON as Canvas's submission_json: entered_* mirror the grade (no late deductions here). */
export function presentSubmission(s: Json, input: RestInput): Json {
  const { attachment_ids, course_id, ...rest } = numericIds(s, ['id', 'assignment_id', 'user_id', 'course_id', 'grader_id', 'attachment_ids']);
  return {
    ...rest,
    entered_grade: s.grade,
    entered_score: s.score,
    points_deducted: s.late ? 0 : null,
    extra_attempts: null,
    redo_request: false,
    preview_url: `${input.ctx.baseUrl}/courses/${course_id}/assignments/${s.assignment_id}/submissions/${s.user_id}?preview=1&version=${s.attempt ?? 0}`,
    attachments: (attachment_ids as number[]).map((id) => ({ id })),
  };
}

/** The create response also carries (empty) comments, as Canvas's includes %w[submission_comments attachments]. */
const presentCreated = (s: Json, input: RestInput) => ({ ...presentSubmission(s, input), submission_comments: [] });

// ---- declared params ----
const assignmentRef = { course_id: courseId(), assignment_id: id() };
const studentRef = { ...assignmentRef, user_id: userId() };
/** The type and what it requires are the service's to check, with Canvas's RequestError bodies. */
const submitBody = obj({
  submission_type: checked().optional(),
  body: html().optional(),
  // The url column holds 2048 characters; the service checks the scheme.
  url: nullableText({ max: 2048 }).optional(),
  file_ids: list(id(), { max: 100 }).optional(),
});
/** Grades are words, numbers, percentages or letters the grading scheme reads; the status is the service's enum check. */
const gradeBody = obj({
  posted_grade: checked().optional(),
  excuse: bool().optional(),
  late_policy_status: checked().optional(),
});

const PATH = '/api/v1/courses/:course_id/assignments/:assignment_id/submissions';
const ref = (values: Json) => ({ assignmentId: values.assignment_id, courseId: values.course_id });

export const submissionRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: PATH,
    accepts: params({ ...assignmentRef, submission: submitBody.optional() }),
    operation: `mutation($input: CreateSubmissionInput!) { createSubmission(input: $input) { submission { ...SubmissionJson } ${PAYLOAD_ERRORS} } }`,
    variables: ({ values }) => {
      const s: Json = values.submission ?? {};
      return {
        input: {
          ...ref(values),
          submissionType: s.submission_type ?? undefined,
          // Present-but-empty and absent differ: Canvas names the missing parameter.
          body: s.body === undefined ? undefined : s.body ?? '',
          url: s.url === undefined ? undefined : s.url ?? '',
          fileIds: s.file_ids,
        },
      };
    },
    root: 'createSubmission',
    payloadKey: 'submission',
    present: presentCreated,
    response: CreatedSubmissionSchema,
    status: 201,
    headers: (s: Json, input) => ({ Location: `${input.ctx.baseUrl}/api/v1/courses/${input.params.course_id}/assignments/${input.params.assignment_id}/submissions/${s.user_id}` }),
  },
  {
    method: 'GET',
    path: PATH,
    accepts: params({ ...assignmentRef, workflow_state: list(oneOf(['submitted', 'unsubmitted', 'graded', 'pending_review']), { max: 10 }).optional() }),
    operation: `query($id: ID!, $courseId: ID!, $states: [String!], $first: Int, $after: String) { assignment(id: $id, courseId: $courseId) {
      submissionsConnection(workflowStates: $states, first: $first, after: $after) { nodes { ...SubmissionJson } totalCount pageInfo { hasNextPage endCursor } } } }`,
    variables: ({ values }) => ({
      id: values.assignment_id,
      courseId: values.course_id,
      states: values.workflow_state,
    }),
    root: 'assignment.submissionsConnection',
    list: true,
    present: presentSubmission,
    response: SubmissionSchema,
  },
  {
    method: 'GET',
    path: `${PATH}/:user_id`,
    accepts: params(studentRef),
    operation: `query($assignmentId: ID!, $userId: ID!, $courseId: ID) { submission(assignmentId: $assignmentId, userId: $userId, courseId: $courseId) { ...SubmissionJson } }`,
    variables: ({ values }) => ({ ...ref(values), userId: values.user_id }),
    root: 'submission',
    present: presentSubmission,
    response: SubmissionSchema,
  },
  {
    method: 'PUT',
    path: `${PATH}/:user_id`,
    accepts: params({ ...studentRef, submission: gradeBody.optional() }),
    operation: `mutation($input: GradeSubmissionInput!) { gradeSubmission(input: $input) { submission { ...SubmissionJson } ${PAYLOAD_ERRORS} } }`,
    variables: ({ values }) => {
      const s: Json = values.submission ?? {};
      return {
        input: {
          ...ref(values),
          userId: values.user_id,
          // JSON null clears a grade or status as '' does.
          postedGrade: s.posted_grade === null ? '' : s.posted_grade,
          excuse: s.excuse,
          latePolicyStatus: s.late_policy_status === null ? '' : s.late_policy_status,
        },
      };
    },
    root: 'gradeSubmission',
    payloadKey: 'submission',
    present: presentSubmission,
    response: SubmissionSchema,
  },
];
