import { arr, defineSchema, shape } from '../api/rest/response';

/** Canvas's to-do item JSON; open, as it carries the assignment or quiz JSON of its kind. */
export const TodoItemSchema = defineSchema('TodoItem', {
  ...shape({ type: 'string', ignore: 'string', ignore_permanently: 'string', context_type: 'string', course_id: 'id', html_url: 'string' }),
  additionalProperties: true,
});

export const TodoItemCountSchema = defineSchema('TodoItemCount', shape({ needs_grading_count: 'int', assignments_needing_submitting: 'int' }));

/** One upcoming event: an assignment event (id `assignment_N`) or a calendar event (a numeric id). */
export const UpcomingEventsSchema = arr({
  ...shape({ title: 'string', start_at: 'date?', end_at: 'date?', context_code: 'string', type: 'string' }),
  additionalProperties: true,
});

/** A missing submission: the assignment's JSON (open: its keys follow include[]). */
export const MissingSubmissionSchema = defineSchema('MissingSubmission', { ...shape({ id: 'id', name: 'string' }), additionalProperties: true });
