import type { DataSource } from 'typeorm';
import { STAFF_TYPES } from '../auth/permissions';
import { LazyTotal } from '../common/connection';
import { afterKey, KeyWindow, pageLimitSql, SortKey } from '../common/keyset';
import { leanRows, selectColumns } from '../db/lean-read';
import type { Account } from '../accounts/account.entity';
import { Course } from './course.entity';

const STAFF = [...STAFF_TYPES];

/** Both course lists page by id: the key is the course id alone. */
const VIEWER_ORDER: SortKey[] = [{ expr: 'e.course_id', dir: 'ASC' }];
const ACCOUNT_ORDER: SortKey[] = [{ expr: 'c.id', dir: 'ASC' }];

export interface ViewerCoursesFilter {
  userId: number;
  /** Enrollment states that make a course the viewer's. */
  states: string[];
  /** Only courses where the viewer holds this enrollment type. */
  type: string | null;
}

/**
 * The ids of one page of the viewer's courses, by id. The page walks the viewer's enrollments in the
 * (user_id, course_id) index, in course order, and stops after first + 1 courses: GROUP BY the course
 * (a user may hold several enrollments in one course) follows the index order, where the course-side
 * form (courses whose id is IN the viewer's enrollments, ordered by id) made both engines collect and
 * sort every course of the viewer on each page. The courses are then read by id.
 */
export async function viewerCoursePage(ds: DataSource, f: ViewerCoursesFilter, w: KeyWindow): Promise<{ ids: number[]; total: LazyTotal }> {
  const conds = ['e.user_id = ?', `e.workflow_state IN (${f.states.map(() => '?').join(', ')})`];
  const params: unknown[] = [f.userId, ...f.states];
  if (f.type) {
    conds.push('e.type = ?');
    params.push(f.type);
  }
  // Deleted courses are gone for everyone, their teachers included; students and observers do not see
  // unpublished courses, staff do.
  conds.push("c.workflow_state <> 'deleted'");
  conds.push(
    `(c.workflow_state IN ('available', 'completed') OR EXISTS (SELECT 1 FROM enrollments s WHERE s.user_id = ? AND s.course_id = c.id AND s.workflow_state = 'active' AND s.type IN (${STAFF.map(() => '?').join(', ')})))`,
  );
  params.push(f.userId, ...STAFF);
  const from = `FROM enrollments e INNER JOIN courses c ON c.id = e.course_id WHERE ${conds.join(' AND ')}`;
  const total = async () => Number((await ds.query(`SELECT COUNT(DISTINCT e.course_id) AS n ${from}`, params))[0].n);
  if (w.limit <= 0) return { ids: [], total };
  const after = w.after ? afterKey(VIEWER_ORDER, w.after) : null;
  const page = `SELECT e.course_id AS id ${from}${after ? ` AND ${after.sql}` : ''} GROUP BY e.course_id ORDER BY e.course_id${pageLimitSql(w)}`;
  const rows: { id: unknown }[] = await ds.query(page, [...params, ...(after?.params ?? [])]);
  return { ids: rows.map((r) => Number(r.id)), total };
}

/**
 * One page of an account's live courses, by id, read from the (root_account_id, id) index for a root
 * account and the (account_id, id) index for a sub-account. A root account's courses are those whose
 * root account it is (its own courses among them: a course's root is its account's root), and a
 * sub-account is no course's root, so one column names the set either way, where an OR of both
 * columns could use neither index in order.
 */
export async function accountCoursePage(ds: DataSource, account: Account, w: KeyWindow): Promise<{ rows: Course[]; total: LazyTotal }> {
  const from = `FROM courses c WHERE c.${account.isRoot ? 'root_account_id' : 'account_id'} = ? AND c.workflow_state <> 'deleted'`;
  const params: unknown[] = [account.id];
  const total = async () => Number((await ds.query(`SELECT COUNT(*) AS n ${from}`, params))[0].n);
  if (w.limit <= 0) return { rows: [], total };
  const after = w.after ? afterKey(ACCOUNT_ORDER, w.after) : null;
  const page = `SELECT ${selectColumns(ds, Course, 'c')} ${from}${after ? ` AND ${after.sql}` : ''} ORDER BY c.id${pageLimitSql(w)}`;
  const rows = await leanRows(ds, Course, page, [...params, ...(after?.params ?? [])]);
  // Course is a plain entity (no relations or embedded columns): leanRows always maps it.
  return { rows: rows!, total };
}
