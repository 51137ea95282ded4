import { defineSchema, shape } from '../api/rest/response';

/**
 * Canvas's calendar event JSON. Documented open (additionalProperties): Canvas's own event JSON varies
 * with the kind of event, and the service answers the constant keys Canvas emits for appointment groups
 * and series beside the event's own.
 */
export const CalendarEventSchema = defineSchema('CalendarEvent', {
  ...shape(
    {
      id: 'id', title: 'string', start_at: 'date?', end_at: 'date?', description: 'string?', location_name: 'string?',
      location_address: 'string?', context_code: 'string', effective_context_code: 'string?', all_context_codes: 'string',
      workflow_state: 'string', hidden: 'bool', all_day: 'bool', all_day_date: 'string?', html_url: 'string', url: 'string',
      created_at: 'date', updated_at: 'date', type: 'string',
    },
    { optional: ['description', 'location_address', 'effective_context_code', 'all_day_date', 'url', 'hidden', 'html_url'] },
  ),
  additionalProperties: true,
});
