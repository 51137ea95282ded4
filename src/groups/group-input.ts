import { In, Not } from 'typeorm';
import { Validator } from '../common/errors';
import { Enrollment } from '../courses/enrollment.entity';
import type { RequestContext } from '../request/context';
import { Pseudonym } from '../users/pseudonym.entity';
import { User } from '../users/user.entity';
import { GroupCategory } from './group-category.entity';
import { Group, JOIN_LEVELS, JoinLevel } from './group.entity';

/** What a group is created or updated with, and the checks on it (create and update share them). */

export interface GroupInput {
  name?: string | null;
  description?: string | null;
  isPublic?: boolean | null;
  joinLevel?: string | null;
  storageQuotaMb?: number | null;
  sisGroupId?: string | null;
  maxMembership?: number | null;
}

export interface UpdateGroupInput extends GroupInput {
  avatarId?: string | null;
  members?: string[] | null;
  overrideSisStickiness?: boolean | null;
  leaderId?: string | null;
}

/** Field rules shared by create and update. */
export function validateFields(input: GroupInput, v: Validator, creating: boolean): void {
  if (input.name !== undefined && input.name !== null) {
    v.check(input.name.trim().length > 0, 'name', 'blank', 'Name is required');
    v.check(input.name.length <= 255, 'name', 'too_long', 'Enter a shorter group name');
  } else if (creating && input.name === null) {
    v.add('name', 'blank', 'Name is required');
  }
  if (input.description != null) v.check(input.description.length <= 65535, 'description', 'too_long', 'Enter a shorter description');
  if (input.joinLevel != null) {
    v.check((JOIN_LEVELS as readonly string[]).includes(input.joinLevel), 'join_level', 'inclusion', `join_level must be one of ${JOIN_LEVELS.join(', ')}`);
  }
  if (input.maxMembership != null) v.check(input.maxMembership > 1, 'max_membership', 'greater_than', 'Must be greater than 1');
  if (input.storageQuotaMb != null) v.check(input.storageQuotaMb >= 0, 'storage_quota_mb', 'invalid', 'must be zero or more');
}

/** sis_group_id is unique among a root account's live groups. */
export async function checkSisUnique(ctx: RequestContext, v: Validator, rootAccountId: number, sisGroupId: string | null | undefined, existing?: Group) {
  if (!sisGroupId) return;
  const clash = await ctx.ds.getRepository(Group).findOneBy({
    rootAccountId,
    sisGroupId,
    workflowState: 'available',
    ...(existing ? { id: Not(existing.id) } : {}),
  });
  if (clash) v.add('sis_group_id', 'taken', `SIS ID "${sisGroupId}" is already in use`);
}

/** Class groups (a regular category of a course) are always invitation-only. */
export function effectiveJoinLevel(category: GroupCategory, requested: string | null | undefined, current?: JoinLevel): JoinLevel {
  if (category.contextType === 'Course' && category.role == null) return 'invitation_only';
  return (requested as JoinLevel) ?? current ?? 'invitation_only';
}

/**
 * members[]: users of the group's context. Users outside it are ignored as in Canvas; an entry that
 * names no user at all is refused (naming members), so a typo cannot silently empty a group.
 */
export async function resolveMembers(ctx: RequestContext, group: Group, raw: string[], v: Validator): Promise<number[]> {
  const words = [...new Set(raw.flatMap((s) => String(s).split(',')).map((s) => s.trim()).filter(Boolean))];
  const ids = words.filter((s) => /^\d{1,15}$/.test(s)).map(Number);
  const live = ids.length ? await ctx.ds.getRepository(User).findBy({ id: In(ids), workflowState: Not('deleted') }) : [];
  const known = new Set(live.map((u) => u.id));
  const unknown = words.filter((s) => !/^\d{1,15}$/.test(s) || !known.has(Number(s)));
  if (unknown.length) {
    const named = unknown.slice(0, 10).map((s) => s.slice(0, 40)).join(', ');
    v.add('members', 'invalid', `${named}${unknown.length > 10 ? ', …' : ''} ${unknown.length === 1 ? 'is not a user' : 'are not users'}`);
    return [];
  }
  if (!ids.length) return [];
  if (group.contextType === 'Course') {
    const rows = await ctx.ds.getRepository(Enrollment).findBy({ courseId: group.contextId, userId: In(ids), workflowState: In(['active', 'invited', 'creation_pending']) });
    const ok = new Set(rows.map((r) => r.userId));
    return ids.filter((id) => ok.has(id));
  }
  const rows = await ctx.ds.getRepository(Pseudonym).findBy({ accountId: group.rootAccountId, userId: In(ids), workflowState: 'active' });
  const ok = new Set(rows.map((r) => r.userId));
  return ids.filter((id) => ok.has(id));
}
