import { NotFoundError } from './errors';

/** A path id as Canvas accepts it: numeric, `self`, or `<prefix>:<value>` for the given prefixes. */
export type ParsedId = { kind: 'id'; id: number } | { kind: 'self' } | { kind: 'prefixed'; prefix: string; value: string };

/**
 * A path value with any remaining percent-escapes decoded; null when they are malformed (`100%`,
 * `%E0%A4%A`), which names no object, rather than the URIError decodeURIComponent throws.
 */
export function decodePathValue(raw: string | number): string | null {
  try {
    return decodeURIComponent(String(raw));
  } catch {
    return null;
  }
}

export function parseIdParam(raw: string | number, prefixes: string[] = [], allowSelf = false): ParsedId {
  const decoded = decodePathValue(raw);
  if (decoded == null) throw new NotFoundError();
  const s = decoded.trim();
  if (/^\d{1,15}$/.test(s)) return { kind: 'id', id: Number(s) };
  if (allowSelf && s === 'self') return { kind: 'self' };
  const colon = s.indexOf(':');
  if (colon > 0) {
    const prefix = s.slice(0, colon);
    if (prefixes.includes(prefix)) return { kind: 'prefixed', prefix, value: s.slice(colon + 1) };
  }
  throw new NotFoundError();
}

/** A numeric id or NotFound, for ids that have no other accepted form. */
export function numericId(raw: string | number | null | undefined): number {
  if (raw == null) throw new NotFoundError();
  const p = parseIdParam(raw);
  if (p.kind !== 'id') throw new NotFoundError();
  return p.id;
}
