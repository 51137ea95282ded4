import { defineFragment, RestInput, RestRoute, PAYLOAD_ERRORS } from '../../api/rest/route';
import { numericIds } from '../../api/rest/present';
import { LOCK_FIELDS, lockKeys } from '../lock-info';
import { bool, id, list, obj, params } from '../../api/rest/input';
import { checked, checkedDate, checkedNumber, courseId, html } from '../content.params';
import { AssignmentSchema } from './assignment.schemas';

defineFragment(`fragment AssignmentJson on Assignment {
  id: _id name description created_at: createdAt updated_at: updatedAt due_at: dueAt lock_at: lockAt unlock_at: unlockAt
  course_id: courseId html_url: htmlUrl points_possible: pointsPossible grading_type: gradingType
  submission_types: submissionTypes published unpublishable has_submitted_submissions: hasSubmittedSubmissions
  position workflow_state: workflowState quiz_id: quizId is_quiz_assignment: isQuizAssignment
  ${LOCK_FIELDS}
}`);

type Json = Record<string, any>;

/** Assignment JSON: our fields plus the keys Canvas always sends for features this service does not have. */
export function presentAssignment(a: Json, input: RestInput): Json {
  const out = lockKeys(numericIds(a, ['id', 'course_id', 'quiz_id']));
  if (!a.submission_types.includes('online_quiz') || out.quiz_id == null) delete out.quiz_id;
  return {
    ...out,
    submissions_download_url: `${input.ctx.baseUrl}/courses/${a.course_id}/assignments/${a.id}/submissions?zip=1`,
    has_overrides: false,
    assignment_group_id: null,
    due_date_required: false,
    allowed_extensions: [],
    max_name_length: 255,
    turnitin_enabled: false,
    vericite_enabled: false,
    grade_group_students_individually: false,
    group_category_id: null,
    peer_reviews: false,
    automatic_peer_reviews: false,
    post_to_sis: false,
    integration_id: null,
    grading_standard_id: null,
    only_visible_to_overrides: false,
    moderated_grading: false,
    anonymous_grading: false,
    omit_from_final_grade: false,
    muted: false,
    allowed_attempts: -1,
  };
}

function assignmentFields(values: Json): Json {
  const a: Json = values.assignment ?? {};
  return {
    name: a.name,
    description: a.description,
    pointsPossible: a.points_possible,
    gradingType: a.grading_type ?? undefined,
    submissionTypes: a.submission_types,
    dueAt: a.due_at,
    unlockAt: a.unlock_at,
    lockAt: a.lock_at,
    published: a.published,
    position: a.position,
  };
}

// ---- declared params ----
// Names, points, grading and submission types, dates and positions are the service's to check (with
// Canvas's messages, keyed by attribute); the schema holds their shape and size.
const assignmentBody = obj({
  name: checked().optional(),
  description: html().optional(),
  points_possible: checkedNumber().optional(),
  grading_type: checked().optional(),
  submission_types: list(checked(), { max: 20 }).optional(),
  due_at: checkedDate().optional(),
  unlock_at: checkedDate().optional(),
  lock_at: checkedDate().optional(),
  published: bool().optional(),
  position: checkedNumber().optional(),
});
const course = { course_id: courseId() };
const one = { ...course, id: id() };
/** Without an `assignment` hash a create is the service's blank-name error; a scalar there is refused. */
const body = { assignment: assignmentBody.optional() };

const PATH = '/api/v1/courses/:course_id/assignments';
const mutation = (name: string, type: string) => `mutation($input: ${type}!) { ${name}(input: $input) { assignment { ...AssignmentJson } ${PAYLOAD_ERRORS} } }`;

export const assignmentRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: PATH,
    accepts: params({ ...course, ...body }),
    operation: mutation('createAssignment', 'CreateAssignmentInput'),
    variables: ({ values }) => ({ input: { courseId: values.course_id, ...assignmentFields(values) } }),
    root: 'createAssignment',
    payloadKey: 'assignment',
    present: presentAssignment,
    response: AssignmentSchema,
    status: 201,
  },
  {
    method: 'GET',
    path: PATH,
    accepts: params(course),
    operation: `query($id: ID!, $first: Int, $after: String) { course(id: $id) {
      assignmentsConnection(first: $first, after: $after) { nodes { ...AssignmentJson } totalCount pageInfo { hasNextPage endCursor } } } }`,
    variables: ({ values }) => ({ id: values.course_id }),
    root: 'course.assignmentsConnection',
    list: true,
    present: presentAssignment,
    response: AssignmentSchema,
  },
  {
    method: 'GET',
    path: `${PATH}/:id`,
    accepts: params(one),
    operation: `query($id: ID!, $courseId: ID!) { assignment(id: $id, courseId: $courseId) { ...AssignmentJson } }`,
    variables: ({ values }) => ({ id: values.id, courseId: values.course_id }),
    root: 'assignment',
    present: presentAssignment,
    response: AssignmentSchema,
  },
  {
    method: 'PUT',
    path: `${PATH}/:id`,
    accepts: params({ ...one, ...body }),
    operation: mutation('updateAssignment', 'UpdateAssignmentInput'),
    variables: ({ values }) => ({ input: { id: values.id, courseId: values.course_id, ...assignmentFields(values) } }),
    root: 'updateAssignment',
    payloadKey: 'assignment',
    present: presentAssignment,
    response: AssignmentSchema,
  },
  {
    method: 'DELETE',
    path: `${PATH}/:id`,
    accepts: params(one),
    operation: `mutation($input: ContentRefInput!) { deleteAssignment(input: $input) { assignment { ...AssignmentJson } ${PAYLOAD_ERRORS} } }`,
    variables: ({ values }) => ({ input: { id: values.id, courseId: values.course_id } }),
    root: 'deleteAssignment',
    payloadKey: 'assignment',
    present: presentAssignment,
    response: AssignmentSchema,
  },
];
