import { defineFragment, RestInput, RestRoute } from '../api/rest/route';
import { MissingSubmissionSchema, TodoItemCountSchema, TodoItemSchema, UpcomingEventsSchema } from './todo.schemas';
import { id, ids, list, oneOf, params } from '../api/rest/input';
import { strArray } from '../api/rest/params';

import { presentAssignment } from '../content/assignments/assignment.routes';
import { presentQuiz } from '../content/quizzes/quiz.routes';
import { presentCourse } from '../courses/course.routes';
import { courseId } from '../courses/course.params';
import { presentOverride } from '../planner/planner.routes';
import { userId } from '../users/user.params';

defineFragment(`fragment TodoItemJson on TodoItem {
  type context_type: contextType course_id: courseId assignment_id: assignmentId quiz_id: quizId
  needs_grading_count: needsGradingCount
  assignment { ...AssignmentJson } quiz { ...QuizJson }
}`);

defineFragment(`fragment UpcomingEventJson on UpcomingEvent {
  id type title start_at: startAt end_at: endAt context_code: contextCode context_name: contextName html_url: htmlUrl
  assignment { ...AssignmentJson }
}`);

type Json = Record<string, any>;

/** Canvas's todo_item_json: the entry, its ignore links, its context, and the assignment (or quiz). */
export function presentTodoItem(t: Json, input: RestInput): Json {
  const base = input.ctx.baseUrl;
  const asset = t.assignment_id != null ? `assignment_${t.assignment_id}` : `quizzes:quiz_${t.quiz_id}`;
  const ignore = `${base}/api/v1/users/self/todo/${asset}/${t.type}`;
  const out: Json = {
    type: t.type,
    ignore: `${ignore}?permanent=0`,
    ignore_permanently: `${ignore}?permanent=1`,
    context_type: t.context_type,
    course_id: Number(t.course_id),
  };
  if (t.quiz) {
    out.quiz = presentQuiz(t.quiz, input);
    out.html_url = `${base}/courses/${t.course_id}/quizzes/${t.quiz_id}`;
    return out;
  }
  out.assignment = t.assignment ? presentAssignment(t.assignment, input) : null;
  if (t.type === 'grading') {
    out.html_url = `${base}/courses/${t.course_id}/gradebook/speed_grader?assignment_id=${t.assignment_id}`;
    out.needs_grading_count = t.needs_grading_count;
  } else {
    out.html_url = `${base}/courses/${t.course_id}/assignments/${t.assignment_id}#submit`;
  }
  return out;
}

/** Canvas's assignment_event_json: the assignment as a calendar entry at its due date. */
export function presentUpcomingEvent(e: Json, input: RestInput): Json {
  // A calendar event entry: its own id and API URL (GET /calendar_events/:id has the whole event).
  if (e.type === 'event') {
    return {
      id: Number(e.id),
      title: e.title,
      start_at: e.start_at,
      end_at: e.end_at,
      context_code: e.context_code,
      context_name: e.context_name,
      html_url: e.html_url,
      url: `${input.ctx.baseUrl}/api/v1/calendar_events/${e.id}`,
      type: 'event',
    };
  }
  const a = e.assignment ? presentAssignment(e.assignment, input) : null;
  // Canvas marks an assignment due at 23:59 as an all-day entry of that day.
  const allDay = typeof e.start_at === 'string' && /T23:59(:\d\d)?Z$/.test(e.start_at);
  return {
    id: e.id,
    title: e.title,
    description: a?.description ?? null,
    created_at: a?.created_at ?? null,
    updated_at: a?.updated_at ?? null,
    start_at: e.start_at,
    end_at: e.end_at,
    all_day: allDay,
    all_day_date: allDay ? e.start_at.slice(0, 10) : null,
    workflow_state: a?.workflow_state ?? 'published',
    context_code: e.context_code,
    context_name: e.context_name,
    html_url: e.html_url,
    url: `${input.ctx.baseUrl}/api/v1/calendar_events/${e.id}`,
    type: e.type,
    submission_types: a?.submission_types ?? [],
    important_dates: false,
    assignment: a,
  };
}

/** Canvas's assignment_json of a missing assignment, with planner_override and course when asked. */
export function presentMissing(m: Json, input: RestInput): Json {
  const include = new Set(strArray(input.params.include));
  const out = presentAssignment(m.assignment, input);
  if (include.has('planner_overrides')) out.planner_override = m.planner_override ? presentOverride(m.planner_override) : null;
  if (include.has('course') && m.course) out.course = presentCourse(m.course, input);
  return out;
}

const todoIncludes = list(oneOf(['ungraded_quizzes']), { max: 5 }).optional();
// No totalCount: Canvas's to-do list is a bookmarked collection (no Link rel="last"), and a total
// would read every entry where a page reads only what it shows.
const TODO_OP = `query($first: Int, $after: String, $courseId: ID, $quizzes: Boolean) {
  todoItems(first: $first, after: $after, courseId: $courseId, includeUngradedQuizzes: $quizzes) {
    nodes { ...TodoItemJson } pageInfo { hasNextPage endCursor } } }`;
const wantsQuizzes = (input: RestInput) => strArray(input.params.include).includes('ungraded_quizzes');

export const todoRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/users/self/todo',
    response: TodoItemSchema,
    accepts: params({ include: todoIncludes }),
    operation: TODO_OP,
    variables: (input) => ({ quizzes: wantsQuizzes(input) }),
    root: 'todoItems',
    list: true,
    present: presentTodoItem,
  },
  {
    method: 'GET',
    path: '/api/v1/courses/:course_id/todo',
    response: TodoItemSchema,
    accepts: params({ course_id: courseId(), include: todoIncludes }),
    operation: TODO_OP,
    variables: (input) => ({ courseId: input.values.course_id, quizzes: wantsQuizzes(input) }),
    root: 'todoItems',
    list: true,
    present: presentTodoItem,
  },
  {
    method: 'GET',
    path: '/api/v1/users/self/todo_item_count',
    response: TodoItemCountSchema,
    accepts: params({ include: todoIncludes }),
    operation: `query($quizzes: Boolean) { todoItemCount(includeUngradedQuizzes: $quizzes) {
      needs_grading_count: needsGradingCount assignments_needing_submitting: assignmentsNeedingSubmitting } }`,
    variables: (input) => ({ quizzes: wantsQuizzes(input) }),
    root: 'todoItemCount',
  },
  {
    method: 'GET',
    path: '/api/v1/users/self/upcoming_events',
    response: UpcomingEventsSchema,
    accepts: params({}),
    operation: `query { upcomingEvents { ...UpcomingEventJson } }`,
    root: 'upcomingEvents',
    present: (events: Json[], input) => events.map((e) => presentUpcomingEvent(e, input)),
  },
  {
    method: 'GET',
    path: '/api/v1/users/:user_id/missing_submissions',
    response: MissingSubmissionSchema,
    accepts: params({
      user_id: userId(),
      include: list(oneOf(['planner_overrides', 'course']), { max: 5 }).optional(),
      filter: list(oneOf(['submittable', 'current_grading_period']), { max: 5 }).optional(),
      course_ids: ids(id(), { max: 100 }).optional(),
    }),
    operation: `query($first: Int, $after: String, $userId: ID, $filter: [String!], $courseIds: [ID!], $course: Boolean!, $override: Boolean!) {
      missingSubmissions(first: $first, after: $after, userId: $userId, filter: $filter, courseIds: $courseIds) {
        nodes { assignment { ...AssignmentJson } course @include(if: $course) { ...CourseJson }
          planner_override: plannerOverride @include(if: $override) { ...PlannerOverrideJson } }
        totalCount pageInfo { hasNextPage endCursor } } }`,
    variables: (input) => {
      const include = (input.values.include as string[] | undefined) ?? [];
      const courses = (input.values.course_ids as string[] | undefined) ?? [];
      return {
        userId: input.values.user_id,
        filter: (input.values.filter as string[] | undefined) ?? [],
        courseIds: courses.length ? courses : null,
        course: include.includes('course'),
        override: include.includes('planner_overrides'),
      };
    },
    root: 'missingSubmissions',
    list: true,
    present: presentMissing,
  },
];

