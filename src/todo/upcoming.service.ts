import { In } from 'typeorm';
import { Enrollment } from '../courses/enrollment.entity';
import { CourseService } from '../courses/course.service';
import type { RequestContext } from '../request/context';
import { DAY, isoAt, plannerItems } from './todo-reads';

/** One entry of the upcoming events list, in the order Canvas sorts them (start, then title). */
export interface UpcomingEvent {
  /** `assignment` here; a calendar event source adds `event`. */
  type: string;
  /** Canvas's event id: `assignment_<id>` for an assignment, the event's id for a calendar event. */
  id: string;
  title: string;
  startAt: Date | null;
  endAt: Date | null;
  courseId: number | null;
  contextCode: string;
  contextName: string | null;
  htmlUrl: string | null;
  assignmentId: number | null;
  /** A source's own object id (a calendar event), for its own fields. */
  sourceId: number | null;
}

/**
 * A kind of upcoming event: given the window and the viewer's context codes, its entries. Assignments
 * are built in; calendar events register their source here from src/app/plugins.ts,
 * so this area never imports theirs.
 */
export type UpcomingEventSource = (ctx: RequestContext, window: { start: Date; end: Date; contextCodes: string[] }) => Promise<UpcomingEvent[]>;
const sources: UpcomingEventSource[] = [];
export function registerUpcomingEventSource(source: UpcomingEventSource): void {
  sources.push(source);
}

/** Canvas's User#upcoming_events: a week ahead, at most 20. */
const AHEAD = 7 * DAY;
const LIMIT = 20;

export class UpcomingEventsService {
  constructor(private readonly ctx: RequestContext) {}

  /** Codes of the viewer's current courses (any role), the contexts Canvas's upcoming list covers. */
  private async contextCodes(): Promise<string[]> {
    const viewer = this.ctx.authz.requireViewer();
    const mine = await this.ctx.loaders.manyBy(Enrollment, 'userId', { workflowState: In(['active']) }).load(viewer.id);
    const courses = await this.ctx.use(CourseService).loadMany([...new Set(mine.map((e) => e.courseId))]);
    // A course the viewer may not read yet (a student's unpublished one) is left out, not refused: the
    // planner refuses a whole request naming one.
    const readable: number[] = [];
    for (const c of courses) if (c && (await this.ctx.authz.canCourse(c, 'read'))) readable.push(c.id);
    return readable.map((id) => `course_${id}`);
  }

  async list(): Promise<UpcomingEvent[]> {
    const now = Date.now();
    const window = { start: new Date(now), end: new Date(now + AHEAD), contextCodes: await this.contextCodes() };
    const events: UpcomingEvent[] = [];
    if (window.contextCodes.length) events.push(...(await this.assignments(window)));
    for (const source of sources) events.push(...(await source(this.ctx, window)));
    const t = (e: UpcomingEvent) => (e.startAt ? e.startAt.getTime() : Number.MAX_SAFE_INTEGER);
    return events.sort((a, b) => t(a) - t(b) || a.title.localeCompare(b.title)).slice(0, LIMIT);
  }

  /** Published assignments (graded quizzes and discussions too) due in the window, as the planner lists them. */
  private async assignments(window: { start: Date; end: Date; contextCodes: string[] }): Promise<UpcomingEvent[]> {
    const items = await plannerItems(this.ctx, { startDate: isoAt(window.start.getTime()), endDate: isoAt(window.end.getTime()), contextCodes: window.contextCodes });
    const seen = new Set<number>();
    const out: UpcomingEvent[] = [];
    for (const item of items) {
      const assignmentId = item.plannable.assignmentId;
      if (assignmentId == null || item.courseId == null || seen.has(assignmentId)) continue;
      const due = item.plannable.dueAt;
      if (due && due.getTime() < window.start.getTime()) continue;
      seen.add(assignmentId);
      out.push({
        type: 'assignment',
        id: `assignment_${assignmentId}`,
        title: item.plannable.title,
        startAt: due,
        endAt: due,
        courseId: item.courseId,
        contextCode: `course_${item.courseId}`,
        contextName: item.contextName,
        htmlUrl: `${this.ctx.baseUrl}/courses/${item.courseId}/assignments/${assignmentId}`,
        assignmentId,
        sourceId: null,
      });
    }
    return out;
  }
}
