/*
 * Dates as SQL text and back: the text both engines compare their datetime columns with (what SQLite
 * stores), so a key set cursor can carry a date and bind it back as a parameter.
 */

/** A date as both engines compare it with their datetime columns (SQLite stores this exact text). */
export const sqlDate = (d: Date) => d.toISOString().replace('T', ' ').replace('Z', '');

/** A datetime read back from a raw query: a Date (MySQL) or 'YYYY-MM-DD HH:MM:SS.mmm' text (SQLite). */
export const readDate = (v: unknown): Date => {
  if (v instanceof Date) return v;
  if (typeof v === 'string') {
    const t = sqliteUtc(v);
    if (t !== null) return new Date(t);
  }
  return new Date(`${String(v).replace(' ', 'T')}${/[zZ]|[+-]\d\d:?\d\d$/.test(String(v)) ? '' : 'Z'}`);
};

const digit = (s: string, i: number) => s.charCodeAt(i) - 48;
const digits = (s: string, from: number, n: number): number => {
  let v = 0;
  for (let i = from; i < from + n; i++) {
    const d = digit(s, i);
    if (d < 0 || d > 9) return NaN;
    v = v * 10 + d;
  }
  return v;
};

/**
 * SQLite's own text 'YYYY-MM-DD HH:MM:SS' or 'YYYY-MM-DD HH:MM:SS.mmm' (UTC) as epoch milliseconds, read
 * digit by digit (a page of planner items reads one per row); null for any other text, which Date's
 * parser reads as before. Fields in range only, where Date.UTC and the parser agree.
 */
function sqliteUtc(v: string): number | null {
  if ((v.length !== 19 && v.length !== 23) || v.charCodeAt(4) !== 45 || v.charCodeAt(7) !== 45 || v.charCodeAt(10) !== 32 || v.charCodeAt(13) !== 58 || v.charCodeAt(16) !== 58) return null;
  if (v.length === 23 && v.charCodeAt(19) !== 46) return null;
  const y = digits(v, 0, 4);
  const mo = digits(v, 5, 2);
  const d = digits(v, 8, 2);
  const h = digits(v, 11, 2);
  const mi = digits(v, 14, 2);
  const s = digits(v, 17, 2);
  const ms = v.length === 23 ? digits(v, 20, 3) : 0;
  // Date.UTC reads years 0-99 as 1900-1999: those (and anything out of range) go to the parser.
  if (!(y >= 100 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h <= 23 && mi <= 59 && s <= 59 && ms >= 0)) return null;
  return Date.UTC(y, mo - 1, d, h, mi, s, ms);
}

/** A date column's value as a key: its comparable text, or null. */
export const dateKey = (d: Date | null | undefined): string | null => (d ? sqlDate(d) : null);
