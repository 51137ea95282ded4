import { ValidationError } from '../common/errors';
import type { FieldError } from '../common/errors';
import { str } from '../api/rest/params';
import { numericIds } from '../api/rest/present';
import { defineFragment, RestInput, RestRoute, PAYLOAD_ERRORS } from '../api/rest/route';
import { hash, id, nullableText, obj, params, text, z } from '../api/rest/input';
import { accountId } from '../accounts/account.params';
import { courseId } from '../courses/course.params';
import { BlackoutDatesSchema, NewBlackoutDateSchema, WrappedBlackoutDateSchema } from './blackout-date.schemas';

/** Canvas's BlackoutDate JSON: every column, dates as YYYY-MM-DD. */
defineFragment(`fragment BlackoutDateJson on BlackoutDate {
  id: _id context_id: contextId context_type: contextType start_date: startDate end_date: endDate event_title: eventTitle
  root_account_id: rootAccountId created_at: createdAt updated_at: updatedAt
}`);

defineFragment(`fragment UnsavedBlackoutDateJson on UnsavedBlackoutDate {
  id: _id context_id: contextId context_type: contextType start_date: startDate end_date: endDate event_title: eventTitle
  root_account_id: rootAccountId created_at: createdAt updated_at: updatedAt
}`);

type Json = Record<string, any>;
const COURSE = '/api/v1/courses/:course_id/blackout_dates';
const ACCOUNT = '/api/v1/accounts/:account_id/blackout_dates';

export const presentBlackoutDate = (b: Json): Json => numericIds(b, ['id', 'context_id', 'root_account_id']);
/** show, new, create, update and delete answer `{"blackout_date": {...}}`; index and bulk a bare array. */
const wrapped = (b: Json): Json => ({ blackout_date: presentBlackoutDate(b) });
const bare = (list: Json[]): Json[] => list.map(presentBlackoutDate);

const isTree = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Leaves absent fields out of a GraphQL input: an explicit undefined would reach the service as null ("clear it"). */
const given = (o: Json): Json => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

function context({ values }: RestInput): { contextType: string; contextId: string | undefined } {
  return values.course_id !== undefined ? { contextType: 'Course', contextId: values.course_id } : { contextType: 'Account', contextId: values.account_id };
}

/** A field of a JSON-string bulk list as given: absent stays undefined, null or a non-scalar becomes null (which the service refuses). */
const field = (v: unknown): string | null | undefined => (v === undefined ? undefined : str(v) ?? null);

/** Fields from Canvas's nested `blackout_date[…]` form or the spec's top-level names; the nested one wins. */
function blackoutFields(v: Json): Json {
  const nested = v.blackout_date ?? {};
  const pick = (k: string) => (nested[k] !== undefined ? nested[k] : v[k]);
  return given({ startDate: pick('start_date'), endDate: pick('end_date'), eventTitle: pick('event_title') });
}

const badBulk = (message: string) => ValidationError.of('blackout_dates', 'invalid', message);

/**
 * The bulk `blackout_dates` value in the forms Canvas clients send it: a JSON array of
 * `{id?, start_date, end_date, event_title}`, the Rack form `blackout_dates[][start_date]=…`, an indexed
 * form `blackout_dates[0][start_date]=…`, or (the spec's "string") that JSON array as a string.
 */
export function bulkEntries(raw: unknown): Json[] {
  if (raw === undefined) throw ValidationError.of('blackout_dates', 'blank', 'blackout_dates is required (an empty list deletes every date)');
  let value: unknown = raw;
  if (typeof value === 'string') {
    if (value.trim() === '') value = [];
    else {
      try {
        value = JSON.parse(value);
      } catch {
        throw badBulk('blackout_dates must be a JSON array of blackout dates');
      }
    }
  }
  if (isTree(value)) {
    const keys = Object.keys(value);
    if (!keys.every((k) => /^\d+$/.test(k))) throw badBulk('blackout_dates must be an array of blackout dates');
    value = keys.sort((a, b) => Number(a) - Number(b)).map((k) => (value as Json)[k]);
  }
  if (!Array.isArray(value)) throw badBulk('blackout_dates must be an array of blackout dates');
  // `blackout_dates[]=` is how a form says "an empty list".
  const list = value.filter((e) => e !== '');
  return list.map((e, i) => {
    if (!isTree(e)) throw ValidationError.of(`blackout_dates[${i}]`, 'invalid', `blackout_dates[${i}] must be an object with start_date, end_date and event_title`);
    const id = e.id === undefined || e.id === null || e.id === '' ? null : str(e.id) ?? '-';
    return given({ id, startDate: field(e.start_date), endDate: field(e.end_date), eventTitle: field(e.event_title) });
  });
}

// ---- declared params ----
// Dates (YYYY-MM-DD), the title's blank and length rules and end-before-start are the service's to check,
// with Canvas's full messages; the schema holds each value to one short scalar (null is "blank").
const value = () => nullableText({ max: 4096 });
const fields = { start_date: value().optional(), end_date: value().optional(), event_title: value().optional() };
/** One context path param: the row for /courses/… declares course_id, the one for /accounts/… account_id. */
const contextOf = (path: string): Record<string, z.ZodType<unknown>> => (path.startsWith(COURSE) ? { course_id: courseId() } : { account_id: accountId() });
const BLACKOUT_MAX = 1_000;
/** A bulk entry; ids not of this course are the service's 404, so any short scalar is taken. */
const bulkEntry = obj({ id: value().optional(), ...fields });
/**
 * The bulk list as an array, a Rack indexed hash, or (the spec's "string") a JSON array in a string; the
 * variable builder answers a hash that is not indexed and an entry that is not an object, naming it.
 */
const bulkList = z.union([
  z.array(z.union([bulkEntry, value()])).max(BLACKOUT_MAX),
  hash(z.union([bulkEntry, value()]), { max: BLACKOUT_MAX }),
  text({ max: 1_048_576 }),
  z.null(),
]);
/** A row's params follow from its method and path: the context, the id of /:id, the fields of create and update. */
const accepts = (path: string, route: Omit<RestRoute, 'path' | 'accepts'>): Record<string, z.ZodType<unknown>> => {
  const shape = contextOf(path);
  if (path.endsWith('/:id')) shape.id = id();
  if (route.method === 'POST' || (route.method === 'PUT' && path.endsWith('/:id'))) Object.assign(shape, fields, { blackout_date: obj(fields).optional() });
  return shape;
};

const both = (base: Omit<RestRoute, 'path' | 'accepts'>, suffix = ''): RestRoute[] =>
  [COURSE, ACCOUNT].map((p) => ({ ...base, path: `${p}${suffix}`, accepts: params(accepts(`${p}${suffix}`, base)) }));

const messages = (fields: FieldError[]) => fields.map((f) => f.message);

export const blackoutDateRoutes: RestRoute[] = [
  ...both({
    method: 'GET',
    operation: `query($type: String!, $id: ID!) { blackoutDates(contextType: $type, contextId: $id) { ...BlackoutDateJson } }`,
    variables: (input) => {
      const c = context(input);
      return { type: c.contextType, id: c.contextId };
    },
    root: 'blackoutDates',
    present: bare,
    response: BlackoutDatesSchema,
  }),
  ...both(
    {
      method: 'GET',
      operation: `query($type: String!, $id: ID!) { newBlackoutDate(contextType: $type, contextId: $id) { ...UnsavedBlackoutDateJson } }`,
      variables: (input) => {
        const c = context(input);
        return { type: c.contextType, id: c.contextId };
      },
      root: 'newBlackoutDate',
      present: (b: Json) => ({ blackout_date: presentBlackoutDate(b) }),
      response: NewBlackoutDateSchema,
    },
    '/new',
  ),
  ...both(
    {
      method: 'GET',
      operation: `query($id: ID!, $type: String, $cid: ID) { blackoutDate(id: $id, contextType: $type, contextId: $cid) { ...BlackoutDateJson } }`,
      variables: (input) => {
        const c = context(input);
        return { id: input.values.id, type: c.contextType, cid: c.contextId };
      },
      root: 'blackoutDate',
      present: wrapped,
      response: WrappedBlackoutDateSchema,
    },
    '/:id',
  ),
  ...both({
    method: 'POST',
    operation: `mutation($input: CreateBlackoutDateInput!) { createBlackoutDate(input: $input) { blackoutDate { ...BlackoutDateJson } ${PAYLOAD_ERRORS} } }`,
    variables: (input) => ({ input: { ...context(input), ...blackoutFields(input.values) } }),
    root: 'createBlackoutDate',
    payloadKey: 'blackoutDate',
    present: wrapped,
    response: WrappedBlackoutDateSchema,
    status: 201,
    // Canvas's create failure body (its status is 422; ours is the service-wide 400).
    validationBody: (fields) => ({ success: false, errors: messages(fields) }),
  }),
  ...both(
    {
      method: 'PUT',
      operation: `mutation($input: UpdateBlackoutDateInput!) { updateBlackoutDate(input: $input) { blackoutDate { ...BlackoutDateJson } ${PAYLOAD_ERRORS} } }`,
      variables: (input) => ({ input: { id: input.values.id, ...context(input), ...blackoutFields(input.values) } }),
      root: 'updateBlackoutDate',
      payloadKey: 'blackoutDate',
      present: wrapped,
      response: WrappedBlackoutDateSchema,
      // Canvas's update failure body: the bare list of full messages.
      validationBody: messages,
    },
    '/:id',
  ),
  ...both(
    {
      method: 'DELETE',
      operation: `mutation($input: DeleteBlackoutDateInput!) { deleteBlackoutDate(input: $input) { blackoutDate { ...BlackoutDateJson } ${PAYLOAD_ERRORS} } }`,
      variables: (input) => ({ input: { id: input.values.id, ...context(input) } }),
      root: 'deleteBlackoutDate',
      payloadKey: 'blackoutDate',
      // The spec: "Deletes; returns a BlackoutDate" (Canvas itself answers 204).
      present: wrapped,
      response: WrappedBlackoutDateSchema,
    },
    '/:id',
  ),
  {
    method: 'PUT',
    path: COURSE,
    accepts: params({ course_id: courseId(), blackout_dates: bulkList.optional() }),
    operation: `mutation($input: ReplaceBlackoutDatesInput!) { replaceBlackoutDates(input: $input) { blackoutDates { ...BlackoutDateJson } ${PAYLOAD_ERRORS} } }`,
    variables: (input) => ({ input: { ...context(input), blackoutDates: bulkEntries(input.values.blackout_dates) } }),
    root: 'replaceBlackoutDates',
    payloadKey: 'blackoutDates',
    present: bare,
    response: BlackoutDatesSchema,
  },
];
