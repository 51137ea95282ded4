import { Validator } from '../common/errors';
import { parseCanvasDate } from '../common/dates';
import { sanitizeHtml } from '../common/sanitize';
import { fitText } from '../content/content-columns';
import type { RequestContext } from '../request/context';
import { CalendarAccess, CalendarContext, parseCode } from './calendar-event.access';
import type { CalendarEvent } from './calendar-event.entity';

export interface ChildEventFields {
  startAt?: string | null;
  endAt?: string | null;
  contextCode?: string | null;
}

export interface CalendarEventFields {
  title?: string | null;
  description?: string | null;
  startAt?: string | null;
  endAt?: string | null;
  locationName?: string | null;
  locationAddress?: string | null;
  allDay?: boolean | null;
  /** Section-limited children; given (even empty) it replaces the event's children. */
  childEventData?: ChildEventFields[] | null;
}

/** A section event as wanted: its section and times, checked. */
export interface ChildRow {
  context: CalendarContext;
  startAt: Date;
  endAt: Date;
}

const DAY = 86_400_000;
const TITLE_MAX = 255;
export const CHILDREN_MAX = 100;
const toSecond = (d: Date) => new Date(Math.floor(d.getTime() / 1000) * 1000);
const midnight = (d: Date) => new Date(Math.floor(d.getTime() / DAY) * DAY);

/** A field's date: absent stays undefined, blank or null clears it, anything unreadable is a 400. */
function fieldDate(v: Validator, attribute: string, raw: string | null | undefined): Date | null | undefined {
  if (raw === undefined) return undefined;
  if (raw == null || raw.trim() === '') return null;
  const d = parseCanvasDate(raw);
  if (!d) v.add(attribute, 'invalid', `${attribute} must be an ISO 8601 date or date-time`);
  return d ?? undefined;
}


/**
 * Checks every field and sets them on the row; returns the wanted children (already checked) when
 * child_event_data was given. Nothing is written here.
 */
export async function applyFields(ctx: RequestContext, row: CalendarEvent, context: CalendarContext, f: CalendarEventFields): Promise<ChildRow[] | null> {
  const v = new Validator();
  if (f.title !== undefined) {
    const title = (f.title ?? '').trim();
    v.check(title.length <= TITLE_MAX, 'calendar_event[title]', 'too_long', `title is too long (maximum is ${TITLE_MAX} characters)`);
    row.title = title;
  }
  if (f.description !== undefined) row.description = f.description == null || f.description === '' ? null : fitText(sanitizeHtml(f.description, ctx.app.config), 'calendar_event[description]', 'Description');
  if (f.locationName !== undefined) row.locationName = f.locationName || null;
  if (f.locationAddress !== undefined) row.locationAddress = f.locationAddress || null;
  for (const [k, val] of [['location_name', row.locationName], ['location_address', row.locationAddress]] as const) {
    v.check((val ?? '').length <= 255, `calendar_event[${k}]`, 'too_long', `${k} is too long (maximum is 255 characters)`);
  }
  const startAt = fieldDate(v, 'calendar_event[start_at]', f.startAt);
  const endAt = fieldDate(v, 'calendar_event[end_at]', f.endAt);
  if (startAt !== undefined) row.startAt = startAt && toSecond(startAt);
  if (endAt !== undefined) row.endAt = endAt && toSecond(endAt);
  let children: ChildRow[] | null = null;
  if (f.childEventData != null) {
    if (context.type !== 'Course') v.add('calendar_event[child_event_data]', 'invalid', 'only a course event can have section events');
    if (f.childEventData.length > CHILDREN_MAX) v.add('calendar_event[child_event_data]', 'too_long', `at most ${CHILDREN_MAX} section events`);
    children = [];
    for (const [i, c] of f.childEventData.slice(0, CHILDREN_MAX).entries()) {
      const at = `calendar_event[child_event_data][${i}]`;
      const s = fieldDate(v, `${at}[start_at]`, c.startAt ?? null);
      const e = fieldDate(v, `${at}[end_at]`, c.endAt ?? null);
      const parsed = c.contextCode ? parseCode(c.contextCode) : null;
      const section = parsed?.type === 'CourseSection' ? await ctx.use(CalendarAccess).context('CourseSection', parsed.id) : null;
      if (!section || section.course?.id !== context.id) {
        v.add(`${at}[context_code]`, 'invalid', `${at}[context_code] must be a section of this course (course_section_N)`);
        continue;
      }
      if (!s || !e) {
        v.add(`${at}[start_at]`, 'blank', `${at} needs start_at and end_at`);
        continue;
      }
      children.push({ context: section, startAt: toSecond(s), endAt: toSecond(e < s ? s : e) });
    }
  }
  v.throwIfInvalid();
  if (children?.length) {
    // A parent spans its children and is hidden: each section sees its own child.
    row.startAt = new Date(Math.min(...children.map((c) => c.startAt.getTime())));
    row.endAt = new Date(Math.max(...children.map((c) => c.endAt.getTime())));
    row.hidden = true;
    row.allDay = false;
  } else if (children) row.hidden = false;
  // Canvas's default_values: a missing end is the start (and the other way round), an end before the start is the start.
  if (row.startAt && !row.endAt) row.endAt = row.startAt;
  if (row.endAt && !row.startAt) row.startAt = row.endAt;
  if (row.startAt && row.endAt && row.endAt < row.startAt) row.endAt = row.startAt;
  if (!children?.length) {
    const wantsAllDay = f.allDay ?? (f.startAt !== undefined || f.endAt !== undefined ? null : row.allDay);
    // all_day, or a zero-length event at midnight, is an all-day event on that date.
    const allDay = row.startAt != null && (wantsAllDay === true || (wantsAllDay == null && row.endAt!.getTime() === row.startAt.getTime() && row.startAt.getTime() % DAY === 0));
    row.allDay = allDay;
    if (allDay) {
      row.startAt = midnight(row.startAt!);
      row.endAt = row.startAt;
    }
    row.allDayDate = allDay ? row.startAt!.toISOString().slice(0, 10) : null;
  } else row.allDayDate = null;
  return children;
}
