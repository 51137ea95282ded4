import { Brackets } from 'typeorm';
import { Assignment } from '../content/assignments/assignment.entity';
import { ContentAccess } from '../content/content-access';
import { Course } from '../courses/course.entity';
import { NotFoundError } from '../common/errors';
import { ConnectionResult, pageWindow, toConnection } from '../common/relay';
import type { RequestContext } from '../request/context';
import { CalendarAccess, unauthorized } from './calendar-event.access';
import type { CalendarListArgs } from './calendar-event.service';
import { calendarWindow } from './calendar-window';

const ASSIGNMENT_ID = /^assignment_(\d{1,15})$/;

/**
 * Assignments on the calendar (Canvas's GET /calendar_events?type=assignment): the assignments of the
 * listed courses the viewer may read, placed on their due date. Students see published ones; those who
 * see unpublished content see those too. Group and user calendars hold no assignments.
 */
export class AssignmentEventService {
  constructor(private readonly ctx: RequestContext) {}

  async list(args: CalendarListArgs): Promise<ConnectionResult<Assignment>> {
    this.ctx.authz.requireViewer();
    const w = pageWindow(args, 10, 100);
    const window = calendarWindow(args);
    const published: number[] = [];
    const everything: number[] = [];
    for (const c of await this.ctx.use(CalendarAccess).readableContexts(args.contextCodes ?? [], 'Course')) {
      ((await this.ctx.use(ContentAccess).seesUnpublished(c.course!)) ? everything : published).push(c.id);
    }
    if (!published.length && !everything.length) return toConnection([], 0, w);
    const qb = this.ctx.ds
      .getRepository(Assignment)
      .createQueryBuilder('a')
      .where(
        new Brackets((b) => {
          if (published.length) b.orWhere("(a.course_id IN (:...published) AND a.workflow_state = 'published')", { published });
          if (everything.length) b.orWhere("(a.course_id IN (:...everything) AND a.workflow_state IN ('published', 'unpublished'))", { everything });
        }),
      );
    if (window.kind === 'undated') qb.andWhere('a.due_at IS NULL');
    else if (window.kind === 'range') qb.andWhere('a.due_at IS NOT NULL AND a.due_at >= :from AND a.due_at <= :to', { from: window.from, to: window.to });
    const [rows, total] = await qb.orderBy('a.due_at', 'ASC').addOrderBy('a.id', 'ASC').skip(w.offset).take(w.limit).getManyAndCount();
    return toConnection(rows, total, w);
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
