import { Assignment } from '../content/assignments/assignment.entity';
import { ContentAccess } from '../content/content-access';
import { Course } from '../courses/course.entity';
import { NotFoundError } from '../common/errors';
import { keyWindow, SortKey } from '../common/keyset';
import { dateKey, sqlDate } from '../common/sql-dates';
import { ConnectionResult } from '../common/relay';
import { keysetPage } from '../db/keyset-page';
import type { SqlPart } from '../db/union-pages';
import type { RequestContext } from '../request/context';
import { CalendarAccess, unauthorized } from './calendar-event.access';
import type { CalendarListArgs } from './calendar-event.service';
import { calendarWindow } from './calendar-window';

const ASSIGNMENT_ID = /^assignment_(\d{1,15})$/;

/** The list's order, as Canvas's (due_at, id): undated assignments (NULL) first; ties by id. */
const ASSIGNMENT_ORDER: readonly SortKey[] = [
  { expr: 'a.due_at', dir: 'ASC', nullable: true },
  { expr: 'a.id', dir: 'ASC' },
];
const assignmentKey = (a: Assignment) => [dateKey(a.dueAt), a.id];

/**
 * Assignments on the calendar (Canvas's GET /calendar_events?type=assignment): the assignments of the
 * listed courses the viewer may read, placed on their due date. Students see published ones; those who
 * see unpublished content see those too. Group and user calendars hold no assignments.
 */
export class AssignmentEventService {
  constructor(private readonly ctx: RequestContext) {}

  async list(args: CalendarListArgs): Promise<ConnectionResult<Assignment>> {
    this.ctx.authz.requireViewer();
    const w = keyWindow(args, ASSIGNMENT_ORDER.length, 10, 100);
    const window = calendarWindow(args);
    // One branch per course and state: each is one range of the (course, state, due_at, id) index.
    const branches: SqlPart[] = [];
    const seen = new Set<number>();
    for (const c of await this.ctx.use(CalendarAccess).readableContexts(args.contextCodes ?? [], 'Course')) {
      if (seen.has(c.id)) continue;
      seen.add(c.id);
      const states = (await this.ctx.use(ContentAccess).seesUnpublished(c.course!)) ? ['published', 'unpublished'] : ['published'];
      for (const state of states) branches.push({ sql: 'a.course_id = ? AND a.workflow_state = ?', params: [c.id, state] });
    }
    const filter: SqlPart =
      window.kind === 'undated'
        ? { sql: 'a.due_at IS NULL', params: [] }
        : window.kind === 'range'
          ? { sql: 'a.due_at IS NOT NULL AND a.due_at >= ? AND a.due_at <= ?', params: [sqlDate(window.from), sqlDate(window.to)] }
          : { sql: '1 = 1', params: [] };
    const seek = window.kind === 'undated' && w.after?.[0] === null ? { sql: 'a.id > ?', params: [w.after[1]] } : null;
    const orderBy = window.kind === 'undated' ? 'a.id ASC' : undefined;
    return keysetPage(this.ctx.ds, { entity: Assignment, alias: 'a', where: filter.sql, params: filter.params, order: ASSIGNMENT_ORDER, keyOf: assignmentKey, ranges: branches, seek, orderBy }, w);
  }

  /** `assignment_<id>`: the assignment, when the viewer may read its course and see it; 404 otherwise. */
  async show(raw: string): Promise<Assignment> {
    this.ctx.authz.requireViewer();
    const m = ASSIGNMENT_ID.exec(String(raw).trim());
    const a = m ? await this.ctx.loaders.byId(Assignment).load(Number(m[1])) : null;
    if (!a || a.workflowState === 'deleted') throw new NotFoundError();
    const c = await this.ctx.use(CalendarAccess).context('Course', a.courseId);
    if (!c?.course) throw new NotFoundError();
    if (!(await this.ctx.use(CalendarAccess).can(c, 'read'))) throw unauthorized();
    if (!a.published && !(await this.ctx.use(ContentAccess).seesUnpublished(c.course))) throw new NotFoundError();
    return a;
  }

  /** The course's name, for context_name (batched: a page of events costs one statement). */
  async courseName(a: Assignment): Promise<string | null> {
    return (await this.ctx.loaders.byId(Course).load(a.courseId))?.name ?? null;
  }
}

/** Canvas marks an assignment due at 23:59 as due all day, on its due date. */
export const dueAllDay = (a: Assignment): boolean => a.dueAt != null && a.dueAt.getUTCHours() === 23 && a.dueAt.getUTCMinutes() === 59;
