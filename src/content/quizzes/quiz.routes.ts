import { defineFragment, RestInput, RestRoute } from '../../api/rest/route';
import { str, toBool, tree } from '../../api/rest/params';
import { numericIds } from '../../api/rest/present';
import { date, LOCK_FIELDS, lockKeys, num, PAYLOAD_ERRORS, text } from '../rest-helpers';
import { reject } from './quiz-submission.service';
import { bool, hash, id, list, nullableText, obj, params, z } from '../../api/rest/input';
import { checked, courseId, html, word } from '../content.params';
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

function quizFields(params: Json): Json {
  const q = tree(params.quiz);
  return {
    title: text(q.title),
    description: text(q.description),
    quizType: str(q.quiz_type),
    timeLimit: num(q.time_limit),
    allowedAttempts: num(q.allowed_attempts),
    scoringPolicy: str(q.scoring_policy),
    shuffleAnswers: q.shuffle_answers === undefined ? undefined : toBool(q.shuffle_answers),
    accessCode: text(q.access_code),
    pointsPossible: num(q.points_possible),
    dueAt: date(q.due_at),
    unlockAt: date(q.unlock_at),
    lockAt: date(q.lock_at),
    published: q.published === undefined ? undefined : toBool(q.published),
  };
}

/** `quiz_submissions[][…]`: Canvas insists on the array and reads its first element. */
function scoring(params: Json): Json {
  const list = params.quiz_submissions;
  if (!Array.isArray(list)) throw reject('missing required key :quiz_submissions', 400);
  const first = tree(list[0]);
  const attempt = num(first.attempt);
  const questions = Object.entries(tree(first.questions)).map(([questionId, v]) => {
    const q = tree(v);
    const score = num(q.score);
    if (typeof score === 'string') throw reject('question score must be an unsigned decimal', 400);
    return { questionId, score, comment: text(q.comment) };
  });
  const fudge = num(first.fudge_points);
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
  time_limit: checked().optional(),
  allowed_attempts: checked().optional(),
  scoring_policy: checked().optional(),
  shuffle_answers: bool().optional(),
  access_code: nullableText({ max: 255 }).optional(),
  points_possible: checked().optional(),
  due_at: checked().optional(),
  unlock_at: checked().optional(),
  lock_at: checked().optional(),
  published: bool().optional(),
});
const course = { course_id: courseId() };
const quizRef = { ...course, id: id() };
const submissionRef = { ...course, quiz_id: id(), id: id() };
/** One attempt's scores: `questions[<question id>][score|comment]`; bad numbers get Canvas's RequestError. */
const scoringEntry = obj({
  attempt: checked().optional(),
  fudge_points: checked().optional(),
  questions: hash(obj({ score: checked().optional(), comment: nullableText({ max: 65_535 }).optional() }), { max: 1_000 }).optional(),
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
    variables: ({ params }) => ({ input: { courseId: str(params.course_id), ...quizFields(params) } }),
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
    variables: ({ params }) => ({ id: str(params.course_id) }),
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
    variables: ({ params }) => ({ id: str(params.id), courseId: str(params.course_id) }),
    root: 'quiz',
    present: presentQuiz,
    response: QuizSchema,
  },
  {
    method: 'PUT',
    path: `${QUIZZES}/:id`,
    accepts: params({ ...quizRef, quiz: quizBody.optional() }),
    operation: quizMutation('updateQuiz', 'UpdateQuizInput'),
    variables: ({ params }) => ({ input: { id: str(params.id), courseId: str(params.course_id), ...quizFields(params) } }),
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
    variables: ({ params }) => ({ input: { id: str(params.id), courseId: str(params.course_id) } }),
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
    variables: ({ params }) => ({
      input: { quizId: str(params.quiz_id), courseId: str(params.course_id), accessCode: str(params.access_code), preview: params.preview === undefined ? undefined : toBool(params.preview) },
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
    variables: ({ params }) => ({ id: str(params.quiz_id), courseId: str(params.course_id) }),
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
    variables: ({ params }) => ({ quizId: str(params.quiz_id), id: str(params.id), courseId: str(params.course_id) }),
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
    variables: ({ params }) => ({
      input: {
        quizId: str(params.quiz_id),
        id: str(params.id),
        courseId: str(params.course_id),
        attempt: str(params.attempt),
        validationToken: str(params.validation_token),
        accessCode: str(params.access_code),
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
    variables: ({ params }) => ({ input: { quizId: str(params.quiz_id), id: str(params.id), courseId: str(params.course_id), ...scoring(params) } }),
    root: 'updateQuizSubmissionScores',
    payloadKey: 'quizSubmission',
    present: wrap,
    response: QuizSubmissionsSchema,
  },
];
