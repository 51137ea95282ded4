import { defineFragment, RestInput } from '../api/rest/route';
import { strArray } from '../api/rest/params';
import { constant, defineSchema, shape } from '../api/rest/response';
import { presentAssignment } from '../content/assignments/assignment.routes';
import { AssignmentSchema } from '../content/assignments/assignment.schemas';

/** Canvas's assignment_event_json: the assignment on its due date, with the assignment's own JSON. */
defineFragment(`fragment AssignmentEventJson on AssignmentEvent {
  id title start_at: startAt end_at: endAt all_day: allDay all_day_date: allDayDate description
  workflow_state: workflowState submission_types: submissionTypes context_code: contextCode context_name: contextName
  url html_url: htmlUrl created_at: createdAt updated_at: updatedAt assignment { ...AssignmentJson }
}`);

export const ASSIGNMENT_EVENT = 'AssignmentEventJson';

export const AssignmentEventSchema = defineSchema(
  'AssignmentEvent',
  shape(
    {
      id: { type: 'string', pattern: '^assignment_\\d+$' }, type: constant('assignment'), title: 'string', start_at: 'date?', end_at: 'date?',
      all_day: 'bool', all_day_date: 'string?', description: 'string?', workflow_state: 'string', submission_types: 'string',
      context_code: 'string', context_name: 'string?', context_color: constant(null), url: 'string', html_url: 'string',
      created_at: 'date', updated_at: 'date', important_dates: 'bool', assignment: AssignmentSchema,
    },
    { optional: ['description', 'assignment'], description: 'An assignment on the calendar (type=assignment).' },
  ),
);

type Json = Record<string, any>;

/** The `excludes[]` a calendar list or event was asked with (the presenters of both kinds read it). */
export const excludesOf = (input?: RestInput): Set<string> => new Set(input && input.params.excludes !== undefined ? strArray(input.params.excludes) : []);

/** `excludes[]=description` and `excludes[]=assignment` leave those out, as Canvas does. */
export function presentAssignmentEvent(e: Json, input: RestInput): Json {
  const excludes = excludesOf(input);
  const out: Json = { ...e, type: 'assignment', context_color: null, important_dates: false };
  if (excludes.has('description')) delete out.description;
  if (excludes.has('assignment')) delete out.assignment;
  else out.assignment = presentAssignment(e.assignment, input);
  return out;
}
