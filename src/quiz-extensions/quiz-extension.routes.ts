import { Validator } from '../common/errors';
import { reject } from '../content/quizzes/quiz-submission.service';
import { str } from '../api/rest/params';
import { numericIds } from '../api/rest/present';
import { defineFragment, RestRoute, PAYLOAD_ERRORS } from '../api/rest/route';
import { hash, nullableText, obj, params, z } from '../api/rest/input';
import { courseId } from '../courses/course.params';
import { QuizExtensionsSchema } from './quiz-extension.schemas';

/** Canvas's QuizExtensionSerializer: quiz_id, user_id, extra_attempts, extra_time, manually_unlocked, end_at. */
defineFragment(`fragment QuizExtensionJson on QuizExtension {
  quiz_id: quizId user_id: userId extra_attempts: extraAttempts extra_time: extraTime manually_unlocked: manuallyUnlocked end_at: endAt
}`);

/*
 * POST /api/v1/courses/:course_id/quiz_extensions, as Canvas's Quizzes::CourseQuizExtensionsController:
 * - 200 {"quiz_extensions": [...]}: one element per (quiz, entry) pair, by quiz id, with Canvas's quiz_id
 *   (the spec's CourseQuizExtension fields alone could not tell one quiz's element from another's).
 * - 401 anonymous; 404 unknown course; 403 {"status":"forbidden","message":"you are not allowed to change
 *   extension settings for these submissions"} (the controller's own body) without manage_grades.
 * - 400 {"status":"bad_request","message":"missing required key :quiz_extensions"} when it is not a list;
 *   400 {"errors": {"quiz_extensions[i][field]": [...]}} for a malformed, negative or over-limit value, a
 *   missing user_id, or both extend modes (Canvas clamps; the spec's limits are refused here). Malformed
 *   types are caught while reading the request, so they answer 400 even to a caller who would get 403.
 * - 404 (Canvas's body) when a user_id is not a current student of the course, as Canvas's students.find.
 * Every refusal leaves every submission as it was.
 */

type Json = Record<string, any>;
const isTree = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const INT32_MAX = 2_147_483_647;

/** Absent, JSON null, or an empty form value: the setting is left as it is. */
const absent = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/**
 * An integer from JSON (a number) or a form (a string of digits). Anything else is refused here, naming
 * the field; ranges are the service's (the mutation's) to check. Integers beyond GraphQL's Int are sent
 * as its largest value, which the service then refuses as over (or under) the field's limit.
 */
function int(v: unknown, attr: string, errors: Validator): number | undefined {
  if (absent(v)) return undefined;
  let n = NaN;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && /^[+-]?\d+$/.test(v.trim())) n = Number(v.trim());
  if (!Number.isInteger(n)) {
    errors.add(attr, 'not_an_integer', `${attr} must be an integer`);
    return undefined;
  }
  return Math.max(-INT32_MAX, Math.min(INT32_MAX, n));
}

const TRUE = ['true', 't', '1', 'yes', 'y', 'on'];
const FALSE = ['false', 'f', '0', 'no', 'n', 'off'];

/** A boolean from JSON or a form (Canvas's value_to_boolean words); anything else is refused. */
function bool(v: unknown, attr: string, errors: Validator): boolean | undefined {
  if (absent(v)) return undefined;
  if (typeof v === 'boolean') return v;
  if (v === 1 || v === 0) return v === 1;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (TRUE.includes(s)) return true;
    if (FALSE.includes(s)) return false;
  }
  errors.add(attr, 'invalid', `${attr} must be true or false`);
  return undefined;
}

/**
 * `quiz_extensions` as clients send it: a JSON array of objects, Rails's form `quiz_extensions[][user_id]=…`
 * (a repeated key starts the next object), or an indexed form `quiz_extensions[0][user_id]=…`. Canvas
 * answers anything that is not an array with its RequestError "missing required key :quiz_extensions".
 */
export function extensionEntries(raw: unknown): Json[] {
  let value: unknown = raw;
  if (isTree(value) && Object.keys(value).length && Object.keys(value).every((k) => /^\d+$/.test(k))) {
    value = Object.keys(value)
      .sort((a, b) => Number(a) - Number(b))
      .map((k) => (value as Json)[k]);
  }
  if (!Array.isArray(value)) throw reject('missing required key :quiz_extensions', 400);
  // `quiz_extensions[]=` is how a form says "an empty list".
  const list = value.filter((e) => e !== '');
  const errors = new Validator();
  const entries = list.map((e, i) => {
    const attr = (k: string) => `quiz_extensions[${i}][${k}]`;
    if (!isTree(e)) {
      errors.add(`quiz_extensions[${i}]`, 'invalid', `quiz_extensions[${i}] must be an object with a user_id`);
      return {};
    }
    let userId: string | undefined;
    if (!absent(e.user_id)) {
      userId = str(e.user_id);
      if (userId === undefined || typeof e.user_id === 'boolean') errors.add(attr('user_id'), 'invalid', `${attr('user_id')} must be the id of a student of the course`);
    }
    return {
      userId,
      extraAttempts: int(e.extra_attempts, attr('extra_attempts'), errors),
      extraTime: int(e.extra_time, attr('extra_time'), errors),
      manuallyUnlocked: bool(e.manually_unlocked, attr('manually_unlocked'), errors),
      extendFromNow: int(e.extend_from_now, attr('extend_from_now'), errors),
      extendFromEndAt: int(e.extend_from_end_at, attr('extend_from_end_at'), errors),
    };
  });
  errors.throwIfInvalid();
  return entries;
}

// ---- declared params ----
// Integers, booleans and "not a list" are checked above, ranges and the 1000-entry limit by the service,
// with Canvas's bodies and per-entry field names (quiz_extensions[i][field]); the schema holds each
// value to one short scalar and the list to a bounded array or indexed hash.
const value = () => nullableText({ max: 64 });
const entry = obj({
  user_id: nullableText({ max: 255 }).optional(),
  extra_attempts: value().optional(),
  extra_time: value().optional(),
  manually_unlocked: value().optional(),
  extend_from_now: value().optional(),
  extend_from_end_at: value().optional(),
});
/** Far past the 1000 entries the service refuses (too_long), a request is refused here unread. */
const ENTRIES_MAX = 10_000;
const entries = z.union([
  z.array(z.union([entry, value()])).max(ENTRIES_MAX),
  hash(z.union([entry, value()]), { max: ENTRIES_MAX }),
  value(),
]);

export const presentQuizExtension = (e: Json): Json => numericIds(e, ['quiz_id', 'user_id']);

export const quizExtensionRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/v1/courses/:course_id/quiz_extensions',
    accepts: params({ course_id: courseId(), quiz_extensions: entries.optional() }),
    operation: `mutation($input: SetCourseQuizExtensionsInput!) {
      setCourseQuizExtensions(input: $input) { quizExtensions { ...QuizExtensionJson } ${PAYLOAD_ERRORS} } }`,
    // The entries are read raw: each field's refusal names its entry (quiz_extensions[i][field]) as Canvas does.
    variables: ({ params, values }) => ({ input: { courseId: values.course_id, quizExtensions: extensionEntries(params.quiz_extensions) } }),
    root: 'setCourseQuizExtensions',
    payloadKey: 'quizExtensions',
    present: (list: Json[]) => ({ quiz_extensions: (list ?? []).map(presentQuizExtension) }),
    response: QuizExtensionsSchema,
  },
];
