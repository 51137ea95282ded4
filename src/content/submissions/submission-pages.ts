import { In } from 'typeorm';
import { keysetConnection } from '../../common/connection';
import { deepPage, KeyWindow, keyWindow, orderSql, pageTailSql, SortKey } from '../../common/keyset';
import type { ConnectionResult } from '../../common/relay';
import { CourseService } from '../../courses/course.service';
import { idKey, SqlPart, qmarks, readParts } from '../../db/union-pages';
import type { RequestContext } from '../../request/context';
import type { Assignment } from '../assignments/assignment.entity';
import { ContentAccess } from '../content-access';
import { Submission } from './submission.entity';

/** A submissions list is its students by id (one row per student of the enrollments index). */
const STUDENT_ORDER: readonly SortKey[] = [{ expr: 'e.user_id', dir: 'ASC' }];

export interface SubmissionListArgs {
  first?: number | null;
  after?: string | null;
  workflowStates?: string[] | null;
}

/** Makes the placeholder rows of (assignment, student) pairs that have none yet. */
export type EnsurePlaceholders = (pairs: { assignment: Assignment; userId: number }[]) => Promise<void>;

/**
 * An assignment's submissions, one per current student the viewer may see, by student id, paged in
 * SQL. Every student has a submission (Canvas's placeholders, made on first read), so the page is
 * read from the course's student enrollments on the (course, type, user) index in student order,
 * and only the page's missing placeholders are made. The workflow state filter is a condition on
 * the submission (a student without a row yet is unsubmitted), so the LIMIT applies after it.
 * Key set cursors carry the student id; a list of assignments asking for their pages costs one
 * statement for all (a union), the total is counted only when selected.
 */
export class SubmissionPages {
  constructor(private readonly ctx: RequestContext) {}

  page(assignment: Assignment, args: SubmissionListArgs, ensure: EnsurePlaceholders): Promise<ConnectionResult<Submission>> {
    const w = keyWindow(args, 1);
    const states = args.workflowStates?.length ? [...new Set(args.workflowStates)].sort() : null;
    return this.ctx.loaders
      .perParent<Assignment, ConnectionResult<Submission>>('submissions:page', { w, states }, (as) => this.pages(as, w, states, ensure))
      .load(assignment);
  }

  /** The students of each assignment's list as a condition over enrollments `e` (null: nobody). */
  private async conditions(assignments: readonly Assignment[], states: string[] | null): Promise<(SqlPart | null)[]> {
    const access = this.ctx.use(ContentAccess);
    const courses = await this.ctx.use(CourseService).loadMany([...new Set(assignments.map((a) => a.courseId))]);
    const scopes = new Map(await Promise.all(courses.filter((c) => c != null).map(async (c) => [c!.id, await access.workScope(c!)] as const)));
    return assignments.map((a) => {
      const scope = scopes.get(a.courseId);
      if (!scope || (!scope.all && !scope.userIds.size)) return null;
      // Current students, as ContentAccess.currentStudents.
      const conds = ['e.course_id = ?', "e.type = 'StudentEnrollment'", "e.workflow_state IN ('active', 'invited')"];
      const params: unknown[] = [a.courseId];
      if (!scope.all) {
        conds.push(`e.user_id IN (${qmarks(scope.userIds.size)})`);
        params.push(...scope.userIds);
      }
      if (states) {
        const row = 'SELECT 1 FROM submissions s WHERE s.assignment_id = ? AND s.user_id = e.user_id';
        let cond = `EXISTS (${row} AND s.workflow_state IN (${qmarks(states.length)}))`;
        params.push(a.id, ...states);
        // A student whose placeholder is not made yet is unsubmitted.
        if (states.includes('unsubmitted')) {
          cond = `(${cond} OR NOT EXISTS (${row}))`;
          params.push(a.id);
        }
        conds.push(cond);
      }
      return { sql: conds.join(' AND '), params };
    });
  }

  private async pages(assignments: readonly Assignment[], w: KeyWindow, states: string[] | null, ensure: EnsurePlaceholders): Promise<ConnectionResult<Submission>[]> {
    const conds = await this.conditions(assignments, states);
    const after = w.after ? idKey(w.after[0]) : null;
    let totals: Promise<number[]> | undefined;
    const count = () => (totals ??= this.totals(conds));
    // A deep numbered page of one assignment (page=N, rel="last"): counted first (the count its Link
    // needs anyway), then read from the nearer end of the list.
    const end = assignments.length === 1 && conds[0] ? await deepPage(w, STUDENT_ORDER, async () => (await count())[0]) : null;
    const reads: SqlPart[] = [];
    const readOf = conds.map((c) => {
      if (!c || w.limit === 0 || end === 'empty') return -1;
      // One row per student (one enrolled in two sections has two enrollments), in index order.
      const tail = pageTailSql(orderSql(STUDENT_ORDER), w, end);
      const sql = `SELECT e.user_id AS uid FROM enrollments e WHERE ${c.sql}${after != null ? ' AND e.user_id > ?' : ''} GROUP BY e.user_id${tail}`;
      reads.push({ sql, params: after != null ? [...c.params, after] : c.params });
      return reads.length - 1;
    });
    const raw = await readParts<{ uid: unknown }>(this.ctx.ds, reads, 'uid');
    const ids = readOf.map((i) => (i < 0 ? [] : raw[i].map((r) => Number(r.uid))));
    if (end && ids[0]) ids[0].reverse();
    const rows = await this.rows(assignments, ids, ensure);
    return assignments.map((a, i) => {
      const page = ids[i].map((u) => rows.get(`${a.id}:${u}`)).filter((s): s is Submission => s != null);
      return keysetConnection(page, w, (s) => [s.userId], async () => (await count())[i]);
    });
  }

  /** The submissions of the pages' (assignment, student) pairs, placeholders made where missing: two reads at most. */
  private async rows(assignments: readonly Assignment[], ids: number[][], ensure: EnsurePlaceholders): Promise<Map<string, Submission>> {
    const users = [...new Set(ids.flat())];
    const wanted = assignments.filter((_, i) => ids[i].length);
    if (!users.length) return new Map();
    const load = async () => {
      const found = await this.ctx.ds.getRepository(Submission).find({ where: { assignmentId: In(wanted.map((a) => a.id)), userId: In(users) } });
      return new Map(found.map((s) => [`${s.assignmentId}:${s.userId}`, s]));
    };
    let rows = await load();
    const missing = assignments.flatMap((a, i) => ids[i].filter((u) => !rows.has(`${a.id}:${u}`)).map((userId) => ({ assignment: a, userId })));
    if (missing.length) {
      await ensure(missing);
      rows = await load();
    }
    return rows;
  }

  /** Each list's total (its students), one statement for all. */
  private async totals(conds: (SqlPart | null)[]): Promise<number[]> {
    const reads: SqlPart[] = [];
    const readOf = conds.map((c) => (c ? reads.push({ sql: `SELECT COUNT(DISTINCT e.user_id) AS n FROM enrollments e WHERE ${c.sql}`, params: c.params }) - 1 : -1));
    const raw = await readParts<{ n: unknown }>(this.ctx.ds, reads);
    return readOf.map((i) => (i < 0 ? 0 : Number(raw[i][0]?.n ?? 0)));
  }
}
