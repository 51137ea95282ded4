import { Brackets } from 'typeorm';
import { RequestError } from '../common/errors';
import { containsPattern } from '../common/like';
import { ConnectionResult } from '../common/relay';
import { pagePerParent } from '../db/page-per-parent';
import type { RequestContext } from '../request/context';
import { User } from '../users/user.entity';
import { UserService } from '../users/user.service';
import { GroupAccess } from './group-access';
import { GroupMembership } from './group-membership.entity';
import { GroupMembershipService } from './group-membership.service';
import { GroupPolicy } from './group-policy';
import { Group } from './group.entity';

export type GroupUsersArgs = { first?: number | null; after?: string | null; searchTerm?: string | null; excludeInactive?: boolean | null };

/** Canvas caps the users embedded in group JSON; the memberships list has everyone. */
export const EMBEDDED_USERS_CAP = 1000;

/** Reads of a group's roster: its users (paged and embedded) and its leader. */
export class GroupRosterService {
  constructor(private readonly ctx: RequestContext) {}

  private get policy() {
    return this.ctx.use(GroupPolicy);
  }

  /** Accepted members of the group, by sortable name (GET /groups/:id/users). */
  /** A group's accepted members by sortable name (groupUsersConnection). Batched across groups (usersOfGroups). */
  async users(raw: string, args: GroupUsersArgs): Promise<ConnectionResult<User>> {
    const { group } = await this.ctx.use(GroupAccess).withRight(raw, 'read');
    return this.ctx.loaders.perParent('groupUsers', args, (groups: readonly Group[]) => this.usersOfGroups(groups, args)).load(group);
  }

  /**
   * One page of members per group (groups the viewer may read) in one statement pair: the search
   * term and, with excludeInactive, each course group's active enrollments apply per group.
   */
  async usersOfGroups(groups: readonly Group[], args: GroupUsersArgs): Promise<(ConnectionResult<User> | Error)[]> {
    const term = args.searchTerm?.trim();
    if (term != null && term.length < 3 && args.searchTerm !== undefined && args.searchTerm !== null) {
      throw new RequestError('search_term too short', 400, { errors: [{ field: 'search_term', code: 'invalid', message: '3 or more characters is required' }] });
    }
    const qb = this.ctx.ds
      .getRepository(User)
      .createQueryBuilder('u')
      .innerJoin(GroupMembership, 'm', 'm.user_id = u.id AND m.group_id IN (:...gids) AND m.workflow_state = :accepted', { gids: groups.map((g) => g.id), accepted: 'accepted' })
      .where('u.workflow_state != :deleted', { deleted: 'deleted' });
    if (term) {
      const like = containsPattern(term);
      qb.andWhere(new Brackets((b) => {
        b.where("LOWER(u.name) LIKE :like ESCAPE '!'", { like }).orWhere("LOWER(u.sortable_name) LIKE :like ESCAPE '!'", { like });
        if (/^\d+$/.test(term)) b.orWhere('u.id = :tid', { tid: Number(term) });
      }));
    }
    const inCourses = groups.filter((g) => g.contextType === 'Course');
    if (args.excludeInactive && inCourses.length) {
      // A course group's members need an active enrollment in its course; other groups are unfiltered.
      qb.andWhere(new Brackets((b) => {
        b.where('m.group_id NOT IN (:...courseGroups)', { courseGroups: inCourses.map((g) => g.id) });
        inCourses.forEach((g, j) => b.orWhere(`(m.group_id = :g${j} AND u.id IN (SELECT e.user_id FROM enrollments e WHERE e.course_id = :c${j} AND e.workflow_state = 'active'))`, { [`g${j}`]: g.id, [`c${j}`]: g.contextId }));
      }));
    }
    // In the order of the memberships index (group, sortable name, user, state): the page is read from
    // it by key, with no join and sort of the whole roster.
    const m = (c: string) => ({ expression: `${qb.escape('m')}.${qb.escape(c)}` });
    // Without a filter, the total (Link rel="last", totalCount) is each group's accepted memberships
    // while no user is deleted: counted from the memberships index, where the join probed users for
    // every member (1.7 ms for a group of 2,000 on MariaDB, 0.2 ms for the memberships alone).
    const count = term || args.excludeInactive ? undefined : () => this.memberTotals(groups);
    const pages = await pagePerParent(qb, m('group_id'), [[m('sortable_name'), 'ASC'], [m('user_id'), 'ASC']], groups.map((g) => g.id), args, { count });
    return groups.map((g) => pages.get(g.id)!);
  }

  /** Each group's accepted members (members_count's batched count); null when some user is deleted and the join must count. */
  private async memberTotals(groups: readonly Group[]): Promise<Map<number, number> | null> {
    if (await this.ctx.use(UserService).anyDeleted()) return null;
    const members = this.ctx.use(GroupMembershipService);
    const totals = await Promise.all(groups.map((g) => members.membersCount(g)));
    return new Map(groups.map((g, i) => [g.id, totals[i]]));
  }

  /**
   * The capped member list a group embeds (include[]=users), for callers who may list its users as
   * groupUsersConnection does: checked on the group itself, never trusting how it was reached.
   */
  async embeddedUsers(group: Group): Promise<User[]> {
    if (!(await this.policy.rights(group)).read) return [];
    const rows = await this.ctx.use(GroupMembershipService).acceptedLoader().load(group.id);
    const users = await this.ctx.loaders.byId(User).loadMany(rows.slice(0, EMBEDDED_USERS_CAP).map((m) => m.userId));
    return (users.filter((u) => u && !(u instanceof Error)) as User[]).sort((a, b) => a.sortableName.localeCompare(b.sortableName) || a.id - b.id);
  }

  /**
   * The group's leader, for callers who may read its roster (the leader is one of its members); null
   * otherwise. A group without a leader answers at once, not through a promise (most groups of a page).
   */
  leader(group: Group): Promise<User | null> | null {
    const leaderId = group.leaderId;
    if (leaderId == null) return null;
    return this.policy.rights(group).then((rights) => (rights.readRoster ? this.ctx.loaders.byId(User).load(leaderId) : null));
  }
}
