import { ForbiddenError, NotFoundError, ValidationError } from '../common/errors';
import { Course } from '../courses/course.entity';
import { CourseSection } from '../courses/section.entity';
import { Group } from '../groups/group.entity';
import { GroupPolicy } from '../groups/group-policy';
import type { RequestContext } from '../request/context';
import { User } from '../users/user.entity';
import type { CalendarContextType, CalendarEvent } from './calendar-event.entity';

/** A calendar's owner, loaded: a course, a group, a user, or a section of a course (child events). */
export interface CalendarContext {
  type: CalendarContextType;
  id: number;
  code: string;
  name: string;
  /** The course of a course or section context; a group's course when it has one. */
  course: Course | null;
  group: Group | null;
}

const PREFIX: Record<CalendarContextType, string> = { Course: 'course', Group: 'group', User: 'user', CourseSection: 'course_section' };
export const contextCode = (type: CalendarContextType, id: number) => `${PREFIX[type]}_${id}`;

/** `course_1`, `group_2`, `user_3`, `course_section_4`; null for anything else. */
export function parseCode(raw: string): { type: CalendarContextType; id: number } | null {
  const m = /^(course_section|course|group|user)_(\d{1,15})$/.exec(raw.trim());
  if (!m) return null;
  const type = ({ course: 'Course', group: 'Group', user: 'User', course_section: 'CourseSection' } as const)[m[1] as 'course'];
  return { type, id: Number(m[2]) };
}

/** Canvas answers an action the caller may not take with 401 "unauthorized", not 403. */
export const unauthorized = () => new ForbiddenError(undefined, 401);

/**
 * Who may see and change which calendar, as Canvas's CalendarEvent policy: course events are read by
 * the course's readers (students once it is published) and managed with manage_calendar (teachers, TAs,
 * designers, admins); group members read and manage their group's events, as do the admins of its
 * course; a user's own events are theirs alone; a section's child events are managed by the course's
 * calendar managers and read by them and the section's members.
 */
export class CalendarAccess {
  private readonly contexts = new Map<string, Promise<CalendarContext | null>>();
  private readonly rights = new Map<string, Promise<boolean>>();

  constructor(private readonly ctx: RequestContext) {}

  /**
   * The contexts of a list's codes the viewer may read (the first 100 codes; section codes, codes of
   * other kinds than `only`, and codes the viewer cannot read are dropped, as Canvas drops them).
   */
  async readableContexts(codes: readonly string[], only?: CalendarContextType): Promise<CalendarContext[]> {
    const out: CalendarContext[] = [];
    for (const raw of codes.slice(0, 100)) {
      const parsed = parseCode(String(raw));
      if (!parsed || parsed.type === 'CourseSection' || (only && parsed.type !== only)) continue;
      const c = await this.context(parsed.type, parsed.id);
      if (c && (await this.can(c, 'read'))) out.push(c);
    }
    return out;
  }

  /** The live context of a code, or null (unknown or deleted). Cached for the request. */
  context(type: CalendarContextType, id: number): Promise<CalendarContext | null> {
    const code = contextCode(type, id);
    let p = this.contexts.get(code);
    if (!p) {
      p = this.load(type, id, code);
      this.contexts.set(code, p);
    }
    return p;
  }

  private async load(type: CalendarContextType, id: number, code: string): Promise<CalendarContext | null> {
    const L = this.ctx.loaders;
    switch (type) {
      case 'Course': {
        const c = await L.byId(Course).load(id);
        return c && c.workflowState !== 'deleted' ? { type, id, code, name: c.name, course: c, group: null } : null;
      }
      case 'Group': {
        const g = await L.byId(Group).load(id);
        if (!g || g.workflowState === 'deleted') return null;
        const course = g.contextType === 'Course' ? await L.byId(Course).load(g.contextId) : null;
        return { type, id, code, name: g.name, course, group: g };
      }
      case 'User': {
        const u = await L.byId(User).load(id);
        return u ? { type, id, code, name: u.name, course: null, group: null } : null;
      }
      default: {
        const s = await L.byId(CourseSection).load(id);
        const c = s ? await L.byId(Course).load(s.courseId) : null;
        return s && c && c.workflowState !== 'deleted' ? { type, id, code, name: s.name, course: c, group: null } : null;
      }
    }
  }

  /** A context named by a code in a write: malformed → 400, unknown → 404. */
  async contextOfCode(raw: string | null | undefined, attribute = 'context_code'): Promise<CalendarContext> {
    const parsed = raw ? parseCode(raw) : null;
    if (!parsed) throw ValidationError.of(attribute, raw ? 'invalid' : 'blank', `${attribute} must name a course, group, user or section (course_1, group_2, user_3, course_section_4)`);
    const c = await this.context(parsed.type, parsed.id);
    if (!c) throw new NotFoundError();
    return c;
  }

  can(c: CalendarContext, action: 'read' | 'manage'): Promise<boolean> {
    const key = `${c.code}:${action}`;
    let p = this.rights.get(key);
    if (!p) {
      p = this.decide(c, action);
      this.rights.set(key, p);
    }
    return p;
  }

  private async decide(c: CalendarContext, action: 'read' | 'manage'): Promise<boolean> {
    const viewer = this.ctx.viewer;
    if (!viewer) return false;
    const authz = this.ctx.authz;
    switch (c.type) {
      case 'User':
        return c.id === viewer.id;
      case 'Course':
        return authz.canCourse(c.course!, action === 'read' ? 'read' : 'manage_calendar');
      case 'Group': {
        const r = await this.ctx.use(GroupPolicy).rights(c.group!);
        // Canvas grants a group's members manage_calendar on it.
        return action === 'read' ? r.read : r.member || r.contextAdmin;
      }
      default: {
        const course = c.course!;
        if (await authz.canCourse(course, 'manage_calendar')) return true;
        if (action === 'manage' || !(await authz.canCourse(course, 'read'))) return false;
        const roles = await authz.courseRoles(course);
        return roles.enrollments.some((e) => e.workflowState === 'active' && e.courseSectionId === c.id);
      }
    }
  }

  /** The context of a stored event, or null when it is gone. */
  contextOf(e: Pick<CalendarEvent, 'contextType' | 'contextId'>): Promise<CalendarContext | null> {
    return this.context(e.contextType, e.contextId);
  }

  /** Whether the viewer may read (or manage) one stored, live event. */
  async canEvent(e: CalendarEvent, action: 'read' | 'manage'): Promise<boolean> {
    if (e.workflowState === 'deleted') return false;
    const c = await this.contextOf(e);
    return c != null && this.can(c, action);
  }

  /** Sections of a course whose child events the viewer sees: all for calendar managers, else their own. */
  async visibleSections(course: Course): Promise<number[] | 'all'> {
    if (await this.ctx.authz.canCourse(course, 'manage_calendar')) return 'all';
    if (!(await this.ctx.authz.canCourse(course, 'read'))) return [];
    const roles = await this.ctx.authz.courseRoles(course);
    return [...new Set(roles.enrollments.filter((e) => e.workflowState === 'active').map((e) => e.courseSectionId))];
  }
}
