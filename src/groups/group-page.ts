import type { DataSource } from 'typeorm';
import type { KeyValue, KeyWindow } from '../common/keyset';
import type { ConnectionResult } from '../common/relay';
import { keysetPage } from '../db/keyset-page';
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
 * One key set page of a context's live groups, by category, name and id (a hot list): keysetPage's
 * plain statement read from the (context, category, name, id) index, first + 1 rows after the cursor's
 * key (a deep numbered page from the list's nearer end), rows mapped straight to Group entities. The
 * total, for a Link rel="last", is a separate COUNT run only when asked.
 */
export function contextGroupPage(ds: DataSource, f: ContextGroupsFilter, w: KeyWindow): Promise<ConnectionResult<Group>> {
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
  return keysetPage(ds, { entity: Group, alias: 'g', where: conds.join(' AND '), params, order: CONTEXT_GROUP_ORDER, keyOf: contextGroupKey }, w);
}
