/**
 * Canvas ids are JSON numbers. GraphQL's `_id` is a string, so presenters name the keys to turn back
 * into numbers; `Accept: application/json+canvas-string-ids` turns every id into a string instead.
 */
export function numericIds<T extends Record<string, unknown>>(obj: T, keys: readonly string[]): T {
  const out: Record<string, unknown> = { ...obj };
  for (const k of keys) out[k] = numericId(out[k]);
  return out as T;
}

/** A digits-only string id (or a list of them) as a JSON number; anything else as it is. */
export function numericId(v: unknown): unknown {
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' && /^\d+$/.test(x) ? Number(x) : x));
  return v;
}

export interface Reshape {
  /** Keys whose ids become JSON numbers (see numericIds). */
  numeric?: ReadonlySet<string>;
  /** Keys left out when their value is null or undefined. */
  omitNull?: ReadonlySet<string>;
  /** Keys left out of this object (decided per object). */
  omit?: (key: string, obj: Record<string, any>) => boolean;
  /** Keys whose (non-null) value is reshaped further. */
  nested?: Readonly<Record<string, (value: any) => unknown>>;
}

/**
 * A presenter's usual work on a GraphQL result object in one pass: one new object in the same key
 * order, with no `delete` (a deleted key turns an object into a slow dictionary, for the presenter
 * and again for JSON serialisation; both were measured on 1,000-item pages).
 */
export function reshape(obj: Record<string, any>, rules: Reshape): Record<string, any> {
  const out: Record<string, any> = {};
  for (const k in obj) {
    let v = obj[k];
    if (v == null && rules.omitNull?.has(k)) continue;
    if (rules.omit?.(k, obj)) continue;
    if (rules.numeric?.has(k)) v = numericId(v);
    else if (v != null && rules.nested?.[k]) v = rules.nested[k](v);
    out[k] = v;
  }
  return out;
}

const ID_KEY = /(^id$|_id$|_ids$)/;

export function stringifyIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stringifyIds);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (ID_KEY.test(k) && typeof v === 'number') out[k] = String(v);
      else if (ID_KEY.test(k) && Array.isArray(v)) out[k] = v.map((x) => (typeof x === 'number' ? String(x) : stringifyIds(x)));
      else out[k] = stringifyIds(v);
    }
    return out;
  }
  return value;
}

/** Drops keys whose value is null, for fields Canvas only emits when they apply. */
export function omitNull<T extends Record<string, unknown>>(obj: T, keys: readonly string[]): T {
  const out: Record<string, unknown> = { ...obj };
  for (const k of keys) if (out[k] == null) delete out[k];
  return out as T;
}
