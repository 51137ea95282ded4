import { EntityManager } from 'typeorm';
import { NotFoundError, ValidationError } from '../common/errors';
import { keyWindow, SortKey } from '../common/keyset';
import { dateKey, sqlDate } from '../common/sql-dates';
import { ConnectionResult, parseAnyId } from '../common/relay';
import { keysetPage } from '../db/keyset-page';
import { transaction } from '../db/transaction';
import type { SqlPart } from '../db/union-pages';
import { raise } from '../events/domain-events';
import type { RequestContext } from '../request/context';
import { CalendarAccess, contextCode, unauthorized } from './calendar-event.access';
import { CalendarEvent } from './calendar-event.entity';
import { applyFields, CalendarEventFields, ChildRow } from './calendar-event.fields';
import { calendarWindow, CalendarWindowArgs } from './calendar-window';

export type { CalendarEventFields, ChildEventFields } from './calendar-event.fields';

export interface CalendarListArgs extends CalendarWindowArgs {
  type?: string | null;
  contextCodes?: string[] | null;
  first?: number | null;
  after?: string | null;
}

/** The list's order: undated events (NULL start) first, as both engines sort them; ties by id. */
const EVENT_ORDER: readonly SortKey[] = [
  { expr: 'e.start_at', dir: 'ASC', nullable: true },
  { expr: 'e.id', dir: 'ASC' },
];
const eventKey = (e: CalendarEvent) => [dateKey(e.startAt), e.id];

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
    const w = keyWindow(args, EVENT_ORDER.length, 10, 100);
    const type = args.type ?? 'event';
    if (type !== 'event' && type !== 'assignment') throw ValidationError.of('type', 'inclusion', 'type must be event or assignment');
    // Assignments are listed by assignmentEvents (REST: the same path with type=assignment).
    if (type === 'assignment') throw ValidationError.of('type', 'inclusion', 'assignment events are listed by assignmentEvents');
    const window = calendarWindow(args);
    // Without context codes Canvas shows the caller's own calendar only.
    const codes = args.contextCodes?.length ? args.contextCodes : [`user_${viewer.id}`];
    const branches: SqlPart[] = [];
    const seen = new Set<string>();
    for (const c of await this.access.readableContexts(codes)) {
      if (seen.has(c.code)) continue;
      seen.add(c.code);
      const visible = c.type === 'Course' ? await this.access.visibleSections(c.course!) : [];
      if (visible === 'all') {
        // The course's own events and every section's (whose effective context is the course) in one range.
        branches.push({ sql: "e.effective_context_code = ? AND e.workflow_state = 'active' AND (e.hidden = 0 OR e.context_type = 'CourseSection')", params: [c.code] });
        continue;
      }
      branches.push({ sql: "e.context_code = ? AND e.workflow_state = 'active' AND e.hidden = 0", params: [c.code] });
      for (const s of visible) branches.push({ sql: "e.context_code = ? AND e.workflow_state = 'active'", params: [contextCode('CourseSection', s)] });
    }
    const filter: SqlPart =
      window.kind === 'undated'
        ? { sql: 'e.start_at IS NULL', params: [] }
        : window.kind === 'range'
          ? { sql: 'e.start_at IS NOT NULL AND e.start_at <= ? AND COALESCE(e.end_at, e.start_at) >= ?', params: [sqlDate(window.to), sqlDate(window.from)] }
          : { sql: '1 = 1', params: [] };
    const seek = window.kind === 'undated' && w.after?.[0] === null ? { sql: 'e.id > ?', params: [w.after[1]] } : null;
    // Each branch one range of its (context, state, start_at, id) index, merged into the page.
    const orderBy = window.kind === 'undated' ? 'e.id ASC' : undefined;
    return keysetPage(this.ctx.ds, { entity: CalendarEvent, alias: 'e', where: filter.sql, params: filter.params, order: EVENT_ORDER, keyOf: eventKey, ranges: branches, seek, orderBy }, w);
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
    const children = await applyFields(this.ctx, row, context, fields);
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
    const children = await applyFields(this.ctx, row, context, fields);
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

  private async replaceChildren(em: EntityManager, parent: CalendarEvent, children: ChildRow[]): Promise<void> {
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
