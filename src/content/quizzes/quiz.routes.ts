import { defineFragment, RestInput, RestRoute, PAYLOAD_ERRORS } from '../../api/rest/route';
import { numericIds } from '../../api/rest/present';
import { LOCK_FIELDS, lockKeys } from '../lock-info';
import { reject } from './quiz-submission.service';
import { bool, hash, id, list, nullableText, obj, params, z } from '../../api/rest/input';
import { checked, checkedDate, checkedNumber, courseId, html, word } from '../content.params';
import { QuizSchema, QuizSubmissionSchema, QuizSubmissionsSchema } from './quiz.schemas';

defineFragment(`fragment QuizJson on Quiz {
  id: _id title description html_url: htmlUrl quiz_type: quizType time_limit: timeLimit shuffle_answers: shuffleAnswers
  scoring_policy: scoringPolicy allowed_attempts: allowedAttempts question_count: questionCount points_possible: pointsPossible
  access_code: accessCode due_at: dueAt lock_at: lockAt unlock_at: unlockAt published unpublishable assignment_id: assignmentId
  course_id: courseId
  ${LOCK_FIELDS}
  permissions { read submit create manage update delete grade read_statistics: readStatistics review_grades: reviewGrades }
}`);

defineFragment(`fragment QuizSubmissionJson on QuizSubmission {
  id: _id quiz_id: quizId user_id: userId submission_id: submissionId score kept_score: keptScore started_at: startedAt
  finished_at: finishedAt end_at: endAt attempt extra_attempts: extraAttempts extra_time: extraTime
  manually_unlocked: manuallyUnlocked time_spent: timeSpent fudge_points: fudgePoints workflow_state: workflowState
  overdue_and_needs_submission: overdueAndNeedsSubmission quiz_points_possible: quizPointsPossible validation_token: validationToken
}`);

type Json = Record<string, any>;

/** Quiz JSON: ours plus Canvas's keys for features this service does not model. */
export function presentQuiz(q: Json, input: RestInput): Json {
  const { course_id, ...rest } = lockKeys(numericIds(q, ['id', 'assignment_id', 'course_id']));
  const base = `${input.ctx.baseUrl}/courses/${course_id}/quizzes/${q.id}`;
  return {
    ...rest,
    mobile_url: `${base}?force_user=1&persist_headless=1`,
    preview_url: `${base}/take?preview=1`,
    assignment_group_id: null,
    hide_results: null,
    show_correct_answers: true,
    show_correct_answers_last_attempt: false,
    show_correct_answers_at: null,
    hide_correct_answers_at: null,
    one_time_results: false,
    one_question_at_a_time: false,
    cant_go_back: false,
    ip_filter: null,
    speedgrader_url: q.assignment_id ? `${input.ctx.baseUrl}/courses/${course_id}/gradebook/speed_grader?assignment_id=${q.assignment_id}` : null,
    quiz_extensions_url: `${input.ctx.baseUrl}/courses/${course_id}/quizzes/${q.id}/extensions`,
    version_number: 1,
    question_types: [],
    anonymous_submissions: false,
  };
}

export function presentQuizSubmission(qs: Json, input: RestInput): Json {
  const out = numericIds(qs, ['id', 'quiz_id', 'user_id', 'submission_id']);
  if (out.validation_token == null) delete out.validation_token;
  const base = `${input.ctx.baseUrl}/courses/${input.params.course_id}/quizzes/${qs.quiz_id}/submissions/${qs.id}`;
  return { ...out, quiz_version: 1, score_before_regrade: null, has_seen_results: false, html_url: base, result_url: `${base}?attempt=${qs.attempt}` };
}

const wrap = (qs: Json, input: RestInput) => ({ quiz_submissions: [presentQuizSubmission(qs, input)] });

function quizFields(values: Json): Json {
  const q: Json = values.quiz ?? {};
  return {
    title: q.title,
    description: q.description,
    quizType: q.quiz_type ?? undefined,
    timeLimit: q.time_limit,
    allowedAttempts: q.allowed_attempts,
    scoringPolicy: q.scoring_policy ?? undefined,
    shuffleAnswers: q.shuffle_answers,
    accessCode: q.access_code,
    pointsPossible: q.points_possible,
    dueAt: q.due_at,
    unlockAt: q.unlock_at,
    lockAt: q.lock_at,
    published: q.published,
  };
}

/** `quiz_submissions[][…]`: Canvas insists on the array and reads its first element. */
function scoring(values: Json): Json {
  const list = values.quiz_submissions;
  if (!Array.isArray(list)) throw reject('missing required key :quiz_submissions', 400);
  const first: Json = list[0] ?? {};
  const attempt = first.attempt;
  const questions = Object.entries((first.questions ?? {}) as Record<string, Json>).map(([questionId, q]) => {
    const score = q.score;
    if (typeof score === 'string') throw reject('question score must be an unsigned decimal', 400);
    return { questionId, score, comment: q.comment };
  });
  const fudge = first.fudge_points;
  if (typeof fudge === 'string') throw reject('fudge_points must be a number', 400);
  return { attempt: typeof attempt === 'number' && Number.isInteger(attempt) ? attempt : null, fudgePoints: fudge, questions };
}

// ---- declared params ----
// Titles, quiz types, limits, attempts, points and dates are the service's to check (Canvas's
// messages, keyed by attribute); the schema holds their shape and size.
const quizBody = obj({
  title: checked().optional(),
  description: html().optional(),
  quiz_type: checked().optional(),
  time_limit: checkedNumber().optional(),
  allowed_attempts: checkedNumber().optional(),
  scoring_policy: checked().optional(),
  shuffle_answers: bool().optional(),
  access_code: nullableText({ max: 255 }).optional(),
  points_possible: checkedNumber().optional(),
  due_at: checkedDate().optional(),
  unlock_at: checkedDate().optional(),
  lock_at: checkedDate().optional(),
  published: bool().optional(),
});
const course = { course_id: courseId() };
const quizRef = { ...course, id: id() };
const submissionRef = { ...course, quiz_id: id(), id: id() };
/** One attempt's scores: `questions[<question id>][score|comment]`; bad numbers get Canvas's RequestError. */
const scoringEntry = obj({
  attempt: checkedNumber().optional(),
  fudge_points: checkedNumber().optional(),
  questions: hash(obj({ score: checkedNumber().optional(), comment: nullableText({ max: 65_535 }).optional() }), { max: 1_000 }).optional(),
});
/** Not a list (or missing) is Canvas's "missing required key :quiz_submissions", from the variable builder. */
const scoringList = z.union([z.array(scoringEntry).max(100), hash(z.union([scoringEntry, word()]), { max: 100 }), word(), z.null()]);

const QUIZZES = '/api/v1/courses/:course_id/quizzes';
const SUBMISSIONS = `${QUIZZES}/:quiz_id/submissions`;
const quizMutation = (name: string, type: string) => `mutation($input: ${type}!) { ${name}(input: $input) { quiz { ...QuizJson } ${PAYLOAD_ERRORS} } }`;
const qsMutation = (name: string, type: string) => `mutation($input: ${type}!) { ${name}(input: $input) { quizSubmission { ...QuizSubmissionJson } ${PAYLOAD_ERRORS} } }`;

export const quizRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: QUIZZES,
    accepts: params({ ...course, quiz: quizBody.optional() }),
    operation: quizMutation('createQuiz', 'CreateQuizInput'),
    variables: ({ values }) => ({ input: { courseId: values.course_id, ...quizFields(values) } }),
    root: 'createQuiz',
    payloadKey: 'quiz',
    present: presentQuiz,
    response: QuizSchema,
  },
  {
    method: 'GET',
    path: QUIZZES,
    accepts: params(course),
    operation: `query($id: ID!, $first: Int, $after: String) { course(id: $id) {
      quizzesConnection(first: $first, after: $after) { nodes { ...QuizJson } totalCount pageInfo { hasNextPage endCursor } } } }`,
    variables: ({ values }) => ({ id: values.course_id }),
    root: 'course.quizzesConnection',
    list: true,
    present: presentQuiz,
    response: QuizSchema,
  },
  {
    method: 'GET',
    path: `${QUIZZES}/:id`,
    accepts: params(quizRef),
    operation: `query($id: ID!, $courseId: ID!) { quiz(id: $id, courseId: $courseId) { ...QuizJson } }`,
    variables: ({ values }) => ({ id: values.id, courseId: values.course_id }),
    root: 'quiz',
    present: presentQuiz,
    response: QuizSchema,
  },
  {
    method: 'PUT',
    path: `${QUIZZES}/:id`,
    accepts: params({ ...quizRef, quiz: quizBody.optional() }),
    operation: quizMutation('updateQuiz', 'UpdateQuizInput'),
    variables: ({ values }) => ({ input: { id: values.id, courseId: values.course_id, ...quizFields(values) } }),
    root: 'updateQuiz',
    payloadKey: 'quiz',
    present: presentQuiz,
    response: QuizSchema,
  },
  {
    method: 'DELETE',
    path: `${QUIZZES}/:id`,
    accepts: params(quizRef),
    operation: `mutation($input: ContentRefInput!) { deleteQuiz(input: $input) { quiz { ...QuizJson } ${PAYLOAD_ERRORS} } }`,
    variables: ({ values }) => ({ input: { id: values.id, courseId: values.course_id } }),
    root: 'deleteQuiz',
    payloadKey: 'quiz',
    present: presentQuiz,
    response: QuizSchema,
  },

  // ---- quiz submissions ----
  {
    method: 'POST',
    path: SUBMISSIONS,
    accepts: params({ ...course, quiz_id: id(), access_code: nullableText({ max: 255 }).optional(), preview: bool().optional() }),
    operation: qsMutation('startQuizSubmission', 'StartQuizSubmissionInput'),
    variables: ({ values }) => ({
      input: { quizId: values.quiz_id, courseId: values.course_id, accessCode: values.access_code ?? undefined, preview: values.preview },
    }),
    root: 'startQuizSubmission',
    payloadKey: 'quizSubmission',
    present: wrap,
    response: QuizSubmissionsSchema,
  },
  {
    method: 'GET',
    path: SUBMISSIONS,
    accepts: params({ ...course, quiz_id: id() }),
    operation: `query($id: ID!, $courseId: ID!, $first: Int, $after: String) { quiz(id: $id, courseId: $courseId) {
      submissionsConnection(first: $first, after: $after) { nodes { ...QuizSubmissionJson } totalCount pageInfo { hasNextPage endCursor } } } }`,
    variables: ({ values }) => ({ id: values.quiz_id, courseId: values.course_id }),
    root: 'quiz.submissionsConnection',
    list: { envelope: 'quiz_submissions' },
    present: presentQuizSubmission,
    response: QuizSubmissionSchema,
  },
  {
    method: 'GET',
    path: `${SUBMISSIONS}/:id`,
    accepts: params(submissionRef),
    operation: `query($quizId: ID!, $id: ID!, $courseId: ID) { quizSubmission(quizId: $quizId, id: $id, courseId: $courseId) { ...QuizSubmissionJson } }`,
    variables: ({ values }) => ({ quizId: values.quiz_id, id: values.id, courseId: values.course_id }),
    root: 'quizSubmission',
    present: wrap,
    response: QuizSubmissionsSchema,
  },
  {
    method: 'POST',
    path: `${SUBMISSIONS}/:id/complete`,
    accepts: params({
      ...submissionRef,
      // A missing or malformed attempt and a wrong token get Canvas's RequestError bodies from the service.
      attempt: checked().optional(),
      validation_token: nullableText({ max: 255 }).optional(),
      access_code: nullableText({ max: 255 }).optional(),
    }),
    operation: qsMutation('completeQuizSubmission', 'CompleteQuizSubmissionInput'),
    variables: ({ values }) => ({
      input: {
        quizId: values.quiz_id,
        id: values.id,
        courseId: values.course_id,
        attempt: values.attempt ?? undefined,
        validationToken: values.validation_token ?? undefined,
        accessCode: values.access_code ?? undefined,
      },
    }),
    root: 'completeQuizSubmission',
    payloadKey: 'quizSubmission',
    present: wrap,
    response: QuizSubmissionsSchema,
  },
  {
    method: 'PUT',
    path: `${SUBMISSIONS}/:id`,
    accepts: params({ ...submissionRef, quiz_submissions: scoringList.optional() }),
    operation: qsMutation('updateQuizSubmissionScores', 'UpdateQuizSubmissionScoresInput'),
    variables: ({ values }) => ({ input: { quizId: values.quiz_id, id: values.id, courseId: values.course_id, ...scoring(values) } }),
    root: 'updateQuizSubmissionScores',
    payloadKey: 'quizSubmission',
    present: wrap,
    response: QuizSubmissionsSchema,
  },
];
