import { z } from 'zod/v4';
import type { FieldError } from '../../common/errors';

/**
 * Declared REST input. Every route row names the params it reads with these builders; the router
 * checks the request against them before any variable is built, so a hostile shape (an object where a
 * scalar belongs, a number past the database's range, a word where a boolean belongs) is a 400 naming
 * the field instead of reaching a service. The same schemas describe the API (src/rest/openapi.ts).
 *
 * Values arrive as strings (query, form, multipart) or as JSON scalars, so each builder accepts both and
 * hands the row the typed value (a boolean, a number, an id string, a list), parsed once at the door:
 * the router puts the result on `RestInput.values`. Unknown keys are allowed, as Canvas ignores params
 * it does not read.
 */

const BOOL_WORDS = /^(yes|y|true|t|on|1|no|n|false|f|off|0)$/i;
/** Ids live in 64-bit columns but JavaScript numbers are exact to 2^53: 15 digits keeps both safe. */
const ID_DIGITS = /^\d{1,15}$/;
const INT = /^-?\d{1,15}$/;
const NUMBER = /^-?(\d{1,15}(\.\d{0,10})?|\.\d{1,10})$/;
/** ISO 8601 date or date-time, as Canvas's Time.zone.parse accepts from API clients. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** A declared param: what it accepts (anything a request can carry) and the value a row reads. */
type Scalar<T = unknown> = z.ZodType<T, any>;
type Shape = Record<string, Scalar>;
type Out<S extends Shape> = { [K in keyof S]: z.output<S[K]> };

const TRUE_WORDS = /^(yes|y|true|t|on|1)$/i;

/** Canvas's value_to_boolean over what bool() accepts. */
const toBoolean = (v: unknown): boolean => (typeof v === 'string' ? TRUE_WORDS.test(v) : v === true || v === 1);
/** '' and null clear a nullable value. */
const orNull = <T>(parse: (v: unknown) => T) => (v: unknown): T | null => (v === null || v === '' ? null : parse(v));

/** Text: a string (or a JSON number/boolean, which Canvas reads as its string form). */
export function text(opts: { max?: number; min?: number } = {}): Scalar<string> {
  const max = opts.max ?? 65_535;
  return z
    .union([z.string(), z.number(), z.boolean()], { error: 'must be a string' })
    .refine((v) => String(v).length <= max, { message: `must be at most ${max} characters`, params: { type: 'too_long' } })
    .refine((v) => String(v).length >= (opts.min ?? 0), { message: `must be at least ${opts.min} characters`, params: { type: 'too_short' } })
    .transform(String);
}

/** Text that may be cleared with JSON null or an empty form value. */
export function nullableText(opts: { max?: number } = {}): Scalar<string | null> {
  return z.union([text(opts), z.null()], { error: 'must be a string or null' });
}

/** Canvas's value_to_boolean words, real booleans, 0/1, and an empty value (false). */
export function bool(): Scalar<boolean> {
  return z
    .union([z.boolean(), z.literal(0), z.literal(1), z.null(), z.string().regex(/^$/), z.string().regex(BOOL_WORDS)], { error: 'must be true or false' })
    .transform(toBoolean);
}

/** An integer in a range (strings of digits or JSON integers); '' or null clear it when `nullable`. */
export function int(opts: { min?: number; max?: number; nullable: true }): Scalar<number | null>;
export function int(opts?: { min?: number; max?: number; nullable?: false }): Scalar<number>;
export function int(opts?: { min?: number; max?: number; nullable?: boolean }): Scalar<number | null>;
export function int(opts: { min?: number; max?: number; nullable?: boolean } = {}): Scalar<number | null> {
  const min = opts.min ?? Number.MIN_SAFE_INTEGER;
  const max = opts.max ?? Number.MAX_SAFE_INTEGER;
  const range = `must be an integer${opts.min !== undefined || opts.max !== undefined ? ` from ${opts.min ?? '-∞'} to ${opts.max ?? '∞'}` : ''}`;
  const inRange = (v: unknown) => {
    const n = typeof v === 'number' ? v : Number(v);
    return Number.isInteger(n) && n >= min && n <= max;
  };
  const base = z.union([z.number(), z.string().regex(INT)], { error: range }).refine(inRange, { message: range });
  return opts.nullable ? z.union([base, z.null(), z.literal('')], { error: `${range}, or empty` }).transform(orNull(Number)) : base.transform(Number);
}

/** A decimal number (points, scores); '' or null clear it when `nullable`. */
export function num(opts: { min?: number; max?: number; nullable: true }): Scalar<number | null>;
export function num(opts?: { min?: number; max?: number; nullable?: false }): Scalar<number>;
export function num(opts?: { min?: number; max?: number; nullable?: boolean }): Scalar<number | null>;
export function num(opts: { min?: number; max?: number; nullable?: boolean } = {}): Scalar<number | null> {
  const min = opts.min ?? -1e15;
  const max = opts.max ?? 1e15;
  const msg = `must be a number from ${min} to ${max}`;
  const base = z
    .union([z.number(), z.string().trim().regex(NUMBER)], { error: msg })
    .refine((v) => {
      const n = Number(v);
      return Number.isFinite(n) && n >= min && n <= max;
    }, { message: msg });
  return opts.nullable ? z.union([base, z.null(), z.literal('')], { error: `${msg}, or empty` }).transform(orNull(Number)) : base.transform(Number);
}

/**
 * An object id as Canvas takes it in params: digits (or a JSON integer); `self` and `<prefix>:<value>`
 * (e.g. sis_user_id:123) where the route allows them.
 */
export function id(opts: { self?: boolean; prefixes?: string[]; nullable: true }): Scalar<string | null>;
export function id(opts?: { self?: boolean; prefixes?: string[]; nullable?: false }): Scalar<string>;
export function id(opts?: { self?: boolean; prefixes?: string[]; nullable?: boolean }): Scalar<string | null>;
export function id(opts: { self?: boolean; prefixes?: string[]; nullable?: boolean } = {}): Scalar<string | null> {
  const prefixes = opts.prefixes ?? [];
  const ok = (v: unknown) => {
    if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0;
    if (typeof v !== 'string') return false;
    if (ID_DIGITS.test(v)) return true;
    if (opts.self && v === 'self') return true;
    const colon = v.indexOf(':');
    return colon > 0 && v.length <= 255 && prefixes.includes(v.slice(0, colon));
  };
  const msg = `must be an id${opts.self ? ', self' : ''}${prefixes.length ? ` or ${prefixes.map((p) => `${p}:…`).join(', ')}` : ''}`;
  const base = z.union([z.string(), z.number()], { error: msg }).refine(ok, { message: msg });
  return opts.nullable ? z.union([base, z.null(), z.literal('')], { error: `${msg}, or empty` }).transform(orNull(String)) : base.transform(String);
}

/** An ISO 8601 date or date-time (trimmed); '' or null clear it (Canvas clears dates that way): null. */
export function date(opts: { nullable: false }): Scalar<string>;
export function date(opts?: { nullable?: true }): Scalar<string | null>;
export function date(opts: { nullable?: boolean } = { nullable: true }): Scalar<string | null> {
  const base = z.string().trim().regex(ISO_DATE, { message: 'must be an ISO 8601 date or date-time' }).refine((v) => !Number.isNaN(Date.parse(v.replace(' ', 'T'))), { message: 'must be a real date' });
  return opts.nullable === false
    ? z.union([base], { error: 'must be an ISO 8601 date or date-time' })
    : z.union([base, z.null(), z.literal('')], { error: 'must be an ISO 8601 date or date-time, or empty' }).transform(orNull(String));
}

/** One of the given words. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T, opts: { nullable: true }): Scalar<T[number] | null>;
export function oneOf<const T extends readonly [string, ...string[]]>(values: T, opts?: { nullable?: false }): Scalar<T[number]>;
export function oneOf<const T extends readonly [string, ...string[]]>(values: T, opts: { nullable?: boolean } = {}): Scalar<T[number] | null> {
  const base = z.enum(values, { error: `must be one of ${values.join(', ')}` }) as unknown as Scalar<T[number]>;
  return opts.nullable ? z.union([base, z.null(), z.literal('')], { error: `must be one of ${values.join(', ')}, or empty` }).transform(orNull((v) => v as T[number])) : base;
}

/** A bare text value read as a list (Api.value_to_array): its comma-separated parts, trimmed, blanks dropped. */
const commaParts = (v: string) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * A list param (`include[]=a&include[]=b`): an array of the item, one bare item, a comma-separated
 * string (Api.value_to_array), or a Rails indexed hash (`x[0]=a&x[1]=b`). The value is the array of
 * items; absent entries (JSON null) are dropped, and a bare string is split on commas as Canvas does.
 */
export function list<T = string>(item: Scalar<T> = text({ max: 255 }) as unknown as Scalar<T>, opts: { max?: number } = {}): Scalar<T[]> {
  const max = opts.max ?? 1_000;
  // `a,b` is two values only when each part is one on its own (an item may itself contain commas).
  const commaList = z.string().refine((v) => {
    const parts = v.split(',');
    return parts.length > 1 && parts.length <= max && parts.every((p) => item.safeParse(p.trim()).success);
  });
  const present = (xs: T[]) => xs.filter((x) => x != null);
  const bare = (x: T): T[] => (typeof x === 'string' ? (commaParts(x) as unknown as T[]) : present([x]));
  return z.union(
    [
      z.array(item).max(max).transform(present),
      z.record(z.string().regex(/^\d{1,6}$/), item).transform((r) => present(Object.values(r) as T[])),
      item.transform(bare),
      // A union may run a transform on a value its check refused, so this one must not throw.
      commaList.transform((v) => present(commaParts(v).map((p) => item.safeParse(p).data as T))),
      z.null().transform((): T[] => []),
    ],
    { error: `must be a list of at most ${max} values` },
  );
}

/** What Rails's `blank?` calls blank in a list: '' (`x[]=`), whitespace only, or JSON null. */
const BLANK = z.union([z.string().regex(/^\s*$/), z.null()]);

/**
 * A list of ids that sets a stored list (`prerequisite_module_ids[]`, a group's `members[]`). Canvas
 * drops blank entries (Rails `reject(&:blank?)`), which is how a form says "empty list": `x[]=`, `x=`
 * and JSON `[""]` clear it. The value is the list without them.
 */
export function ids(item: Scalar<string> = id(), opts: { max?: number } = {}): Scalar<string[]> {
  const entry = z.union([item, BLANK], { error: (iss) => (iss.input === undefined ? undefined : item.safeParse(iss.input).error?.issues[0]?.message) });
  return list<string | null>(entry, opts).transform((xs) => xs.filter((x): x is string => x != null && String(x).trim() !== ''));
}

/** A nested params hash such as `group[name]`. */
export function obj<S extends Shape>(shape: S): Scalar<Out<S>> {
  return z.looseObject(shape) as unknown as Scalar<Out<S>>;
}

/**
 * A Canvas model's params hash (`course[...]`, `enrollment[...]`, `error[...]`): a problem inside it is
 * named by the model's attribute (`start_at`, not `course[start_at]`), as Canvas's model errors are and
 * as the service's own checks of the same fields name them, so one field has one name in every answer.
 */
export function model<S extends Shape>(shape: S): Scalar<Out<S>> {
  const schema = obj(shape);
  MODEL_HASHES.add(schema);
  return schema;
}
const MODEL_HASHES = new WeakSet<object>();
/** For each declared params schema, its keys that hold a model() hash (see checkParams). */
const MODEL_KEYS = new WeakMap<object, Set<string>>();

/** An open hash whose keys are data (e.g. `student_ids` keyed by index, or per-user settings). */
export function hash<T>(value: Scalar<T>, opts: { max?: number } = {}): Scalar<Record<string, T>> {
  const max = opts.max ?? 1_000;
  return z.record(z.string().max(255), value).refine((v) => Object.keys(v).length <= max, { message: `must have at most ${max} keys` });
}

/** A route's declared params: the top-level keys it reads from query, body and path, and their values. */
export type RouteParams<P = Record<string, any>> = z.ZodType<P, any>;

/** For each declared params schema, its top-level keys (the values a row reads are these only). */
const DECLARED = new WeakMap<object, string[]>();

export function params<S extends Shape>(shape: S): RouteParams<Out<S>> {
  const schema = z.looseObject(shape) as unknown as RouteParams<Out<S>>;
  const unwrap = (s: Scalar) => (s instanceof z.ZodOptional ? (s.unwrap() as Scalar) : s);
  const models = Object.keys(shape).filter((k) => MODEL_HASHES.has(unwrap(shape[k])));
  if (models.length) MODEL_KEYS.set(schema, new Set(models));
  DECLARED.set(schema, Object.keys(shape));
  return schema;
}

/** Keys the router itself reads on every route (paging, credentials, masquerading, includes). */
export const commonParams = params({
  // Page numbers past nine digits would overflow the SQL offset; bookmarks and `first` are words.
  page: z
    .union([z.string().max(4096), z.number()], { error: 'must be a page number or bookmark' })
    .refine((v) => !/^\d+$/.test(String(v)) || String(v).replace(/^0+/, '').length <= 9, { message: 'must be a page number up to 999999999' })
    .optional(),
  // Any short scalar here; whether it is a number is for lists to say (src/api/rest/pagination.ts), as
  // routes that are not lists ignore it.
  per_page: text({ max: 64 }).optional(),
  access_token: text({ max: 4096 }).optional(),
  as_user_id: id({ prefixes: ['sis_user_id', 'sis_login_id'] }).optional(),
  include: list().optional(),
});

/** `group[name]` for path [group, name], `members[]` for an array element. */
function fieldName(path: PropertyKey[]): string {
  const parts = path.map(String);
  if (!parts.length) return 'params';
  return parts.slice(1).reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[]` : `${acc}[${p}]`), parts[0]);
}

/**
 * Canvas's error type for a failed check, so a schema refusal reads like the model's would: `too_long`
 * for over-long text, `inclusion` for a word outside an enumeration, `invalid` otherwise. Looks inside
 * unions (nullable builders and lists are unions) for the first issue that says more than "wrong
 * type", and then uses its message too ("must be one of …" rather than "must be a list").
 */
function issueDetail(top: z.core.$ZodIssue): { type: string; message: string } {
  const queue: z.core.$ZodIssue[] = [top];
  while (queue.length) {
    const issue = queue.shift()!;
    const type = (issue as { params?: { type?: unknown } }).params?.type;
    if (typeof type === 'string') return { type, message: issue.message };
    // An enum miss; the '' and null alternatives of nullable builders and bool()'s 0/1 are not enums.
    if (issue.code === 'invalid_value' && issue.values.some((v) => typeof v === 'string' && v !== '')) return { type: 'inclusion', message: issue.message };
    if (issue.code === 'invalid_union') for (const branch of issue.errors) queue.push(...branch);
  }
  return { type: 'invalid', message: top.message };
}

type Issue = z.core.$ZodIssue;

/**
 * A union (e.g. "a list or one item") that fails reports only its own path; the branch that got
 * furthest into the value names the real culprit (`overrides[][student_ids][]`), so report that one.
 */
function deepest(issue: Issue): Issue[] {
  if (issue.code !== 'invalid_union' || !issue.errors?.length) return [issue];
  let best: Issue[] = [];
  let depth = 0;
  for (const branch of issue.errors) {
    const flat = branch.flatMap(deepest);
    const d = Math.max(0, ...flat.map((i) => i.path.length));
    if (d > depth) [best, depth] = [flat, d];
  }
  return depth ? best.map((i) => ({ ...i, path: [...issue.path, ...i.path] }) as Issue) : [issue];
}

/**
 * Parses params against the route's declaration: the declared keys' typed values (absent keys stay
 * absent), or the field errors (Canvas's 400 body shape) when the request does not fit.
 */
export function parseParams<P>(schema: RouteParams<P>, value: unknown): { values: P; errors?: undefined } | { values?: undefined; errors: FieldError[] } {
  const r = schema.safeParse(value);
  if (r.success) {
    const parsed = r.data as Record<string, unknown>;
    const values: Record<string, unknown> = {};
    for (const k of DECLARED.get(schema) ?? Object.keys(parsed)) if (parsed[k] !== undefined) values[k] = parsed[k];
    return { values: values as P };
  }
  return { errors: fieldErrors(schema, r.error) };
}

/** Validates params; the field errors (Canvas's 400 body shape) or null when they fit. */
export function checkParams(schema: RouteParams, value: unknown): FieldError[] | null {
  return parseParams(schema, value).errors ?? null;
}

function fieldErrors(schema: RouteParams<unknown>, error: z.ZodError): FieldError[] {
  const r = { error };
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  const models = MODEL_KEYS.get(schema);
  for (const issue of r.error.issues.flatMap(deepest)) {
    const inModel = issue.path.length > 1 && models?.has(String(issue.path[0]));
    const attribute = fieldName(inModel ? issue.path.slice(1) : issue.path);
    if (seen.has(attribute)) continue;
    seen.add(attribute);
    const { type, message } = issueDetail(issue);
    errors.push({ attribute, type, message: `${attribute} ${message}` });
  }
  return errors;
}

export { z };
