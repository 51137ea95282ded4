import { Brackets, EntityManager, In } from 'typeorm';
import { NotFoundError, RequestError, ValidationError, Validator } from '../common/errors';
import { parseCanvasDate } from '../common/dates';
import { ConnectionResult, parseAnyId, pageWindow, toConnection } from '../common/relay';
import { sanitizeHtml } from '../common/sanitize';
import { fitText } from '../content/content-columns';
import { CourseSection } from '../courses/section.entity';
import { transaction } from '../db/transaction';
import { raise } from '../events/domain-events';
import type { RequestContext } from '../request/context';
import { CalendarAccess, CalendarContext, contextCode, parseCode, unauthorized } from './calendar-event.access';
import { CalendarEvent } from './calendar-event.entity';

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

export interface CalendarListArgs {
  type?: string | null;
  contextCodes?: string[] | null;
  startDate?: string | null;
  endDate?: string | null;
  undated?: boolean | null;
  allEvents?: boolean | null;
  first?: number | null;
  after?: string | null;
}

const DAY = 86_400_000;
const DATE_ONLY = /^\s*\d{4}-\d{2}-\d{2}\s*$/;
const TITLE_MAX = 255;
const CHILDREN_MAX = 100;

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

/** A field's date: absent stays undefined, blank or null clears it, anything unreadable is a 400. */
function fieldDate(v: Validator, attribute: string, raw: string | null | undefined): Date | null | undefined {
  if (raw === undefined) return undefined;
  if (raw == null || raw.trim() === '') return null;
  const d = parseCanvasDate(raw);
  if (!d) v.add(attribute, 'invalid', `${attribute} must be an ISO 8601 date or date-time`);
  return d ?? undefined;
}

const toSecond = (d: Date) => new Date(Math.floor(d.getTime() / 1000) * 1000);
const midnight = (d: Date) => new Date(Math.floor(d.getTime() / DAY) * DAY);

/**
 * Calendar events (Canvas's CalendarEventsApiController): lists by context codes and date window, one
 * event by id, and writes with Canvas's permission rules (src/calendar-events/calendar-event.access.ts).
 */
export class CalendarEventService {
  constructor(private readonly ctx: RequestContext) {}

  private get access(): CalendarAccess {
    return this.ctx.use(CalendarAccess);
  }

  // ---- reads ------------------------------------------------------------------------------------

  async list(args: CalendarListArgs): Promise<ConnectionResult<CalendarEvent>> {
    const viewer = this.ctx.authz.requireViewer();
    const w = pageWindow(args, 10, 100);
    const type = args.type ?? 'event';
    if (type !== 'event' && type !== 'assignment') throw ValidationError.of('type', 'inclusion', 'type must be event or assignment');
    const start = listDate('start_date', args.startDate);
    const endRaw = listDate('end_date', args.endDate);
    // Assignment events are not served yet: the list is empty, as for a caller with no dated assignments.
    if (type === 'assignment') return toConnection([], 0, w);
    // Without context codes Canvas shows the caller's own calendar only.
    const codes = args.contextCodes?.length ? args.contextCodes : [`user_${viewer.id}`];
    const own: string[] = [];
    const sectionIds: number[] = [];
    const allSectionsOf: number[] = [];
    for (const raw of codes.slice(0, 100)) {
      const parsed = parseCode(String(raw));
      if (!parsed || parsed.type === 'CourseSection') continue;
      const c = await this.access.context(parsed.type, parsed.id);
      // Codes the caller cannot read are dropped, as Canvas drops them.
      if (!c || !(await this.access.can(c, 'read'))) continue;
      own.push(c.code);
      if (c.type === 'Course') {
        const visible = await this.access.visibleSections(c.course!);
        if (visible === 'all') allSectionsOf.push(c.id);
        else sectionIds.push(...visible);
      }
    }
    if (allSectionsOf.length) {
      const rows = await this.ctx.ds.getRepository(CourseSection).find({ select: { id: true }, where: { courseId: In(allSectionsOf) } });
      sectionIds.push(...rows.map((r) => r.id));
    }
    if (!own.length) return toConnection([], 0, w);

    const qb = this.ctx.ds
      .getRepository(CalendarEvent)
      .createQueryBuilder('e')
      .where("e.workflow_state = 'active'")
      .andWhere(
        new Brackets((b) => {
          b.where('(e.context_code IN (:...own) AND e.hidden = :no)', { own, no: false });
          if (sectionIds.length) b.orWhere("(e.context_type = 'CourseSection' AND e.context_id IN (:...sectionIds))", { sectionIds });
        }),
      );
    if (args.undated) qb.andWhere('e.start_at IS NULL');
    else if (!args.allEvents) {
      // Neither date: today. A date-only end_date runs to the end of that day; no end_date: the start's day.
      const from = start ?? midnight(new Date());
      let to = endRaw ?? new Date(midnight(from).getTime() + DAY - 1);
      if (endRaw && args.endDate && DATE_ONLY.test(args.endDate)) to = new Date(endRaw.getTime() + DAY - 1);
      qb.andWhere('e.start_at IS NOT NULL AND e.start_at <= :to AND COALESCE(e.end_at, e.start_at) >= :from', { from, to });
    }
    const [rows, total] = await qb.orderBy('e.start_at', 'ASC').addOrderBy('e.id', 'ASC').skip(w.offset).take(w.limit).getManyAndCount();
    return toConnection(rows, total, w);
  }

  /** One event the viewer may read: missing or deleted → 404; not theirs to see → Canvas's 401. */
  async show(rawId: string | number): Promise<CalendarEvent> {
    return this.withRight(rawId, 'read');
  }

  private async withRight(rawId: string | number, action: 'read' | 'manage'): Promise<CalendarEvent> {
    this.ctx.authz.requireViewer();
    const id = parseAnyId(rawId, 'CalendarEvent');
    const e = id == null ? null : await this.ctx.loaders.byId(CalendarEvent).load(id);
    if (!e || e.workflowState === 'deleted' || !(await this.access.contextOf(e))) throw new NotFoundError();
    if (!(await this.access.canEvent(e, action))) throw unauthorized();
    return e;
  }

  /** A parent's live children the viewer may see (batched: a page of parents costs one statement). */
  async childrenOf(parent: CalendarEvent): Promise<CalendarEvent[]> {
    const rows = await this.ctx.loaders.manyBy(CalendarEvent, 'parentCalendarEventId', { workflowState: 'active' }).load(parent.id);
    const out: CalendarEvent[] = [];
    for (const r of rows) if (await this.access.canEvent(r, 'read')) out.push(r);
    return out;
  }

  /** The name of an event's context (course, group, user or section), for context_name. */
  async contextName(e: CalendarEvent): Promise<string | null> {
    return (await this.access.contextOf(e))?.name ?? null;
  }

  // ---- writes -----------------------------------------------------------------------------------

  async create(code: string | null | undefined, fields: CalendarEventFields): Promise<{ calendarEvent: CalendarEvent }> {
    this.ctx.authz.requireViewer();
    const context = await this.access.contextOfCode(code, 'calendar_event[context_code]');
    // Child events are made through their parent, never on their own.
    if (context.type === 'CourseSection') throw ValidationError.of('calendar_event[context_code]', 'invalid', 'a section event is created as child_event_data of its course event');
    if (!(await this.access.can(context, 'manage'))) throw unauthorized();
    const row = this.ctx.ds.getRepository(CalendarEvent).create({
      contextType: context.type,
      contextId: context.id,
      contextCode: context.code,
      effectiveContextCode: context.code,
      title: '',
      description: null,
      locationName: null,
      locationAddress: null,
      startAt: null,
      endAt: null,
      allDay: false,
      allDayDate: null,
      hidden: false,
      parentCalendarEventId: null,
      userId: this.ctx.viewer!.id,
      workflowState: 'active',
    });
    const children = await this.apply(row, context, fields);
    return transaction(this.ctx.ds, async (em) => {
      const calendarEvent = await em.getRepository(CalendarEvent).save(row);
      if (children) await this.replaceChildren(em, calendarEvent, children);
      await raise(em, this.ctx, { type: 'calendar_event.changed', eventId: calendarEvent.id, change: 'created' });
      return { calendarEvent };
    });
  }

  async update(rawId: string | number, fields: CalendarEventFields): Promise<{ calendarEvent: CalendarEvent }> {
    const row = await this.withRight(rawId, 'manage');
    const context = (await this.access.contextOf(row))!;
    if (fields.childEventData != null && (context.type !== 'Course' || row.parentCalendarEventId != null)) {
      throw ValidationError.of('calendar_event[child_event_data]', 'invalid', 'only a course event can have section events');
    }
    const children = await this.apply(row, context, fields);
    return transaction(this.ctx.ds, async (em) => {
      const calendarEvent = await em.getRepository(CalendarEvent).save(row);
      if (children) await this.replaceChildren(em, calendarEvent, children);
      else if (row.hidden) await this.followParent(em, calendarEvent);
      await raise(em, this.ctx, { type: 'calendar_event.changed', eventId: calendarEvent.id, change: 'updated' });
      return { calendarEvent };
    });
  }

  /** Deletes the event (and its section children), as Canvas: workflow_state becomes deleted. */
  async delete(rawId: string | number): Promise<{ calendarEvent: CalendarEvent }> {
    const row = await this.withRight(rawId, 'manage');
    return transaction(this.ctx.ds, async (em) => {
      const repo = em.getRepository(CalendarEvent);
      const children = await repo.findBy({ parentCalendarEventId: row.id, workflowState: 'active' });
      for (const c of [...children, row]) {
        c.workflowState = 'deleted';
        await repo.save(c);
        await raise(em, this.ctx, { type: 'calendar_event.changed', eventId: c.id, change: 'deleted' });
      }
      return { calendarEvent: row };
    });
  }

  /**
   * Checks every field and sets them on the row; returns the wanted children (already checked) when
   * child_event_data was given. Nothing is written here.
   */
  private async apply(row: CalendarEvent, context: CalendarContext, f: CalendarEventFields): Promise<{ context: CalendarContext; startAt: Date; endAt: Date }[] | null> {
    const v = new Validator();
    if (f.title !== undefined) {
      const title = (f.title ?? '').trim();
      v.check(title.length <= TITLE_MAX, 'calendar_event[title]', 'too_long', `title is too long (maximum is ${TITLE_MAX} characters)`);
      row.title = title;
    }
    if (f.description !== undefined) row.description = f.description == null || f.description === '' ? null : fitText(sanitizeHtml(f.description, this.ctx.app.config), 'calendar_event[description]', 'Description');
    if (f.locationName !== undefined) row.locationName = f.locationName || null;
    if (f.locationAddress !== undefined) row.locationAddress = f.locationAddress || null;
    for (const [k, val] of [['location_name', row.locationName], ['location_address', row.locationAddress]] as const) {
      v.check((val ?? '').length <= 255, `calendar_event[${k}]`, 'too_long', `${k} is too long (maximum is 255 characters)`);
    }
    const startAt = fieldDate(v, 'calendar_event[start_at]', f.startAt);
    const endAt = fieldDate(v, 'calendar_event[end_at]', f.endAt);
    if (startAt !== undefined) row.startAt = startAt && toSecond(startAt);
    if (endAt !== undefined) row.endAt = endAt && toSecond(endAt);
    let children: { context: CalendarContext; startAt: Date; endAt: Date }[] | null = null;
    if (f.childEventData != null) {
      if (context.type !== 'Course') v.add('calendar_event[child_event_data]', 'invalid', 'only a course event can have section events');
      if (f.childEventData.length > CHILDREN_MAX) v.add('calendar_event[child_event_data]', 'too_long', `at most ${CHILDREN_MAX} section events`);
      children = [];
      for (const [i, c] of f.childEventData.slice(0, CHILDREN_MAX).entries()) {
        const at = `calendar_event[child_event_data][${i}]`;
        const s = fieldDate(v, `${at}[start_at]`, c.startAt ?? null);
        const e = fieldDate(v, `${at}[end_at]`, c.endAt ?? null);
        const parsed = c.contextCode ? parseCode(c.contextCode) : null;
        const section = parsed?.type === 'CourseSection' ? await this.access.context('CourseSection', parsed.id) : null;
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

  /** Section events keep their parent's title, description and location (their times are their own). */
  private async followParent(em: EntityManager, parent: CalendarEvent): Promise<void> {
    const repo = em.getRepository(CalendarEvent);
    for (const c of await repo.findBy({ parentCalendarEventId: parent.id, workflowState: 'active' })) {
      if (c.title === parent.title && c.description === parent.description && c.locationName === parent.locationName && c.locationAddress === parent.locationAddress) continue;
      Object.assign(c, { title: parent.title, description: parent.description, locationName: parent.locationName, locationAddress: parent.locationAddress });
      await repo.save(c);
      await raise(em, this.ctx, { type: 'calendar_event.changed', eventId: c.id, change: 'updated' });
    }
  }

  private async replaceChildren(em: EntityManager, parent: CalendarEvent, children: { context: CalendarContext; startAt: Date; endAt: Date }[]): Promise<void> {
    const repo = em.getRepository(CalendarEvent);
    const existing = new Map((await repo.findBy({ parentCalendarEventId: parent.id, workflowState: 'active' })).map((c) => [c.contextId, c]));
    for (const c of children) {
      const row = existing.get(c.context.id) ?? repo.create({ contextType: 'CourseSection', contextId: c.context.id, contextCode: contextCode('CourseSection', c.context.id), workflowState: 'active', hidden: false });
      existing.delete(c.context.id);
      Object.assign(row, {
        effectiveContextCode: parent.contextCode,
        parentCalendarEventId: parent.id,
        title: parent.title,
        description: parent.description,
        locationName: parent.locationName,
        locationAddress: parent.locationAddress,
        startAt: c.startAt,
        endAt: c.endAt,
        allDay: false,
        allDayDate: null,
        userId: parent.userId,
      });
      const change = row.id ? 'updated' : 'created';
      const saved = await repo.save(row);
      await raise(em, this.ctx, { type: 'calendar_event.changed', eventId: saved.id, change });
    }
    // Sections no longer listed lose their event.
    for (const gone of existing.values()) {
      gone.workflowState = 'deleted';
      await repo.save(gone);
      await raise(em, this.ctx, { type: 'calendar_event.changed', eventId: gone.id, change: 'deleted' });
    }
  }
}
