/**
 * Canvas ids are JSON numbers. GraphQL's `_id` is a string, so presenters name the keys to turn back
 * into numbers; `Accept: application/json+canvas-string-ids` turns every id into a string instead.
 */
export function numericIds<T extends Record<string, unknown>>(obj: T, keys: readonly string[]): T {
  const out: Record<string, unknown> = { ...obj };
  for (const k of keys) {
    const v = out[k];
    if (typeof v === 'string' && /^\d+$/.test(v)) out[k] = Number(v);
    else if (Array.isArray(v)) out[k] = v.map((x) => (typeof x === 'string' && /^\d+$/.test(x) ? Number(x) : x));
  }
  return out as T;
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
