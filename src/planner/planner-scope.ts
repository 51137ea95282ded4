import { ForbiddenError, RequestError } from '../common/errors';
import { parseCanvasDate } from '../common/dates';
import { Course } from '../courses/course.entity';
import { Enrollment } from '../courses/enrollment.entity';
import { leanRows, selectColumns } from '../db/lean-read';
import type { RequestContext } from '../request/context';
import { Group } from '../groups/group.entity';
import type { User } from '../users/user.entity';
import { UserService } from '../users/user.service';
import { CourseService } from '../courses/course.service';
import { GroupPolicy } from '../groups/group-policy';

/** `course_1`, `group_2`, `user_3` (and `account_4`, accepted and ignored): Canvas's context codes. */
export interface ContextCodes {
  given: boolean;
  courses: Set<number>;
  groups: Set<number>;
  users: Set<number>;
}

export function parseContextCodes(codes: readonly string[] | null | undefined): ContextCodes {
  const out: ContextCodes = { given: Boolean(codes && codes.length), courses: new Set(), groups: new Set(), users: new Set() };
  for (const raw of codes ?? []) {
    // Unparseable codes are dropped, as Canvas's parse_asset_string_list drops them.
    const m = /^(course|group|user|account)_(\d{1,15})$/.exec(String(raw).trim());
    if (!m) continue;
    const id = Number(m[2]);
    if (m[1] === 'course') out.courses.add(id);
    else if (m[1] === 'group') out.groups.add(id);
    else if (m[1] === 'user') out.users.add(id);
  }
  return out;
}

const DAY = 86_400_000;
const startOfDay = (ms: number) => new Date(Math.floor(ms / DAY) * DAY);
const yearsFrom = (d: Date, years: number) => new Date(Date.UTC(d.getUTCFullYear() + years, d.getUTCMonth(), d.getUTCDate()));

/** Canvas's 400 for a date it cannot read: `{"errors":"Invalid date or datetime for start_date"}`. */
export function invalidDate(name: string): RequestError {
  const message = `Invalid date or datetime for ${name}`;
  return new RequestError(message, 400, { errors: message });
}

/** A planner date parameter: `YYYY-MM-DD` (start of that day, UTC) or an ISO 8601 date-time; blank is absent. */
export function plannerDate(name: string, raw: string | null | undefined): Date | null {
  if (raw == null || raw.trim() === '') return null;
  const d = parseCanvasDate(raw);
  if (!d) throw invalidDate(name);
  return d;
}

/**
 * The planner items window: neither date → start of the day two weeks ago .. start of the day two
 * weeks ahead; only one → the other ten years away (start of day); a date-only end_date is the start
 * of that day, as Canvas reads it.
 */
export function itemsWindow(startRaw?: string | null, endRaw?: string | null, now = Date.now()): { start: Date; end: Date } {
  const start = plannerDate('start_date', startRaw);
  const end = plannerDate('end_date', endRaw);
  if (!start && !end) return { start: startOfDay(now - 14 * DAY), end: startOfDay(now + 14 * DAY) };
  const today = startOfDay(now);
  return { start: start ?? yearsFrom(today, -10), end: end ?? yearsFrom(today, 10) };
}

/** The planner notes list: inclusive bounds; a date-only end_date runs to the end of that day. */
export function notesWindow(startRaw?: string | null, endRaw?: string | null): { start: Date | null; end: Date | null } {
  const start = plannerDate('start_date', startRaw);
  let end = plannerDate('end_date', endRaw);
  if (end && endRaw && /^\s*\d{4}-\d{2}-\d{2}\s*$/.test(endRaw)) end = new Date(end.getTime() + DAY - 1);
  return { start, end };
}

/** Whose planner is read, and which of their contexts it covers. */
export interface PlannerScope {
  subject: User;
  /** The viewer reads a student's planner as their observer. */
  observing: boolean;
  courses: Map<number, Course>;
  groups: Map<number, Group>;
  /** Notes without a course are included (the user's own context is in scope); never for an observer. */
  userNotes: boolean;
}

export interface ScopeArgs {
  userId?: string | null;
  observedUserId?: string | null;
  contextCodes?: string[] | null;
  includeConcluded?: boolean;
}

/**
 * Resolves the subject and contexts of a planner request as Canvas's PlannerController does: the
 * caller's own planner, a linked observer's view of a student (the user_id path, or observed_user_id
 * with context_codes[] naming at least one course, and only courses, where the caller observes that
 * student), and context_codes[] narrowing the user's contexts — a requested context outside them must
 * be readable, or the whole request is refused.
 *
 * This is the one place that decides whose planner a caller may read (REST and GraphQL both come
 * here), so its rules are strict: reading another user's planner needs an active observer enrollment
 * for that user, whatever codes are sent; and an observer link is course-scoped, so an observer never
 * gets the student's notes without a course (those are the student's private reminders).
 */
export async function resolveScope(ctx: RequestContext, args: ScopeArgs): Promise<PlannerScope> {
  const viewer = ctx.authz.requireViewer();
  const codes = parseContextCodes(args.contextCodes);
  let subject: User = viewer;
  let observed: Set<number> | null = null;
  let observing = false;
  if (args.userId != null && args.userId !== '') {
    subject = await ctx.use(UserService).lookup(args.userId);
    if (subject.id !== viewer.id) {
      observed = await observedCourses(ctx, viewer.id, subject.id);
      if (!observed.size) throw new ForbiddenError();
      observing = true;
    }
  } else if (args.observedUserId != null && args.observedUserId !== '') {
    if (!codes.given) throw new ForbiddenError();
    subject = await ctx.use(UserService).lookup(args.observedUserId);
    if (subject.id !== viewer.id) {
      observed = await observedCourses(ctx, viewer.id, subject.id);
      // Checked on the observer link itself, not on the codes: codes naming no course (user_, group_,
      // account_ or unparseable ones) must not turn "every listed course is observed" vacuously true.
      if (!observed.size || !codes.courses.size || [...codes.courses].some((id) => !observed!.has(id))) throw new ForbiddenError();
      observing = true;
    } else {
      // observed_user_id naming oneself is one's own planner, notes without a course included.
      codes.users.add(subject.id);
    }
  }

  const own = await subjectContexts(ctx, subject.id, Boolean(args.includeConcluded), observed);
  if (!codes.given) return { subject, observing, courses: own.courses, groups: own.groups, userNotes: !observing };

  const courses = new Map<number, Course>();
  const extraCourses: number[] = [];
  for (const id of codes.courses) {
    const c = own.courses.get(id);
    if (c) courses.set(id, c);
    else extraCourses.push(id);
  }
  if (extraCourses.length) {
    const found = await ctx.use(CourseService).loadMany(extraCourses);
    for (const [i, id] of extraCourses.entries()) {
      const c = found[i];
      if (!c || c.workflowState === 'deleted') throw new ForbiddenError();
      // An observer may name any course where they observe the student (a concluded one, say).
      const ok = observing ? observed!.has(id) : await ctx.authz.canCourse(c, 'read');
      if (!ok) throw new ForbiddenError();
      courses.set(id, c);
    }
  }
  const groups = new Map<number, Group>();
  const extraGroups: number[] = [];
  for (const id of codes.groups) {
    const g = own.groups.get(id);
    if (g) groups.set(id, g);
    else extraGroups.push(id);
  }
  if (extraGroups.length) {
    if (observing) throw new ForbiddenError();
    const found = await ctx.loaders.byId(Group).loadMany(extraGroups);
    for (const g of found) {
      if (!g || g instanceof Error || g.workflowState === 'deleted') throw new ForbiddenError();
      if (!(await ctx.use(GroupPolicy).rights(g)).read) throw new ForbiddenError();
      groups.set(g.id, g);
    }
  }
  if ([...codes.users].some((id) => id !== subject.id)) throw new ForbiddenError();
  // An observer asking for user_<student> still gets course items only.
  return { subject, observing, courses, groups, userNotes: !observing && codes.users.has(subject.id) };
}

/** Courses (live) where `observerId` actively observes `studentId`. */
export async function observedCourses(ctx: RequestContext, observerId: number, studentId: number): Promise<Set<number>> {
  const rows = await ctx.ds.getRepository(Enrollment).find({
    select: { courseId: true },
    where: { userId: observerId, associatedUserId: studentId, type: 'ObserverEnrollment', workflowState: 'active' },
  });
  return new Set(rows.map((r) => r.courseId));
}

/**
 * The subject's to-do contexts: courses where they are an active student (published and not
 * concluded, unless concluded ones are asked for), their current groups (course groups of those
 * courses, account groups unless an observer is looking) — narrowed to `only` when given.
 */
async function subjectContexts(
  ctx: RequestContext,
  userId: number,
  includeConcluded: boolean,
  only: Set<number> | null,
): Promise<{ courses: Map<number, Course>; groups: Map<number, Group> }> {
  // Two plain statements mapped by leanRows (cheaper than the query builder on every planner page): the
  // courses behind the student enrollments and the groups behind the accepted memberships, each found
  // through a subquery instead of reading the enrollment and membership rows first.
  const ds = ctx.ds;
  const [courseRows, groupRows] = await Promise.all([
    leanRows(
      ds,
      Course,
      `SELECT ${selectColumns(ds, Course, 'c')} FROM courses c WHERE c.id IN (SELECT e.course_id FROM enrollments e WHERE e.user_id = ? AND e.type = 'StudentEnrollment' AND e.workflow_state IN (${includeConcluded ? "'active', 'completed'" : "'active'"}))`,
      [userId],
    ),
    leanRows(
      ds,
      Group,
      `SELECT ${selectColumns(ds, Group, 'g')} FROM ${ds.driver.escape('groups')} g WHERE g.id IN (SELECT m.group_id FROM group_memberships m WHERE m.user_id = ? AND m.workflow_state = 'accepted') AND g.workflow_state = 'available'`,
      [userId],
    ),
  ]);
  const courses = new Map<number, Course>();
  const now = new Date();
  // Course and Group are plain entities: leanRows always maps them.
  for (const c of courseRows!) {
    if (only && !only.has(c.id)) continue;
    ctx.loaders.byId(Course).prime(c.id, c);
    if (c.workflowState === 'deleted' || c.workflowState === 'unpublished') continue;
    // A completed enrollment is read only when concluded courses are asked for, so it needs no test here.
    if (!includeConcluded && c.isConcluded(now)) continue;
    courses.set(c.id, c);
  }
  const groups = new Map<number, Group>();
  for (const g of groupRows!) {
    if (g.contextType === 'Course' ? courses.has(g.contextId) : !only) groups.set(g.id, g);
  }
  return { courses, groups };
}
