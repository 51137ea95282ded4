import { numericId, numericIds, reshape } from '../api/rest/present';
import { defineFragment, RestInput, RestRoute, PAYLOAD_ERRORS } from '../api/rest/route';
import { plannerParams as P } from './planner.params';
import { PlannerItemSchema, PlannerNoteSchema, PlannerOverrideSchema } from './planner.schemas';

defineFragment(`fragment PlannerOverrideJson on PlannerOverride {
  id: _id plannable_type: plannableType plannable_id: plannableId user_id: userId assignment_id: assignmentId
  workflow_state: workflowState marked_complete: markedComplete dismissed
  created_at: createdAt updated_at: updatedAt deleted_at: deletedAt
}`);

defineFragment(`fragment PlannerNoteJson on PlannerNote {
  id: _id title description details user_id: userId course_id: courseId workflow_state: workflowState todo_date: todoDate
  linked_object_type: linkedObjectType linked_object_id: linkedObjectId
  linked_object_html_url: linkedObjectHtmlUrl linked_object_url: linkedObjectUrl
  created_at: createdAt updated_at: updatedAt
}`);

defineFragment(`fragment PlannerItemJson on PlannerItem {
  context_type: contextType course_id: courseId group_id: groupId context_name: contextName
  plannable_id: plannableId plannable_type: plannableType plannable_date: plannableDate
  planner_override: plannerOverride { ...PlannerOverrideJson }
  new_activity: newActivity
  submissions {
    submitted excused graded posted_at: postedAt late missing needs_grading: needsGrading
    has_feedback: hasFeedback with_feedback: withFeedback redo_request: redoRequest
  }
  plannable {
    id title course_id: courseId group_id: groupId user_id: userId todo_date: todoDate details url
    unread_count: unreadCount read_state: readState assignment_id: assignmentId points_possible: pointsPossible
    due_at: dueAt workflow_state: workflowState created_at: createdAt updated_at: updatedAt
    location_name: locationName location_address: locationAddress description start_at: startAt end_at: endAt all_day: allDay
  }
  html_url: htmlUrl
}`);

type Json = Record<string, any>;

export function presentOverride(o: Json): Json {
  return numericIds(o, ['id', 'plannable_id', 'user_id', 'assignment_id']);
}

const NOTE_NUMERIC = new Set(['id', 'user_id', 'course_id', 'linked_object_id']);
const NOTE_LINKED = new Set(['linked_object_type', 'linked_object_id', 'linked_object_html_url', 'linked_object_url']);
const unlinkedKey = (k: string) => NOTE_LINKED.has(k);

/**
 * Canvas's note JSON: text as `details` (and the spec's `description`); linked_* only on linked notes.
 * One pass (reshape) rather than a copy and deletes, which left every unlinked note a slow dictionary.
 */
export function presentNote(n: Json): Json {
  return reshape(n, { numeric: NOTE_NUMERIC, omit: n.linked_object_type == null ? unlinkedKey : undefined });
}

/** The attributes each kind of plannable has (Canvas emits only those that exist on the object). */
const PLANNABLE_KEYS: Record<string, string[]> = {
  assignment: ['id', 'title', 'course_id', 'assignment_id', 'points_possible', 'due_at', 'created_at', 'updated_at'],
  quiz: ['id', 'title', 'course_id', 'assignment_id', 'points_possible', 'due_at', 'created_at', 'updated_at'],
  discussion_topic: ['id', 'title', 'course_id', 'group_id', 'todo_date', 'unread_count', 'read_state', 'assignment_id', 'points_possible', 'due_at', 'created_at', 'updated_at'],
  announcement: ['id', 'title', 'course_id', 'group_id', 'todo_date', 'unread_count', 'read_state', 'created_at', 'updated_at'],
  wiki_page: ['id', 'title', 'course_id', 'todo_date', 'url', 'created_at', 'updated_at'],
  planner_note: ['id', 'todo_date', 'title', 'details', 'user_id', 'course_id', 'workflow_state', 'created_at', 'updated_at'],
  calendar_event: ['id', 'title', 'course_id', 'group_id', 'location_name', 'location_address', 'description', 'start_at', 'end_at', 'all_day', 'created_at', 'updated_at'],
};

/** Keys that only appear when they have a value (the context a topic is in; an ungraded quiz's missing assignment). */
const OPTIONAL = new Set(['course_id', 'group_id', 'assignment_id']);

const ITEM_NUMERIC = new Set(['course_id', 'group_id']);
const ITEM_PLACED = new Set(['planner_override', 'submissions', 'plannable']);
const CONTEXT_KEYS = new Set(['context_type', 'course_id', 'group_id', 'context_name']);
const PLANNABLE_NUMERIC = new Set(['id', 'course_id', 'group_id', 'user_id', 'assignment_id']);

/** One pass over each object (reshape and one loop) instead of a copy per rule: a page has 50 items. */
export function presentItem(item: Json): Json {
  const context = item.context_type;
  // The context keys are named after the context; a note without a course has none.
  const otherContextKey = context === 'Course' ? 'group_id' : 'course_id';
  // The spec's planner item types plannable_id as a string (as Canvas's documentation shows), unlike the
  // override's integer plannable_id: GraphQL's ID already is a string of digits, so it is left as it comes.
  const out = reshape(item, {
    numeric: ITEM_NUMERIC,
    omit: (k) => ITEM_PLACED.has(k) || (CONTEXT_KEYS.has(k) && (context == null || k === otherContextKey)),
  });
  out.planner_override = item.planner_override ? presentOverride(item.planner_override) : null;
  out.submissions = item.submissions ?? false;
  const p = item.plannable;
  const keys = PLANNABLE_KEYS[item.plannable_type] ?? Object.keys(p);
  const isNote = item.plannable_type === 'planner_note';
  const plannable: Json = {};
  for (const k of keys) {
    const v = PLANNABLE_NUMERIC.has(k) ? numericId(p[k]) : p[k];
    if (OPTIONAL.has(k) && v == null && !(isNote && k === 'course_id')) continue;
    plannable[k] = v ?? null;
  }
  out.plannable = plannable;
  return out;
}

const ITEM_VARS =
  '$userId: ID, $observedUserId: ID, $contextCodes: [String!], $startDate: String, $endDate: String, $filter: String, $include: [String!], $order: String, $first: Int, $after: String';
const ITEM_ARGS =
  'userId: $userId, observedUserId: $observedUserId, contextCodes: $contextCodes, startDate: $startDate, endDate: $endDate, filter: $filter, include: $include, order: $order, first: $first, after: $after';

function itemVariables({ values }: RestInput): Json {
  return {
    userId: values.user_id,
    observedUserId: values.observed_user_id,
    contextCodes: values.context_codes,
    startDate: values.start_date,
    endDate: values.end_date,
    filter: values.filter,
    include: values.include ?? values.includes,
    order: values.order,
  };
}

const itemsRoute = (path: string, anonymous: boolean): RestRoute => ({
  method: 'GET',
  path,
  accepts: P.items,
  operation: `query(${ITEM_VARS}) { plannerItems(${ITEM_ARGS}) { nodes { ...PlannerItemJson } pageInfo { hasNextPage endCursor } } }`,
  variables: itemVariables,
  root: 'plannerItems',
  list: { defaultPerPage: 50, maxPerPage: 100, bookmark: true },
  present: presentItem,
  response: PlannerItemSchema,
  // filter=all_ungraded_todo_items is open to anonymous callers (public syllabus); the service requires a user otherwise.
  anonymous,
});

/** Note fields as Canvas's form gives them; details is the input name (description accepted as well). */
function noteFields(v: Json): Json {
  return {
    title: v.title,
    details: v.details !== undefined ? v.details : v.description,
    todoDate: v.todo_date,
  };
}

const NOTE_MUTATION = (name: string, input: string) => `mutation($input: ${input}!) { ${name}(input: $input) { plannerNote { ...PlannerNoteJson } ${PAYLOAD_ERRORS} } }`;
const OVERRIDE_MUTATION = (name: string, input: string) => `mutation($input: ${input}!) { ${name}(input: $input) { plannerOverride { ...PlannerOverrideJson } ${PAYLOAD_ERRORS} } }`;

export const plannerRoutes: RestRoute[] = [
  itemsRoute('/api/v1/planner/items', true),
  itemsRoute('/api/v1/users/:user_id/planner/items', false),

  // ---- planner notes ----
  {
    method: 'GET',
    path: '/api/v1/planner_notes',
    accepts: P.notes,
    operation: `query($startDate: String, $endDate: String, $contextCodes: [String!], $first: Int, $after: String) {
      plannerNotes(startDate: $startDate, endDate: $endDate, contextCodes: $contextCodes, first: $first, after: $after) { nodes { ...PlannerNoteJson } totalCount }
    }`,
    variables: ({ values }) => ({
      startDate: values.start_date,
      endDate: values.end_date,
      contextCodes: values.context_codes,
    }),
    root: 'plannerNotes',
    list: true,
    present: presentNote,
    response: PlannerNoteSchema,
  },
  {
    method: 'GET',
    path: '/api/v1/planner_notes/:id',
    accepts: P.note,
    operation: 'query($id: ID!) { plannerNote(id: $id) { ...PlannerNoteJson } }',
    variables: ({ values }) => ({ id: values.id }),
    root: 'plannerNote',
    present: presentNote,
    response: PlannerNoteSchema,
  },
  {
    method: 'POST',
    path: '/api/v1/planner_notes',
    accepts: P.createNote,
    operation: NOTE_MUTATION('createPlannerNote', 'CreatePlannerNoteInput'),
    variables: ({ values }) => ({
      input: {
        ...noteFields(values),
        courseId: values.course_id,
        linkedObjectType: values.linked_object_type || undefined,
        linkedObjectId: values.linked_object_id ?? undefined,
      },
    }),
    root: 'createPlannerNote',
    payloadKey: 'plannerNote',
    present: presentNote,
    response: PlannerNoteSchema,
    status: 201,
  },
  {
    method: 'PUT',
    path: '/api/v1/planner_notes/:id',
    accepts: P.updateNote,
    operation: NOTE_MUTATION('updatePlannerNote', 'UpdatePlannerNoteInput'),
    variables: ({ values }) => ({
      input: { id: values.id, ...noteFields(values), courseId: values.course_id },
    }),
    root: 'updatePlannerNote',
    payloadKey: 'plannerNote',
    present: presentNote,
    response: PlannerNoteSchema,
  },
  {
    method: 'DELETE',
    path: '/api/v1/planner_notes/:id',
    accepts: P.note,
    operation: `mutation($id: ID!) { deletePlannerNote(id: $id) { plannerNote { ...PlannerNoteJson } ${PAYLOAD_ERRORS} } }`,
    variables: ({ values }) => ({ id: values.id }),
    root: 'deletePlannerNote',
    payloadKey: 'plannerNote',
    present: presentNote,
    response: PlannerNoteSchema,
  },

  // ---- planner overrides ----
  {
    method: 'GET',
    path: '/api/v1/planner/overrides',
    accepts: P.overrides,
    operation: 'query($first: Int, $after: String) { plannerOverrides(first: $first, after: $after) { nodes { ...PlannerOverrideJson } totalCount } }',
    root: 'plannerOverrides',
    // Canvas's numbered pages with rel="last" (Api.paginate over the user's overrides): the count is one
    // range of the (user, state, id) index, and a page reads only its rows.
    list: true,
    present: presentOverride,
    response: PlannerOverrideSchema,
  },
  {
    method: 'GET',
    path: '/api/v1/planner/overrides/:id',
    accepts: P.override,
    operation: 'query($id: ID!) { plannerOverride(id: $id) { ...PlannerOverrideJson } }',
    variables: ({ values }) => ({ id: values.id }),
    root: 'plannerOverride',
    present: presentOverride,
    response: PlannerOverrideSchema,
  },
  {
    method: 'POST',
    path: '/api/v1/planner/overrides',
    accepts: P.createOverride,
    operation: OVERRIDE_MUTATION('createPlannerOverride', 'CreatePlannerOverrideInput'),
    variables: ({ values }) => ({
      input: {
        plannableType: values.plannable_type,
        plannableId: values.plannable_id,
        markedComplete: values.marked_complete,
        dismissed: values.dismissed,
      },
    }),
    root: 'createPlannerOverride',
    payloadKey: 'plannerOverride',
    present: presentOverride,
    response: PlannerOverrideSchema,
    status: 201,
  },
  {
    method: 'PUT',
    path: '/api/v1/planner/overrides/:id',
    accepts: P.updateOverride,
    operation: OVERRIDE_MUTATION('updatePlannerOverride', 'UpdatePlannerOverrideInput'),
    variables: ({ values }) => ({ input: { id: values.id, markedComplete: values.marked_complete, dismissed: values.dismissed } }),
    root: 'updatePlannerOverride',
    payloadKey: 'plannerOverride',
    present: presentOverride,
    response: PlannerOverrideSchema,
  },
  {
    method: 'DELETE',
    path: '/api/v1/planner/overrides/:id',
    accepts: P.override,
    operation: `mutation($id: ID!) { deletePlannerOverride(id: $id) { plannerOverride { ...PlannerOverrideJson } ${PAYLOAD_ERRORS} } }`,
    variables: ({ values }) => ({ id: values.id }),
    root: 'deletePlannerOverride',
    payloadKey: 'plannerOverride',
    present: presentOverride,
    response: PlannerOverrideSchema,
  },
];
