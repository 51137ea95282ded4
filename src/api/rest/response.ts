/**
 * Declared REST answers: the Canvas JSON a route row answers, as JSON Schema (draft 2020-12, as OpenAPI
 * 3.1 uses it). Each object kind is one named schema, defined beside its area's presenters and shared by
 * every row that answers it; the document carries them under components/schemas (src/rest/openapi.ts)
 * and the test suite holds every answer it sees to them (test/support/response-schemas.ts).
 *
 * Objects are documented open (Canvas adds fields over time, and clients should ignore unknown ones);
 * the suite's check closes them, so a field a presenter emits without declaring it fails a test.
 */
export type JsonSchema = Record<string, any>;

/**
 * A field: a schema, or a word: `id` (a Canvas id: a JSON number), `string`, `int`, `number`, `bool`,
 * `date` (an ISO 8601 date-time string), `any`; a trailing `?` allows null.
 */
export type Field = string | JsonSchema;

const WORDS: Record<string, JsonSchema> = {
  id: { type: 'integer' },
  string: { type: 'string' },
  int: { type: 'integer' },
  number: { type: 'number' },
  bool: { type: 'boolean' },
  date: { type: 'string', format: 'date-time' },
  any: {},
};

/** The same schema, also allowing null. */
export function nullable(f: Field): JsonSchema {
  const s = field(f);
  if (s.$ref || s.anyOf || s.oneOf) return { anyOf: [s, { type: 'null' }] };
  if (s.type === undefined) return s;
  const types = Array.isArray(s.type) ? s.type : [s.type];
  return types.includes('null') ? s : { ...s, type: [...types, 'null'] };
}

export function field(f: Field): JsonSchema {
  if (typeof f !== 'string') return f;
  const optional = f.endsWith('?');
  const word = optional ? f.slice(0, -1) : f;
  const s = WORDS[word];
  if (!s) throw new Error(`unknown response field type: ${f}`);
  return optional ? nullable(s) : s;
}

export const arr = (item: Field): JsonSchema => ({ type: 'array', items: field(item) });

/** A string that is one of the given words. */
export const words = (...values: string[]): JsonSchema => ({ type: 'string', enum: values });

/** A constant (e.g. `false` for a field Canvas always answers the same here). */
export const constant = (value: unknown): JsonSchema => ({ const: value });

/**
 * An object. Every property is required (a fragment field is always answered, null or not) except those
 * named in `optional`: fields a presenter leaves out when null, or adds only for an include[].
 */
export function shape(props: Record<string, Field>, opts: { optional?: readonly string[]; description?: string } = {}): JsonSchema {
  const properties = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, field(v)]));
  const optional = new Set(opts.optional ?? []);
  for (const k of optional) if (!(k in properties)) throw new Error(`optional field ${k} is not declared`);
  const required = Object.keys(properties).filter((k) => !optional.has(k));
  return {
    type: 'object',
    ...(opts.description ? { description: opts.description } : {}),
    properties,
    ...(required.length ? { required } : {}),
  };
}

/** A map whose keys are data (e.g. permission name → granted). */
export const mapOf = (value: Field): JsonSchema => ({ type: 'object', additionalProperties: field(value) });

const named = new Map<string, JsonSchema>();

/** Registers a named schema (one per object kind) and returns a reference to it. */
export function defineSchema(name: string, schema: JsonSchema): JsonSchema {
  if (named.has(name) && named.get(name) !== schema) throw new Error(`response schema ${name} is defined twice`);
  named.set(name, schema);
  return { $ref: `#/components/schemas/${name}` };
}

/** Every named schema, for components/schemas. */
export function namedSchemas(): Record<string, JsonSchema> {
  return Object.fromEntries([...named.entries()].sort(([a], [b]) => a.localeCompare(b)));
}
