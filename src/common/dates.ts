const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Parses the date forms Canvas accepts: ISO 8601 with or without an offset and `YYYY-MM-DD`.
 * Times without an offset are UTC (every user's zone is UTC here). Returns null when unparseable.
 */
export function parseCanvasDate(input: string): Date | null {
  const s = input.trim();
  const m = ISO.exec(s);
  if (!m) return null;
  const [, y, mo, d, h = '00', mi = '00', sec = '00', frac, zone] = m;
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > 31 || Number(h) > 23 || Number(mi) > 59 || Number(sec) > 59) {
    return null;
  }
  let offset = 'Z';
  if (zone && zone.toUpperCase() !== 'Z') offset = zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${sec}${frac ?? ''}${offset}`);
  if (Number.isNaN(date.getTime())) return null;
  // Reject rollovers such as 2024-02-31 that Date would silently move into March.
  if (!zone && date.getUTCDate() !== day) return null;
  return date;
}

/** `YYYY-MM-DDTHH:MM:SSZ`, Canvas's API rendering. */
export function formatDateTime(d: Date): string;
export function formatDateTime(d: Date | null | undefined): string | null;
export function formatDateTime(d: Date | null | undefined): string | null {
  if (!d) return null;
  // toISOString always ends in `.sssZ` (or throws for an invalid date): cut the milliseconds off.
  const iso = d.toISOString();
  return `${iso.slice(0, -5)}Z`;
}

/** `YYYY-MM-DD` for date-only columns. */
export function formatDate(d: Date | null | undefined): string | null {
  return d ? d.toISOString().slice(0, 10) : null;
}
