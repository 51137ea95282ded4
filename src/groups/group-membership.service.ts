import DataLoader from 'dataloader';
import { EntityManager, In, Not } from 'typeorm';
import { ForbiddenError, NotFoundError, RequestError, ValidationError } from '../common/errors';
import { Enrollment } from '../courses/enrollment.entity';
import { transaction } from '../db/transaction';
import type { RequestContext } from '../request/context';
import { ConnectionResult } from '../common/relay';
import { pagePerParent } from '../db/page-per-parent';
import { GroupCategory } from './group-category.entity';
import { GroupMembership, LISTED_STATES, MembershipState } from './group-membership.entity';
import { Group } from './group.entity';
import { User } from '../users/user.entity';
import { GroupAccess } from './group-access';
import { UserService } from '../users/user.service';
import { GroupPolicy } from './group-policy';
import { memberSortName } from './member-sort-name';

export interface MembershipRef {
  membershipId?: string | null;
  userId?: string | null;
}

export interface JoinInput {
  userId?: string | null;
  /** Differentiation-tag bulk forms. */
  members?: string[] | null;
  allInGroupCourse?: boolean | null;
  excludeUserIds?: string[] | null;
}

export interface BulkResult {
  added: GroupMembership[];
  invalidUserIds: string[];
}

export class GroupMembershipService {
  constructor(private readonly ctx: RequestContext) {}

  private get groups() {
    return this.ctx.use(GroupAccess);
  }

  /** Accepted memberships by group, for member counts and embedded users. */
  acceptedLoader(): DataLoader<number, GroupMembership[]> {
    return this.ctx.loaders.manyBy(GroupMembership, 'groupId', { workflowState: 'accepted' });
  }

  membersCount(group: Group): Promise<number> {
    return this.ctx.loaders
      .get('groups:membersCount', () =>
        new DataLoader<number, number>(async (ids) => {
          // Plain SQL: the query builder's assembly cost more than this statement on a page of groups.
          const rows: { group_id: number; n: number | string }[] = await this.ctx.ds.query(
            `SELECT group_id, COUNT(*) AS n FROM group_memberships WHERE group_id IN (${ids.map(() => '?').join(', ')}) AND workflow_state = 'accepted' GROUP BY group_id`,
            [...ids],
          );
          const map = new Map(rows.map((r) => [Number(r.group_id), Number(r.n)]));
          return ids.map((id) => map.get(id) ?? 0);
        }),
      )
      .load(group.id);
  }

  /** The membership a path names: by membership id, or by user id (`self` for the caller in either). */
  async resolve(group: Group, ref: MembershipRef): Promise<GroupMembership> {
    const repo = this.ctx.ds.getRepository(GroupMembership);
    const viewer = this.ctx.authz.requireViewer();
    let row: GroupMembership | null = null;
    if (ref.membershipId != null) {
      row = ref.membershipId === 'self'
        ? await repo.findOneBy({ groupId: group.id, userId: viewer.id })
        : /^\d+$/.test(ref.membershipId) ? await repo.findOneBy({ groupId: group.id, id: Number(ref.membershipId) }) : null;
    } else if (ref.userId != null) {
      const user = await this.ctx.use(UserService).lookup(ref.userId);
      row = await repo.findOneBy({ groupId: group.id, userId: user.id });
    }
    if (!row || !row.isLive) throw new NotFoundError();
    return row;
  }

  /**
   * resolve() for a caller who may lack the right to see other people's memberships: to them a
   * missing membership is a 403 like an existing one, so /groups/:id/users/:user_id cannot be used
   * to learn who belongs to a group. Their own membership (`self`) still answers 404 when absent.
   */
  private async resolveGuarded(group: Group, ref: MembershipRef, mayLookAtOthers: boolean): Promise<GroupMembership> {
    try {
      return await this.resolve(group, ref);
    } catch (e) {
      const viewer = this.ctx.authz.requireViewer();
      const own = ref.membershipId === 'self' || ref.userId === 'self' || ref.userId === String(viewer.id);
      if (e instanceof NotFoundError && !mayLookAtOthers && !own) throw new ForbiddenError();
      throw e;
    }
  }

  async show(groupRaw: string, ref: MembershipRef): Promise<GroupMembership> {
    const group = await this.groups.lookup(groupRaw);
    const rights = await this.groups.rights(group);
    const membership = await this.resolveGuarded(group, ref, rights.readRoster);
    if (membership.userId !== this.ctx.viewer!.id && !rights.readRoster) throw new ForbiddenError();
    return membership;
  }

  /**
   * The user of a membership, checked as show() checks the membership itself (the caller's own, or
   * anyone's for those who may read the group's roster); null otherwise.
   */
  async userOf(m: GroupMembership): Promise<User | null> {
    const viewer = this.ctx.viewer;
    if (!viewer) return null;
    if (m.userId !== viewer.id) {
      const group = await this.ctx.loaders.byId(Group).load(m.groupId);
      if (!group || !(await this.groups.rights(group)).readRoster) return null;
    }
    return this.ctx.loaders.byId(User).load(m.userId);
  }

  async list(groupRaw: string, args: { first?: number | null; after?: string | null; filterStates?: string[] | null }): Promise<ConnectionResult<GroupMembership>> {
    const { group } = await this.groups.withRight(groupRaw, 'readRoster');
    const asked = (args.filterStates ?? []).filter(Boolean);
    for (const s of asked) if (!(LISTED_STATES as string[]).includes(s)) throw ValidationError.of('filter_states', 'inclusion', `unknown state ${s}`);
    const states = asked.length ? asked : LISTED_STATES;
    // A page per group for every group asked in this request, in one batch (a list of groups each
    // with its membersConnection costs the same statements whatever its length), each read by key from
    // the (group, id) index.
    const page = { first: args.first, after: args.after };
    return this.ctx.loaders.perParent(`memberships:${states.join(',')}`, page, async (groups: readonly Group[]) => {
      const qb = this.ctx.ds.getRepository(GroupMembership).createQueryBuilder('m').where('m.workflow_state IN (:...states)', { states });
      const pages = await pagePerParent(qb, 'group_id', [['id', 'ASC']], groups.map((g) => g.id), page);
      return groups.map((g) => pages.get(g.id)!);
    }).load(group);
  }

  // ---- joining ----------------------------------------------------------------------------------

  /**
   * POST /groups/:id/memberships. The caller joins (accepted for auto-join groups, requested where
   * a moderator approves, accepted when they hold an invitation), or a moderator/admin adds someone.
   * An existing live membership is returned unchanged.
   */
  async join(groupRaw: string, input: JoinInput): Promise<{ membership: GroupMembership | null; justCreated: boolean; bulk?: BulkResult }> {
    const group = await this.groups.lookup(groupRaw);
    const viewer = this.ctx.authz.requireViewer();
    const rights = await this.groups.rights(group);
    if (input.members != null || input.allInGroupCourse != null) return { membership: null, justCreated: false, bulk: await this.bulkAdd(group, input) };
    if (group.nonCollaborative) throw new RequestError('Use members[] or all_in_group_course to tag students', 400, { errors: [{ message: 'Differentiation tags take members[] or all_in_group_course' }] });
    const target = input.userId == null || input.userId === 'self' ? viewer : await this.ctx.use(UserService).lookup(input.userId);
    const self = target.id === viewer.id;
    const category = (await this.ctx.use(GroupPolicy).category(group))!;
    const existing = await this.ctx.ds.getRepository(GroupMembership).findOneBy({ groupId: group.id, userId: target.id });

    let state: MembershipState;
    if (self) {
      if (existing?.isLive && existing.workflowState !== 'invited') return { membership: existing, justCreated: false };
      // invitation_only groups refuse callers who hold no invitation.
      if (!rights.join) throw new ForbiddenError();
      const selfSignup = category.selfSignup != null && group.contextType === 'Course';
      state = existing?.workflowState === 'invited' || selfSignup || group.joinLevel === 'parent_context_auto_join' ? 'accepted' : 'requested';
    } else {
      // Community groups are joined by their members only; elsewhere moderators and admins add people.
      if (!rights.manage || category.isCommunities) throw new ForbiddenError();
      if (existing?.isLive) return { membership: existing, justCreated: false };
      if (!(await this.userCanJoinContext(group, target.id))) {
        throw ValidationError.of('user_id', 'invalid', 'The user is not a member of the group\'s course or account');
      }
      state = 'accepted';
    }
    if (state === 'accepted') await this.assertCapacity(group, category);
    await this.assertSharesSection(group, category, target.id, target.name);
    const justCreated = !existing?.isLive;
    const membership = await transaction(this.ctx.ds, (em) => this.write(em, group, category, target.id, state, existing));
    return { membership, justCreated };
  }

  private async userCanJoinContext(group: Group, userId: number): Promise<boolean> {
    if (group.contextType === 'Account') return true;
    return (await this.ctx.ds.getRepository(Enrollment).countBy({ courseId: group.contextId, userId, workflowState: In(['active', 'invited', 'creation_pending']) })) > 0;
  }

  /** A full group refuses new accepted members (max_membership, else the category's group_limit). */
  private async assertCapacity(group: Group, category: GroupCategory): Promise<void> {
    if (category.role === 'student_organized') return;
    const limit = group.maxMembership ?? category.groupLimit;
    if (!limit) return;
    const count = await this.ctx.ds.getRepository(GroupMembership).countBy({ groupId: group.id, workflowState: 'accepted' });
    if (count >= limit) throw ValidationError.of('group_id', 'full', 'The group is full.');
  }

  /**
   * Restricted self-signup: the new member must share an active section of the course with every
   * current member (Canvas's has_common_section_with_user?).
   */
  private async assertSharesSection(group: Group, category: GroupCategory, userId: number, userName: string): Promise<void> {
    if (category.selfSignup !== 'restricted' || group.contextType !== 'Course') return;
    const members = await this.ctx.ds.getRepository(GroupMembership).findBy({ groupId: group.id, workflowState: 'accepted', userId: Not(userId) });
    const users = [userId, ...members.map((m) => m.userId)];
    const enrollments = await this.ctx.ds.getRepository(Enrollment).findBy({ courseId: group.contextId, userId: In(users), workflowState: 'active' });
    const sectionsOf = (u: number) => new Set(enrollments.filter((e) => e.userId === u).map((e) => e.courseSectionId));
    const common = users.slice(1).reduce((acc, u) => {
      const sections = sectionsOf(u);
      return new Set([...acc].filter((id) => sections.has(id)));
    }, sectionsOf(userId));
    if (!common.size) throw ValidationError.of('user_id', 'not_in_group_section', `${userName} does not share a section with the other members of ${group.name}.`);
  }

  /**
   * Writes a membership row (reviving a deleted one) and, for accepted members of an exclusive
   * category, removes the user from the category's other groups: joining one moves the user.
   */
  private async write(em: EntityManager, group: Group, category: GroupCategory, userId: number, state: MembershipState, existing: GroupMembership | null): Promise<GroupMembership> {
    const repo = em.getRepository(GroupMembership);
    const row = existing ?? repo.create({ groupId: group.id, userId, moderator: false, sisImportId: null, sortableName: await memberSortName(em, userId) });
    if (existing && !existing.isLive) row.moderator = false;
    row.workflowState = state;
    await repo.save(row);
    if (state === 'accepted' && !category.allowsMultipleMemberships) {
      const siblings = await em.getRepository(Group).find({ select: { id: true }, where: { groupCategoryId: category.id, id: Not(group.id) } });
      if (siblings.length) {
        await repo.update({ userId, groupId: In(siblings.map((g) => g.id)), workflowState: Not('deleted') }, { workflowState: 'deleted', moderator: false });
      }
    }
    return row;
  }

  /** An invitation for an existing user (POST /invite, members[]): accepted members stay accepted. */
  async inviteUser(em: EntityManager, group: Group, userId: number): Promise<GroupMembership> {
    const repo = em.getRepository(GroupMembership);
    const existing = await repo.findOneBy({ groupId: group.id, userId });
    if (existing?.isLive) return existing;
    const category = (await em.getRepository(GroupCategory).findOneBy({ id: group.groupCategoryId }))!;
    return this.write(em, group, category, userId, 'invited', existing);
  }

  /** PUT /groups/:id with members[]: the listed users are invited, members not listed are removed. */
  async setMembers(em: EntityManager, group: Group, category: GroupCategory, userIds: number[]): Promise<void> {
    const repo = em.getRepository(GroupMembership);
    const keep = new Set(userIds);
    const live = await repo.findBy({ groupId: group.id, workflowState: In(LISTED_STATES) });
    const gone = live.filter((m) => !keep.has(m.userId)).map((m) => m.id);
    if (gone.length) await repo.update({ id: In(gone) }, { workflowState: 'deleted', moderator: false });
    if (group.leaderId != null && !keep.has(group.leaderId)) {
      await em.getRepository(Group).update({ id: group.id }, { leaderId: null });
      // The caller answers with this object: it must not show the removed leader.
      group.leaderId = null;
    }
    for (const id of userIds) {
      const row = live.find((m) => m.userId === id);
      if (row) continue;
      await this.write(em, group, category, id, 'invited', await repo.findOneBy({ groupId: group.id, userId: id }));
    }
  }

  /**
   * Differentiation tags: members[] adds the listed students, all_in_group_course adds every current
   * student of the course (minus exclude_user_ids[]). Only for tags, only for manage_tags holders.
   */
  private async bulkAdd(group: Group, input: JoinInput): Promise<BulkResult> {
    if (!group.nonCollaborative || group.contextType !== 'Course') {
      throw new RequestError('bulk membership is only for differentiation tags', 400, { errors: [{ message: 'members[] and all_in_group_course apply only to non-collaborative (differentiation tag) groups of a course' }] });
    }
    const rights = await this.groups.rights(group);
    if (!rights.manage) throw new ForbiddenError();
    const exclude = new Set((input.excludeUserIds ?? []).map(String));
    const students = await this.ctx.ds.getRepository(Enrollment).findBy({ courseId: group.contextId, type: 'StudentEnrollment', workflowState: 'active' });
    const enrolled = new Set(students.map((e) => e.userId));
    let requested: string[];
    if (input.allInGroupCourse) requested = [...enrolled].map(String).filter((id) => !exclude.has(id));
    else requested = (input.members ?? []).flatMap((s) => String(s).split(',')).map((s) => s.trim()).filter(Boolean);
    if (!requested.length) throw new RequestError('no users given', 400, { errors: [{ message: 'No users to add' }] });
    const valid = [...new Set(requested.filter((id) => /^\d+$/.test(id) && enrolled.has(Number(id))).map(Number))];
    const invalidUserIds = requested.filter((id) => !(/^\d+$/.test(id) && enrolled.has(Number(id))));
    const category = (await this.ctx.use(GroupPolicy).category(group))!;
    const added = await transaction(this.ctx.ds, async (em) => {
      const out: GroupMembership[] = [];
      for (const userId of valid) {
        const existing = await em.getRepository(GroupMembership).findOneBy({ groupId: group.id, userId });
        out.push(existing?.isAccepted ? existing : await this.write(em, group, category, userId, 'accepted', existing));
      }
      return out;
    });
    return { added, invalidUserIds };
  }

  // ---- moderation and leaving --------------------------------------------------------------------

  /**
   * PUT: a moderator or admin accepts a request (workflow_state=accepted) or sets moderator rights. An
   * invitee may accept their own invitation. Canvas ignores any other workflow_state with a 200, which
   * reads as success to a client that meant to reject; we refuse it (400 naming workflow_state).
   */
  async update(groupRaw: string, ref: MembershipRef, input: { workflowState?: string | null; moderator?: boolean | null }): Promise<{ membership: GroupMembership }> {
    const group = await this.groups.lookup(groupRaw);
    const rights = await this.groups.rights(group);
    const membership = await this.resolveGuarded(group, ref, rights.manage);
    const viewer = this.ctx.authz.requireViewer();
    const ownInvitation = membership.userId === viewer.id && membership.workflowState === 'invited' && input.workflowState === 'accepted' && input.moderator == null;
    if (!rights.manage && !ownInvitation) throw new ForbiddenError();
    if (input.workflowState != null && input.workflowState !== 'accepted') {
      throw ValidationError.of('workflow_state', 'inclusion', 'workflow_state can only be accepted');
    }
    const category = (await this.ctx.use(GroupPolicy).category(group))!;
    if (input.workflowState === 'accepted' && membership.workflowState !== 'accepted') {
      await this.assertCapacity(group, category);
      const user = await this.ctx.use(UserService).lookup(membership.userId);
      await this.assertSharesSection(group, category, user.id, user.name);
    }
    if (input.moderator === true && membership.workflowState !== 'accepted' && input.workflowState !== 'accepted') {
      throw ValidationError.of('moderator', 'invalid', 'Only accepted members can moderate the group');
    }
    return transaction(this.ctx.ds, async (em) => {
      if (input.workflowState === 'accepted' && membership.workflowState !== 'accepted') {
        await this.write(em, group, category, membership.userId, 'accepted', membership);
      }
      if (input.moderator != null) membership.moderator = input.moderator;
      await em.getRepository(GroupMembership).save(membership);
      return { membership };
    });
  }

  /** DELETE: the member leaves where the group can be left; moderators and admins remove anyone. */
  async remove(groupRaw: string, ref: MembershipRef): Promise<{ membership: GroupMembership }> {
    const group = await this.groups.lookup(groupRaw);
    const rights = await this.groups.rights(group);
    const membership = await this.resolveGuarded(group, ref, rights.manage);
    const self = membership.userId === this.ctx.viewer!.id;
    // An invitee or requester may always withdraw; accepted members only where the group can be left.
    const allowed = rights.manage || (self && (rights.leave || membership.workflowState !== 'accepted'));
    if (!allowed) throw new ForbiddenError();
    return transaction(this.ctx.ds, async (em) => {
      membership.workflowState = 'deleted';
      membership.moderator = false;
      await em.getRepository(GroupMembership).save(membership);
      if (group.leaderId === membership.userId) await em.getRepository(Group).update({ id: group.id }, { leaderId: null });
      return { membership };
    });
  }
}
