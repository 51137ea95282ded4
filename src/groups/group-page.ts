import type { DataSource } from 'typeorm';
import { leanRows, selectColumns } from '../db/lean-read';
import type { PageWindow } from '../common/relay';
import { Group } from './group.entity';

export interface ContextGroupsFilter {
  contextType: string;
  contextId: number;
  /** non_collaborative values to list (false: groups, true: differentiation tags). */
  kinds: boolean[];
  categoryId?: number | null;
  /** Only groups this user belongs to (accepted). */
  memberId?: number | null;
}

/**
 * One page of a context's live groups, by category, name and id, with the total for the Link header
 * (a hot list): plain statements whose rows map straight to Group entities, instead of the query
 * builder's per-call SQL assembly, alias rewriting and result transformer.
 */
export async function contextGroupPage(ds: DataSource, f: ContextGroupsFilter, w: PageWindow): Promise<{ rows: Group[]; total: number }> {
  const conds = ['g.context_type = ?', 'g.context_id = ?', "g.workflow_state = 'available'", `g.non_collaborative IN (${f.kinds.map(() => '?').join(', ')})`];
  const params: unknown[] = [f.contextType, f.contextId, ...f.kinds.map((k) => (k ? 1 : 0))];
  if (f.categoryId != null) {
    conds.push('g.group_category_id = ?');
    params.push(f.categoryId);
  }
  if (f.memberId != null) {
    conds.push("g.id IN (SELECT m.group_id FROM group_memberships m WHERE m.user_id = ? AND m.workflow_state = 'accepted')");
    params.push(f.memberId);
  }
  const from = `FROM ${ds.driver.escape('groups')} g WHERE ${conds.join(' AND ')}`;
  // The window is two integers from pageWindow, never client text.
  const page = `SELECT ${selectColumns(ds, Group, 'g')} ${from} ORDER BY g.group_category_id, g.name, g.id LIMIT ${Math.trunc(w.limit)} OFFSET ${Math.trunc(w.offset)}`;
  const [rows, [{ n }]] = await Promise.all([leanRows(ds, Group, page, params), ds.query(`SELECT COUNT(*) AS n ${from}`, params)]);
  // Group is a plain entity (no relations or embedded columns): leanRows always maps it.
  return { rows: rows!, total: Number(n) };
}
