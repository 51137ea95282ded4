import { RequestError } from '../common/errors';
import { parseCanvasDate } from '../common/dates';

const DAY = 86_400_000;
const DATE_ONLY = /^\s*\d{4}-\d{2}-\d{2}\s*$/;

/** The window args Canvas's calendar lists share (events and assignment events). */
export interface CalendarWindowArgs {
  startDate?: string | null;
  endDate?: string | null;
  undated?: boolean | null;
  allEvents?: boolean | null;
}

/** Which dated rows a list shows: only undated ones, every one, or those overlapping [from, to]. */
export type CalendarWindow = { kind: 'undated' } | { kind: 'all' } | { kind: 'range'; from: Date; to: Date };

/** Canvas's 400 for a list date it cannot read. */
function listDate(name: string, raw: string | null | undefined): Date | null {
  if (raw == null || raw.trim() === '') return null;
  const d = parseCanvasDate(raw);
  if (!d) {
    const message = `Invalid date or datetime for ${name}`;
    throw new RequestError(message, 400, { errors: message });
  }
  return d;
}

const midnight = (d: Date) => new Date(Math.floor(d.getTime() / DAY) * DAY);

/**
 * Canvas's calendar window: `undated` wins, then `all_events`; otherwise neither date means today, a
 * date-only end_date runs to the end of that day, and no end_date means the start's day. Unreadable
 * dates are refused even when the window ignores them.
 */
export function calendarWindow(args: CalendarWindowArgs): CalendarWindow {
  const start = listDate('start_date', args.startDate);
  const end = listDate('end_date', args.endDate);
  if (args.undated) return { kind: 'undated' };
  if (args.allEvents) return { kind: 'all' };
  const from = start ?? midnight(new Date());
  let to = end ?? new Date(midnight(from).getTime() + DAY - 1);
  if (end && args.endDate && DATE_ONLY.test(args.endDate)) to = new Date(end.getTime() + DAY - 1);
  return { kind: 'range', from, to };
}
