import { defineSchema, nullable, shape } from '../api/rest/response';

export const PlannerOverrideSchema = defineSchema(
  'PlannerOverride',
  shape({
    id: 'id', plannable_type: 'string', plannable_id: 'id', user_id: 'id', assignment_id: 'id?', workflow_state: 'string',
    marked_complete: 'bool', dismissed: 'bool', created_at: 'date', updated_at: 'date', deleted_at: 'date?',
  }),
);

/** Canvas's planner note JSON (presentNote): linked_* only on a linked note. */
export const PlannerNoteSchema = defineSchema(
  'PlannerNote',
  shape(
    {
      id: 'id', title: 'string', description: 'string?', details: 'string?', user_id: 'id', course_id: 'id?',
      workflow_state: 'string', todo_date: 'date', linked_object_type: 'string', linked_object_id: 'id',
      linked_object_html_url: 'string?', linked_object_url: 'string?', created_at: 'date', updated_at: 'date',
    },
    { optional: ['linked_object_type', 'linked_object_id', 'linked_object_html_url', 'linked_object_url'] },
  ),
);

const PLANNABLE = {
  id: 'id', title: 'string', course_id: 'id?', group_id: 'id?', user_id: 'id', todo_date: 'date?', details: 'string?',
  url: 'string?', unread_count: 'int?', read_state: 'string?', assignment_id: 'id', points_possible: 'number?',
  due_at: 'date?', workflow_state: 'string?', created_at: 'date', updated_at: 'date',
  // A calendar event's own attributes.
  start_at: 'date?', end_at: 'date?', all_day: 'bool', location_name: 'string?', location_address: 'string?', description: 'string?',
} as const;

/**
 * Canvas's planner item JSON (presentItem): the context keys only for items in a context, each plannable
 * with the attributes its kind has; plannable_id a string, as the spec documents it.
 */
export const PlannerItemSchema = defineSchema(
  'PlannerItem',
  shape(
    {
      context_type: 'string?', course_id: 'id', group_id: 'id', context_name: 'string?', plannable_id: 'string',
      plannable_type: 'string', plannable_date: 'date', new_activity: 'bool', html_url: 'string?',
      planner_override: nullable(PlannerOverrideSchema),
      submissions: {
        anyOf: [
          { const: false },
          shape({
            submitted: 'bool', excused: 'bool', graded: 'bool', posted_at: 'date?', late: 'bool', missing: 'bool',
            needs_grading: 'bool', has_feedback: 'bool', with_feedback: 'bool', redo_request: 'bool',
          }),
        ],
      },
      plannable: shape(PLANNABLE, { optional: Object.keys(PLANNABLE) }),
    },
    { optional: ['context_type', 'course_id', 'group_id', 'context_name'] },
  ),
);
