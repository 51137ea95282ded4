import type { DataSource } from 'typeorm';
import { leanRows, selectColumns } from '../db/lean-read';
import { afterKey, KeyValue, KeyWindow, LazyTotal, pageLimitSql } from '../common/keyset';
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

/** The order of a context's groups; the page index is (context_type, context_id, group_category_id, name, id). */
export const CONTEXT_GROUP_ORDER = [
  { expr: 'g.group_category_id', dir: 'ASC' as const },
  { expr: 'g.name', dir: 'ASC' as const },
  { expr: 'g.id', dir: 'ASC' as const },
];
export const contextGroupKey = (g: Group): KeyValue[] => [g.groupCategoryId, g.name, g.id];

/**
 * One key set page of a context's live groups, by category, name and id (a hot list): a plain
 * statement read from the (context, category, name, id) index, first + 1 rows after the cursor's key,
 * whose rows map straight to Group entities (no query builder assembly on this path). The total, for
 * a Link rel="last", is a separate COUNT run only when asked.
 */
export async function contextGroupPage(ds: DataSource, f: ContextGroupsFilter, w: KeyWindow): Promise<{ rows: Group[]; total: LazyTotal }> {
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
  const after = w.after ? afterKey(CONTEXT_GROUP_ORDER, w.after) : null;
  // Limit and offset are integers from keyWindow, never client text.
  const page = `SELECT ${selectColumns(ds, Group, 'g')} ${from}${after ? ` AND ${after.sql}` : ''} ORDER BY g.group_category_id, g.name, g.id${pageLimitSql(w)}`;
  const rows = await leanRows(ds, Group, page, [...params, ...(after?.params ?? [])]);
  const total = async () => Number((await ds.query(`SELECT COUNT(*) AS n ${from}`, params))[0].n);
  // Group is a plain entity (no relations or embedded columns): leanRows always maps it.
  return { rows: rows!, total };
}
