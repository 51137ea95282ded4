import { In } from 'typeorm';
import { ConnectionResult, pageWindow } from '../common/relay';
import { offsetConnection } from '../common/connection';
import type { PlannerItemView } from '../planner/planner-item-view';
import type { Course } from '../courses/course.entity';
import { CourseService } from '../courses/course.service';
import { Enrollment } from '../courses/enrollment.entity';
import { EnrollmentService } from '../courses/enrollment.service';
import { AssignmentService } from '../content/assignments/assignment.service';
import type { RequestContext } from '../request/context';
import { orHidden } from '../common/visible';
import { readDate } from '../planner/planner-query';
import { assignmentOf, DAY, isoAt, plannerItems } from './todo-reads';

/** One to-do entry: something to turn in (submitting) or to grade (grading). */
export interface TodoEntry {
  type: 'submitting' | 'grading';
  courseId: number;
  /** The assignment behind the entry; null for an ungraded quiz. */
  assignmentId: number | null;
  quizId: number | null;
  dueAt: Date | null;
  /** For grading: the submissions waiting for a grade. */
  needsGradingCount: number | null;
}

/** Submission types that ask nothing to be turned in (Canvas's expecting_submission leaves them out). */
const NOTHING_TO_SUBMIT = new Set(['none', 'on_paper', 'not_graded', '']);
/** Canvas's to-do window for work to turn in: due from four weeks ago to a week ahead. */
const SUBMITTING_BACK = 28 * DAY;
const SUBMITTING_AHEAD = 7 * DAY;

export interface TodoArgs {
  courseId?: string | null;
  includeUngradedQuizzes?: boolean | null;
}

/**
 * Canvas's to-do list (users#todo_items, courses#todo_items) and its count. What to turn in is the
 * planner's incomplete assignment items in the to-do window (so marking an item complete on the planner
 * clears it here too); what to grade is the published assignments with submissions needing a grade in
 * courses the viewer grades (section-limited graders: their sections' students).
 */
export class TodoService {
  constructor(private readonly ctx: RequestContext) {}

  private async course(raw: string | null | undefined): Promise<Course | null> {
    return raw == null || raw === '' ? null : this.ctx.use(CourseService).find(raw, 'read');
  }

  /**
   * What to turn in, in the to-do order. With `need`, only the planner pages that decide the first
   * `need` entries are read: pages are read until `need` entries are found and the planner (in date
   * order) has moved past the date of the last of them, so no entry read later could sort before it.
   */
  async submitting(args: TodoArgs, need?: number): Promise<TodoEntry[]> {
    const viewer = this.ctx.authz.requireViewer();
    const course = await this.course(args.courseId);
    // Only a student of the course has work to turn in there (the planner would list a teacher's too).
    if (course && !(await this.ctx.use(EnrollmentService).isActiveStudent(course, viewer.id))) return [];
    const now = Date.now();
    const enough = async (items: PlannerItemView[]) => {
      if (need == null) return false;
      const entries = (await this.entries(items, args)).sort(todoOrder);
      const last = items[items.length - 1]?.plannableDate?.getTime();
      return entries.length >= need && last != null && last > dueKey(entries[need - 1]);
    };
    const items = await plannerItems(
      this.ctx,
      { filter: 'incomplete_items', startDate: isoAt(now - SUBMITTING_BACK), endDate: isoAt(now + SUBMITTING_AHEAD), contextCodes: course ? [`course_${course.id}`] : null },
      enough,
    );
    return this.entries(items, args);
  }

  private async entries(items: PlannerItemView[], args: TodoArgs): Promise<TodoEntry[]> {
    // Looked up side by side, so the assignment loads batch into one statement per page of items.
    const entries = await Promise.all(
      items.map(async (item): Promise<TodoEntry | null> => {
        if (item.courseId == null) return null;
        const assignmentId = assignmentOf(item);
        if (assignmentId == null) {
          return args.includeUngradedQuizzes && item.plannableType === 'quiz'
            ? { type: 'submitting', courseId: item.courseId, assignmentId: null, quizId: item.plannableId, dueAt: item.plannable.dueAt, needsGradingCount: null }
            : null;
        }
        if (item.submissions?.submitted || item.submissions?.excused) return null;
        const found = await orHidden(this.ctx.use(AssignmentService).find(item.courseId, assignmentId));
        if (!found || found.assignment.types.every((t) => NOTHING_TO_SUBMIT.has(t))) return null;
        return { type: 'submitting', courseId: item.courseId, assignmentId, quizId: null, dueAt: found.assignment.dueAt, needsGradingCount: null };
      }),
    );
    return entries.filter((e): e is TodoEntry => e != null);
  }

  /** Courses the viewer grades (active teacher or TA enrollments with manage_grades), with their section limits. */
  private async gradedCourses(only: Course | null): Promise<{ course: Course; sections: number[] | null }[]> {
    const viewer = this.ctx.authz.requireViewer();
    let courses: Course[];
    if (only) courses = [only];
    else {
      const mine = await this.ctx.loaders.manyBy(Enrollment, 'userId', { workflowState: 'active', type: In(['TeacherEnrollment', 'TaEnrollment']) }).load(viewer.id);
      const found = await this.ctx.use(CourseService).loadMany([...new Set(mine.map((e) => e.courseId))]);
      courses = found.filter((c): c is Course => c != null && c.workflowState !== 'deleted');
    }
    const out: { course: Course; sections: number[] | null }[] = [];
    for (const course of courses) {
      if (!(await this.ctx.authz.canCourse(course, 'manage_grades'))) continue;
      out.push({ course, sections: await this.ctx.authz.rosterSections(course) });
    }
    return out;
  }

  /** Submissions needing a grade, as the planner's submission status has it, from the course's active students. */
  private needsGrading(graded: { course: Course; sections: number[] | null }[]): string {
    const n = (x: number) => String(Math.trunc(Number(x)));
    const where = graded
      .map(({ course, sections }) => (sections ? `(s.course_id = ${n(course.id)} AND e.course_section_id IN (${sections.map(n).join(', ') || 'NULL'}))` : `s.course_id = ${n(course.id)}`))
      .join(' OR ');
    return `FROM submissions s
       JOIN enrollments e ON e.user_id = s.user_id AND e.course_id = s.course_id AND e.type = 'StudentEnrollment' AND e.workflow_state = 'active'
       WHERE (${where}) AND s.excused = ? AND s.submitted_at IS NOT NULL AND s.workflow_state <> 'unsubmitted'
         AND (s.workflow_state IN ('submitted', 'pending_review') OR s.grade_matches_current_submission = ?)`;
  }

  /**
   * What to grade, in the to-do order (by due date, undated last, then id). With `need`, the first
   * `need` only: the published assignments of the graded courses are walked in that order and kept
   * while one submission needs a grade (an EXISTS), then the page's submissions are counted.
   */
  async grading(args: TodoArgs, need?: number): Promise<TodoEntry[]> {
    const graded = await this.gradedCourses(await this.course(args.courseId));
    if (!graded.length) return [];
    const n = (x: number) => String(Math.trunc(Number(x)));
    const cids = graded.map((g) => n(g.course.id)).join(', ');
    const limit = need == null ? '' : ` LIMIT ${Math.trunc(need)}`;
    const page: { id: number | string; course_id: number | string; due_at: unknown }[] = await this.ctx.ds.query(
      `SELECT a.id AS id, a.course_id AS course_id, a.due_at AS due_at FROM assignments a
       WHERE a.course_id IN (${cids}) AND a.workflow_state = 'published' AND EXISTS (SELECT 1 ${this.needsGrading(graded)} AND s.assignment_id = a.id)
       ORDER BY CASE WHEN a.due_at IS NULL THEN 1 ELSE 0 END, a.due_at, a.id${limit}`,
      [false, false],
    );
    if (!page.length) return [];
    const ids = page.map((r) => n(Number(r.id))).join(', ');
    const counts: { assignment_id: number | string; n: number | string }[] = await this.ctx.ds.query(
      `SELECT s.assignment_id AS assignment_id, COUNT(DISTINCT s.id) AS n ${this.needsGrading(graded)} AND s.assignment_id IN (${ids}) GROUP BY s.assignment_id`,
      [false, false],
    );
    const countOf = new Map(counts.map((c) => [Number(c.assignment_id), Number(c.n)]));
    return page.map((r) => ({
      type: 'grading' as const,
      courseId: Number(r.course_id),
      assignmentId: Number(r.id),
      quizId: null,
      dueAt: r.due_at == null ? null : readDate(r.due_at),
      needsGradingCount: countOf.get(Number(r.id)) ?? 0,
    }));
  }

  /** Grading first, then what to turn in, each by due date (undated last) and id, as Canvas merges them. */
  async all(args: TodoArgs, need?: number): Promise<TodoEntry[]> {
    const [grading, submitting] = [await this.grading(args, need), await this.submitting(args, need)];
    return [...grading, ...submitting].sort(todoOrder);
  }

  /**
   * A page of the merged list: each source reads only the first offset + first + 1 entries (the
   * most the page can take from it), the total is counted only when selected.
   */
  async list(args: TodoArgs & { first?: number | null; after?: string | null }): Promise<ConnectionResult<TodoEntry>> {
    const w = pageWindow(args);
    const need = w.offset + w.limit + 1;
    const rows = (await this.all(args, need)).slice(w.offset, need);
    return offsetConnection(rows, w, async () => (await this.all(args)).length);
  }

  async count(args: Pick<TodoArgs, 'includeUngradedQuizzes'>): Promise<{ needsGradingCount: number; assignmentsNeedingSubmitting: number }> {
    const graded = await this.gradedCourses(null);
    // One sum in SQL, not a row per assignment to add up here.
    const [row] = graded.length ? await this.ctx.ds.query(`SELECT COUNT(DISTINCT s.id) AS n ${this.needsGrading(graded)} AND EXISTS (SELECT 1 FROM assignments a WHERE a.id = s.assignment_id AND a.workflow_state = 'published')`, [false, false]) : [];
    const submitting = await this.submitting(args);
    return { needsGradingCount: Number(row?.n ?? 0), assignmentsNeedingSubmitting: submitting.length };
  }
}

/** An entry's due date as a sort key: undated last. */
const dueKey = (e: TodoEntry) => e.dueAt?.getTime() ?? Number.MAX_SAFE_INTEGER;

/** The to-do order: due date (undated last), id, kind. */
function todoOrder(a: TodoEntry, b: TodoEntry): number {
  return dueKey(a) - dueKey(b) || (a.assignmentId ?? a.quizId ?? 0) - (b.assignmentId ?? b.quizId ?? 0) || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0);
}
