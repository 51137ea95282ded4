import { CalendarEventSchema } from './calendar-event.schemas';
import { AssignmentEventSchema, excludesOf, presentAssignmentEvent } from './assignment-event.present';
import { numericIds } from '../api/rest/present';
import { defineFragment, PAYLOAD_ERRORS, RestInput, RestRoute } from '../api/rest/route';
import { bool, date, hash, id, list, model, nullableText, obj, params, text, z } from '../api/rest/input';

/** Canvas's CalendarEvent JSON (calendar_event_json), type "event". */
defineFragment(`fragment CalendarEventJson on CalendarEvent {
  id: _id title start_at: startAt end_at: endAt description location_name: locationName location_address: locationAddress
  context_code: contextCode effective_context_code: effectiveContextCode context_name: contextName all_context_codes: allContextCodes
  workflow_state: workflowState hidden parent_event_id: parentEventId child_events_count: childEventsCount
  url html_url: htmlUrl all_day_date: allDayDate all_day: allDay created_at: createdAt updated_at: updatedAt
  child_events: childEvents { id: _id title start_at: startAt end_at: endAt description location_name: locationName location_address: locationAddress
    context_code: contextCode effective_context_code: effectiveContextCode context_name: contextName all_context_codes: allContextCodes
    workflow_state: workflowState hidden parent_event_id: parentEventId child_events_count: childEventsCount
    url html_url: htmlUrl all_day_date: allDayDate all_day: allDay created_at: createdAt updated_at: updatedAt }
}`);

type Json = Record<string, any>;

/** Keys Canvas emits for every plain event that this service has no data for (appointment groups, series). */
const CANVAS_CONSTANTS: Json = {
  appointment_group_id: null,
  appointment_group_url: null,
  own_reservation: false,
  reserve_url: null,
  reserved: false,
  participant_type: 'User',
  participants_per_appointment: null,
  available_slots: null,
  user: null,
  group: null,
  important_dates: false,
  series_uuid: null,
  rrule: null,
  series_head: null,
  series_natural_language: null,
  blackout_date: false,
};


function shape(e: Json, excludes: Set<string>): Json {
  const out: Json = { ...numericIds(e, ['id', 'parent_event_id']), ...CANVAS_CONSTANTS, type: 'event' };
  // Canvas renders the list as one comma-separated string.
  if (Array.isArray(e.all_context_codes)) out.all_context_codes = e.all_context_codes.join(',');
  if (Array.isArray(e.child_events)) out.child_events = e.child_events.map((c: Json) => shape(c, excludes));
  if (excludes.has('description')) delete out.description;
  if (excludes.has('child_events')) delete out.child_events;
  return out;
}

export const presentCalendarEvent = (e: Json, input?: RestInput): Json => shape(e, excludesOf(input));

/** The parsed `calendar_event[…]` hash as GraphQL input: only the keys given. */
function eventFields(v: Json): Json {
  const e: Json = v.calendar_event && typeof v.calendar_event === 'object' ? v.calendar_event : {};
  const out: Json = {};
  const keys: [string, string][] = [['title', 'title'], ['description', 'description'], ['start_at', 'startAt'], ['end_at', 'endAt'], ['location_name', 'locationName'], ['location_address', 'locationAddress']];
  for (const [from, to] of keys) if (e[from] !== undefined) out[to] = e[from] ?? null;
  if (e.all_day !== undefined) out.allDay = e.all_day ?? false;
  if (e.child_event_data !== undefined) {
    const raw = e.child_event_data;
    const entries: unknown[] = Array.isArray(raw) ? raw : raw && typeof raw === 'object' ? Object.values(raw) : [];
    out.childEventData = entries
      .filter((c): c is Json => Boolean(c) && typeof c === 'object')
      .map((c) => ({ startAt: c.start_at ?? null, endAt: c.end_at ?? null, contextCode: c.context_code ?? null }));
  }
  return out;
}

// ---- declared params ----
const child = obj({ start_at: date().optional(), end_at: date().optional(), context_code: nullableText({ max: 64 }).optional() });
const eventHash = (withContext: boolean) =>
  model({
    ...(withContext ? { context_code: nullableText({ max: 64 }).optional() } : {}),
    title: nullableText({ max: 255 }).optional(),
    description: nullableText({ max: 65_535 }).optional(),
    start_at: date().optional(),
    end_at: date().optional(),
    location_name: nullableText({ max: 255 }).optional(),
    location_address: nullableText({ max: 255 }).optional(),
    all_day: bool().optional(),
    // Indexed (`[child_event_data][0][start_at]`) or an array; '' clears the children.
    child_event_data: z.union([z.array(child).max(100), hash(child, { max: 100 }), z.literal(''), z.null()]).optional(),
  });
const excludes = list(text({ max: 64 }), { max: 10 });
const P = {
  index: params({
    type: z.enum(['event', 'assignment'], { error: 'must be event or assignment' }).optional(),
    context_codes: list(text({ max: 64 }), { max: 100 }).optional(),
    start_date: text({ max: 64 }).optional(),
    end_date: text({ max: 64 }).optional(),
    undated: bool().optional(),
    all_events: bool().optional(),
    excludes: excludes.optional(),
  }),
  // assignment_<id> names an assignment event.
  one: params({ id: z.union([id(), z.string().regex(/^assignment_\d{1,15}$/)], { error: 'must be an id or assignment_<id>' }), excludes: excludes.optional() }),
  create: params({ calendar_event: eventHash(true).optional() }),
  update: params({ id: id(), calendar_event: eventHash(false).optional() }),
  delete: params({ id: id(), cancel_reason: nullableText({ max: 255 }).optional() }),
};

/** type=assignment (and assignment_<id>) answer assignment events. */
const EVENT_OR_ASSIGNMENT = { anyOf: [CalendarEventSchema, AssignmentEventSchema] };

const listVariables = ({ values: v }: RestInput): Record<string, unknown> => ({
  type: v.type,
  contextCodes: v.context_codes !== undefined ? (v.context_codes as string[]).filter((c) => c !== '') : undefined,
  startDate: v.start_date,
  endDate: v.end_date,
  undated: v.undated ?? undefined,
  allEvents: v.all_events ?? undefined,
});

const MUTATION = (name: string, input: string) => `mutation($input: ${input}!) { ${name}(input: $input) { calendarEvent { ...CalendarEventJson } ${PAYLOAD_ERRORS} } }`;

export const calendarEventRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/calendar_events',
    response: EVENT_OR_ASSIGNMENT,
    accepts: P.index,
    operation: `query($type: String, $contextCodes: [String!], $startDate: String, $endDate: String, $undated: Boolean, $allEvents: Boolean, $first: Int, $after: String) {
      calendarEvents(type: $type, contextCodes: $contextCodes, startDate: $startDate, endDate: $endDate, undated: $undated, allEvents: $allEvents, first: $first, after: $after) { nodes { ...CalendarEventJson } pageInfo { hasNextPage endCursor } }
    }`,
    variables: listVariables,
    root: 'calendarEvents',
    // Canvas pages a user's events as a BookmarkedCollection by (start_at, id): bookmark links, no last.
    list: { bookmark: true },
    present: presentCalendarEvent,
    variants: [
      {
        when: (v) => v.type === 'assignment',
        operation: `query($contextCodes: [String!], $startDate: String, $endDate: String, $undated: Boolean, $allEvents: Boolean, $first: Int, $after: String) {
          assignmentEvents(contextCodes: $contextCodes, startDate: $startDate, endDate: $endDate, undated: $undated, allEvents: $allEvents, first: $first, after: $after) { nodes { ...AssignmentEventJson } totalCount }
        }`,
        variables: (input) => ({ ...listVariables(input), type: undefined }),
        root: 'assignmentEvents',
        present: presentAssignmentEvent,
        // Canvas merges per-shard bookmarked collections only across shards; on one shard the
        // assignments are a plain relation in numbered pages, with a rel="last" (so the total is read).
        list: true,
      },
    ],
  },
  {
    method: 'GET',
    path: '/api/v1/calendar_events/:id',
    response: EVENT_OR_ASSIGNMENT,
    accepts: P.one,
    operation: 'query($id: ID!) { calendarEvent(id: $id) { ...CalendarEventJson } }',
    variables: ({ values: v }) => ({ id: v.id }),
    root: 'calendarEvent',
    present: presentCalendarEvent,
    variants: [
      {
        when: (v) => String(v.id).startsWith('assignment_'),
        operation: 'query($id: ID!) { assignmentEvent(id: $id) { ...AssignmentEventJson } }',
        variables: ({ values: v }) => ({ id: v.id }),
        root: 'assignmentEvent',
        present: presentAssignmentEvent,
      },
    ],
  },
  {
    method: 'POST',
    path: '/api/v1/calendar_events',
    response: CalendarEventSchema,
    accepts: P.create,
    operation: MUTATION('createCalendarEvent', 'CreateCalendarEventInput'),
    variables: ({ values: v }) => {
      const e: Json = v.calendar_event && typeof v.calendar_event === 'object' ? v.calendar_event : {};
      // A missing context code reaches the service as '', which answers 400 naming it.
      return { input: { contextCode: e.context_code ?? '', ...eventFields(v) } };
    },
    root: 'createCalendarEvent',
    payloadKey: 'calendarEvent',
    present: presentCalendarEvent,
    status: 201,
  },
  {
    method: 'PUT',
    path: '/api/v1/calendar_events/:id',
    response: CalendarEventSchema,
    accepts: P.update,
    operation: MUTATION('updateCalendarEvent', 'UpdateCalendarEventInput'),
    variables: ({ values: v }) => ({ input: { id: v.id, ...eventFields(v) } }),
    root: 'updateCalendarEvent',
    payloadKey: 'calendarEvent',
    present: presentCalendarEvent,
  },
  {
    method: 'DELETE',
    path: '/api/v1/calendar_events/:id',
    response: CalendarEventSchema,
    accepts: P.delete,
    operation: MUTATION('deleteCalendarEvent', 'DeleteCalendarEventInput'),
    variables: ({ values: v }) => ({ input: { id: v.id, cancelReason: v.cancel_reason ?? undefined } }),
    root: 'deleteCalendarEvent',
    payloadKey: 'calendarEvent',
    present: presentCalendarEvent,
  },
];
