import DataLoader from 'dataloader';
import { Brackets, In, Not } from 'typeorm';
import { Account } from '../accounts/account.entity';
import { ForbiddenError, NotFoundError, RequestError, ValidationError, Validator } from '../common/errors';
import { parseIdParam } from '../common/ids';
import { sanitizeHtml } from '../common/sanitize';
import { containsPattern } from '../common/like';
import { Course } from '../courses/course.entity';
import { Enrollment } from '../courses/enrollment.entity';
import { nowToSecond } from '../db/columns';
import { pagePerParent, settleEach } from '../db/page-per-parent';
import { transaction } from '../db/transaction';
import type { RequestContext } from '../request/context';
import { ConnectionResult, pageWindow, toConnection } from '../common/relay';
import { Pseudonym } from '../users/pseudonym.entity';
import { User } from '../users/user.entity';
import { GroupCategory } from './group-category.entity';
import { accountContext, GroupContext, loadContext, lookupContext } from './group-context';
import { contextGroupPage } from './group-page';
import { GroupInvitation } from './group-invitation.entity';
import { GroupMembership } from './group-membership.entity';
import type { GroupRights } from './group-policy';
import { Group, JOIN_LEVELS, JoinLevel, STICKY_FIELDS } from './group.entity';
import { GroupPolicy } from './group-policy';
import { GroupAccess } from './group-access';
import { AccountService } from '../accounts/account.service';
import { GroupCategoryService } from './group-category.service';
import { GroupAvatarService } from './group-avatar.service';
import { GroupMembershipService } from './group-membership.service';

type GroupUsersArgs = { first?: number | null; after?: string | null; searchTerm?: string | null; excludeInactive?: boolean | null };

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

/** Canvas caps the users embedded in group JSON; the memberships list has everyone. */
export const EMBEDDED_USERS_CAP = 1000;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export class GroupService {
  constructor(private readonly ctx: RequestContext) {}

  private get policy() {
    return this.ctx.use(GroupPolicy);
  }

  /** A live group by id or sis_group_id:, without permission checks (deleted groups are absent). */
  lookup(raw: string | number): Promise<Group> {
    return this.ctx.use(GroupAccess).lookup(raw);
  }

  /** GET /groups/:id: the spec answers 401 to a caller without rights to see the group. */
  async show(raw: string | number): Promise<Group> {
    const group = await this.lookup(raw);
    this.ctx.authz.requireViewer();
    if (!(await this.policy.rights(group)).read) throw new ForbiddenError(undefined, 401);
    return group;
  }

  /** A group with a right the caller must hold; 403 otherwise (whose body says nothing of the group). */
  withRight(raw: string | number, right: keyof GroupRights): Promise<{ group: Group; rights: GroupRights }> {
    return this.ctx.use(GroupAccess).withRight(raw, right);
  }

  rights(group: Group): Promise<GroupRights> {
    return this.policy.rights(group);
  }

  async context(group: Group): Promise<GroupContext | null> {
    return loadContext(this.ctx, group.contextType, group.contextId);
  }

  // ---- create ---------------------------------------------------------------------------------

  private validateFields(input: GroupInput, v: Validator, creating: boolean): void {
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

  private async checkSisUnique(v: Validator, rootAccountId: number, sisGroupId: string | null | undefined, existing?: Group) {
    if (!sisGroupId) return;
    const clash = await this.ctx.ds.getRepository(Group).findOneBy({
      rootAccountId,
      sisGroupId,
      workflowState: 'available',
      ...(existing ? { id: Not(existing.id) } : {}),
    });
    if (clash) v.add('sis_group_id', 'taken', `SIS ID "${sisGroupId}" is already in use`);
  }

  /** Class groups (a regular category of a course) are always invitation-only. */
  private effectiveJoinLevel(category: GroupCategory, requested: string | null | undefined, current?: JoinLevel): JoinLevel {
    if (category.contextType === 'Course' && category.role == null) return 'invitation_only';
    return (requested as JoinLevel) ?? current ?? 'invitation_only';
  }

  /** POST /api/v1/groups: a community group in the root account; the creator moderates it. */
  async createCommunity(input: GroupInput): Promise<{ group: Group }> {
    const viewer = this.ctx.authz.requireViewer();
    const root = await this.ctx.use(AccountService).rootAccount();
    const category = await this.ctx.use(GroupCategoryService).builtIn(accountContext(root), 'communities');
    return this.insert(accountContext(root), category, input, { creatorMembership: viewer.id, moderator: true });
  }

  /** POST /api/v1/group_categories/:id/groups. */
  async createInCategory(categoryRaw: string, input: GroupInput): Promise<{ group: Group }> {
    const category = await this.ctx.use(GroupCategoryService).lookup(categoryRaw);
    const viewer = this.ctx.authz.requireViewer();
    const context = (await loadContext(this.ctx, category.contextType, category.contextId))!;
    const admin = await this.policy.isContextAdmin(context.type, context.id, category.nonCollaborative);
    // Students may organise their own groups in a course's student-organized category.
    const studentOrganized = category.role === 'student_organized' && context.course && (await this.ctx.authz.canCourse(context.course, 'participate_as_student'));
    if (!admin && !studentOrganized && !category.isCommunities) {
      if (context.course && !(await this.ctx.authz.canCourse(context.course, 'read'))) throw new ForbiddenError();
      throw new ForbiddenError();
    }
    const creatorJoins = category.isCommunities || Boolean(studentOrganized && !admin);
    return this.insert(context, category, input, creatorJoins ? { creatorMembership: viewer.id, moderator: category.isCommunities } : {});
  }

  private async insert(context: GroupContext, category: GroupCategory, input: GroupInput, opts: { creatorMembership?: number; moderator?: boolean }): Promise<{ group: Group }> {
    const v = new Validator();
    this.validateFields(input, v, true);
    const canSis = await this.canManageSisIn(context);
    if (input.sisGroupId && !canSis) throw new RequestError('You must have manage_sis permission to set sis attributes', 401);
    await this.checkSisUnique(v, context.rootAccountId, input.sisGroupId);
    if (input.isPublic && !category.isCommunities) v.add('is_public', 'invalid', 'Only community groups can be made public');
    v.throwIfInvalid();
    const quota = input.storageQuotaMb != null && (await this.canManageQuotasIn(context)) ? input.storageQuotaMb : null;
    return transaction(this.ctx.ds, async (em) => {
      const group = await em.getRepository(Group).save(
        em.getRepository(Group).create({
          contextType: context.type,
          contextId: context.id,
          rootAccountId: context.rootAccountId,
          groupCategoryId: category.id,
          // Canvas names a group created without a name after a random token.
          name: input.name?.trim() || `Group ${Math.random().toString(36).slice(2, 8)}`,
          description: input.description ?? null,
          isPublic: Boolean(input.isPublic && category.isCommunities),
          joinLevel: this.effectiveJoinLevel(category, input.joinLevel),
          maxMembership: input.maxMembership ?? null,
          storageQuotaMb: quota,
          avatarAttachmentId: null,
          leaderId: null,
          sisGroupId: input.sisGroupId || null,
          sisImportId: null,
          nonCollaborative: category.nonCollaborative,
          stickyFields: null,
          workflowState: 'available',
          deletedAt: null,
        }),
      );
      if (opts.creatorMembership) {
        await em.getRepository(GroupMembership).save(
          em.getRepository(GroupMembership).create({ groupId: group.id, userId: opts.creatorMembership, workflowState: 'accepted', moderator: Boolean(opts.moderator), sisImportId: null }),
        );
      }
      return { group };
    });
  }

  private async canManageSisIn(context: GroupContext): Promise<boolean> {
    if (context.course) return this.ctx.authz.canCourse(context.course, 'manage_sis');
    return this.ctx.authz.isAccountAdmin(context.id);
  }

  private async canManageQuotasIn(context: GroupContext): Promise<boolean> {
    if (context.course) return this.ctx.authz.canCourse(context.course, 'manage_storage_quotas');
    return this.ctx.authz.isAccountAdmin(context.id);
  }

  // ---- update / delete --------------------------------------------------------------------------

  async update(raw: string, input: UpdateGroupInput): Promise<{ group: Group }> {
    const { group, rights } = await this.withRight(raw, 'update');
    const category = (await this.policy.category(group))!;
    const v = new Validator();
    this.validateFields(input, v, false);
    if (input.sisGroupId !== undefined && (input.sisGroupId ?? null) !== group.sisGroupId && !rights.manageSis) {
      throw new RequestError('You must have manage_sis permission to update sis attributes', 401);
    }
    await this.checkSisUnique(v, group.rootAccountId, input.sisGroupId, group);
    if (input.isPublic === false && group.isPublic) v.add('is_public', 'invalid', 'A public group cannot be made private');
    if (input.isPublic === true && !category.isCommunities) v.add('is_public', 'invalid', 'Only community groups can be made public');
    let avatarId: number | null | undefined;
    if (input.avatarId !== undefined) {
      avatarId = input.avatarId ? await this.ctx.use(GroupAvatarService).resolve(group, input.avatarId) : null;
      if (input.avatarId && avatarId == null) v.add('avatar_id', 'invalid', 'avatar_id must be an image uploaded to this group');
    }
    let leaderId: number | null | undefined;
    if (input.leaderId !== undefined) {
      if (!input.leaderId) leaderId = null;
      else {
        const leader = await this.ctx.ds.getRepository(GroupMembership).findOneBy({ groupId: group.id, userId: Number(input.leaderId) || -1, workflowState: 'accepted' });
        if (!leader) v.add('leader', 'invalid', 'The leader must be a member of the group');
        else leaderId = leader.userId;
      }
    }
    const memberIds = input.members != null ? await this.resolveMembers(group, input.members, v) : null;
    v.throwIfInvalid();

    // Fields changed through the API on an SIS group become sticky; override_sis_stickiness=false leaves them.
    const sticky = group.sticky;
    const skipSticky = input.overrideSisStickiness === false;
    const changed: string[] = [];
    const set = <K extends keyof Group>(key: K, value: Group[K] | undefined) => {
      if (value === undefined || group[key] === value) return;
      if (skipSticky && sticky.has(key as string)) return;
      group[key] = value;
      changed.push(key as string);
    };
    set('name', input.name?.trim());
    set('description', input.description === undefined ? undefined : input.description ?? null);
    if (input.isPublic === true) set('isPublic', true);
    if (input.joinLevel != null) set('joinLevel', this.effectiveJoinLevel(category, input.joinLevel, group.joinLevel));
    if (input.maxMembership !== undefined) set('maxMembership', input.maxMembership ?? null);
    if (input.storageQuotaMb !== undefined && rights.manageStorageQuotas) set('storageQuotaMb', input.storageQuotaMb ?? null);
    if (input.sisGroupId !== undefined && rights.manageSis) set('sisGroupId', input.sisGroupId || null);
    if (avatarId !== undefined) set('avatarAttachmentId', avatarId);
    if (leaderId !== undefined) set('leaderId', leaderId);
    if (group.sisGroupId && !skipSticky) {
      for (const f of changed) if ((STICKY_FIELDS as readonly string[]).includes(f)) sticky.add(f);
      group.stickyFields = sticky.size ? JSON.stringify([...sticky]) : null;
    }

    return transaction(this.ctx.ds, async (em) => {
      await em.getRepository(Group).save(group);
      if (memberIds) await this.ctx.use(GroupMembershipService).setMembers(em, group, category, memberIds);
      return { group };
    });
  }

  /**
   * members[]: users of the group's context. Users outside it are ignored as in Canvas; an entry that
   * names no user at all is refused (naming members), so a typo cannot silently empty a group.
   */
  private async resolveMembers(group: Group, raw: string[], v: Validator): Promise<number[]> {
    const words = [...new Set(raw.flatMap((s) => String(s).split(',')).map((s) => s.trim()).filter(Boolean))];
    const ids = words.filter((s) => /^\d{1,15}$/.test(s)).map(Number);
    const live = ids.length ? await this.ctx.ds.getRepository(User).findBy({ id: In(ids), workflowState: Not('deleted') }) : [];
    const known = new Set(live.map((u) => u.id));
    const unknown = words.filter((s) => !/^\d{1,15}$/.test(s) || !known.has(Number(s)));
    if (unknown.length) {
      const named = unknown.slice(0, 10).map((s) => s.slice(0, 40)).join(', ');
      v.add('members', 'invalid', `${named}${unknown.length > 10 ? ', …' : ''} ${unknown.length === 1 ? 'is not a user' : 'are not users'}`);
      return [];
    }
    if (!ids.length) return [];
    if (group.contextType === 'Course') {
      const rows = await this.ctx.ds.getRepository(Enrollment).findBy({ courseId: group.contextId, userId: In(ids), workflowState: In(['active', 'invited', 'creation_pending']) });
      const ok = new Set(rows.map((r) => r.userId));
      return ids.filter((id) => ok.has(id));
    }
    const rows = await this.ctx.ds.getRepository(Pseudonym).findBy({ accountId: group.rootAccountId, userId: In(ids), workflowState: 'active' });
    const ok = new Set(rows.map((r) => r.userId));
    return ids.filter((id) => ok.has(id));
  }

  /** Deletes the group (soft, as Canvas) and removes all members. */
  async delete(raw: string): Promise<{ group: Group }> {
    const { group } = await this.withRight(raw, 'delete');
    return transaction(this.ctx.ds, async (em) => {
      await em.getRepository(GroupMembership).update({ groupId: group.id }, { workflowState: 'deleted' });
      group.workflowState = 'deleted';
      group.deletedAt = nowToSecond();
      await em.getRepository(Group).save(group);
      return { group };
    });
  }

  // ---- invitations ------------------------------------------------------------------------------

  /**
   * Invites addresses: users with that login get an invited membership (accepted members stay as
   * they are); unknown addresses are kept as pending invitations.
   */
  async invite(raw: string, invitees: string[]): Promise<{ memberships: GroupMembership[]; pendingEmails: string[] }> {
    const { group } = await this.withRight(raw, 'manage');
    const emails = [...new Set(invitees.map((e) => e.trim().toLowerCase()).filter(Boolean))];
    if (!emails.length) throw new RequestError('invitees is missing', 400, { errors: [{ message: 'invitees[] is missing' }] });
    const v = new Validator();
    for (const e of emails) if (!EMAIL.test(e) || e.length > 255) v.add('invitees', 'invalid', `${e} is not a valid e-mail address`);
    v.throwIfInvalid();
    const logins = await this.ctx.ds.getRepository(Pseudonym).findBy({ accountId: group.rootAccountId, uniqueIdNormalized: In(emails), workflowState: 'active' });
    const known = new Map(logins.map((l) => [l.uniqueIdNormalized, l.userId]));
    const viewer = this.ctx.authz.requireViewer();
    return transaction(this.ctx.ds, async (em) => {
      const memberships: GroupMembership[] = [];
      const pendingEmails: string[] = [];
      for (const email of emails) {
        const userId = known.get(email);
        if (userId == null) {
          const repo = em.getRepository(GroupInvitation);
          if (!(await repo.findOneBy({ groupId: group.id, email }))) await repo.save(repo.create({ groupId: group.id, email, invitedById: viewer.id, workflowState: 'pending' }));
          pendingEmails.push(email);
          continue;
        }
        memberships.push(await this.ctx.use(GroupMembershipService).inviteUser(em, group, userId));
      }
      return { memberships, pendingEmails };
    });
  }

  // ---- reads ------------------------------------------------------------------------------------

  /** Accepted members of the group, by sortable name (GET /groups/:id/users). */
  /** A group's accepted members by sortable name (groupUsersConnection). Batched across groups (usersOfGroups). */
  async users(raw: string, args: GroupUsersArgs): Promise<ConnectionResult<User>> {
    const { group } = await this.withRight(raw, 'read');
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
    const pages = await pagePerParent(qb, { expression: `${qb.escape('m')}.${qb.escape('group_id')}` }, [['sortable_name', 'ASC'], ['id', 'ASC']], groups.map((g) => g.id), pageWindow(args));
    return groups.map((g) => pages.get(g.id)!);
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

  /** The group's leader, for callers who may read its roster (the leader is one of its members); null otherwise. */
  async leader(group: Group): Promise<User | null> {
    if (group.leaderId == null || !(await this.policy.rights(group)).readRoster) return null;
    return this.ctx.loaders.byId(User).load(group.leaderId);
  }

  /** GET /groups/:id/permissions: each asked name → whether the caller holds it; unknown names are false. */
  async permissions(raw: string, names: string[]): Promise<{ name: string; granted: boolean }[]> {
    const { rights } = await this.withRight(raw, 'read');
    return permissionList(rights, names);
  }

  /** The viewer's rights on a group already loaded (deleted ones included: they hold none). */
  async permissionsOf(group: Group, names: string[]): Promise<{ name: string; granted: boolean }[]> {
    return permissionList(await this.policy.rights(group), names);
  }

  async previewHtml(raw: string, html: string | null | undefined): Promise<string> {
    await this.withRight(raw, 'read');
    return sanitizeHtml(html ?? '', this.ctx.app.config);
  }

  /** The caller's groups (accepted memberships), by name then id. */
  async listForViewer(args: { first?: number | null; after?: string | null; contextType?: string | null }): Promise<ConnectionResult<Group>> {
    const viewer = this.ctx.authz.requireViewer();
    if (args.contextType != null && !['Course', 'Account'].includes(args.contextType)) {
      throw ValidationError.of('context_type', 'inclusion', 'context_type must be Course or Account');
    }
    const w = pageWindow(args);
    const qb = this.ctx.ds
      .getRepository(Group)
      .createQueryBuilder('g')
      .innerJoin(GroupMembership, 'm', 'm.group_id = g.id AND m.user_id = :uid AND m.workflow_state = :accepted', { uid: viewer.id, accepted: 'accepted' })
      .where('g.workflow_state = :available', { available: 'available' })
      .andWhere('g.non_collaborative = :nc', { nc: false });
    if (args.contextType) qb.andWhere('g.context_type = :ct', { ct: args.contextType });
    // Course groups only while the viewer can still see the course.
    qb.andWhere(
      new Brackets((b) =>
        b
          .where("g.context_type = 'Account'")
          .orWhere(`g.context_id IN (SELECT c.id FROM courses c WHERE c.workflow_state IN ('available', 'completed'))`)
          .orWhere(`g.context_id IN (SELECT e.course_id FROM enrollments e WHERE e.user_id = :uid AND e.workflow_state = 'active' AND e.type IN ('TeacherEnrollment','TaEnrollment','DesignerEnrollment'))`),
      ),
    );
    const [rows, total] = await qb.orderBy('g.name', 'ASC').addOrderBy('g.id', 'ASC').skip(w.offset).take(w.limit).getManyAndCount();
    return toConnection(rows, total, w);
  }

  /** Groups of a course or account (GET /courses/:id/groups), by category then name. */
  async listForContext(
    contextType: string,
    contextRaw: string,
    args: { first?: number | null; after?: string | null; onlyOwnGroups?: boolean | null; collaborationState?: string | null; categoryId?: number | null },
  ): Promise<ConnectionResult<Group>> {
    const context = await lookupContext(this.ctx, contextType, contextRaw);
    this.ctx.authz.requireViewer();
    const state = args.collaborationState ?? 'collaborative';
    if (!['collaborative', 'non_collaborative', 'all'].includes(state)) {
      throw ValidationError.of('collaboration_state', 'inclusion', 'collaboration_state must be collaborative, non_collaborative or all');
    }
    const w = pageWindow(args);
    if (args.categoryId != null && !args.onlyOwnGroups) {
      const kinds = await this.listKinds(context, state);
      // One category's groups (GroupSet.groupsConnection, GET /group_categories/:id/groups): the live
      // groups of every category asked in this request come in one batch, in the order below.
      const inCategory = await this.categoryGroups().load(args.categoryId);
      const rows = inCategory.filter((g) => g.contextType === context.type && g.contextId === context.id && kinds.includes(g.nonCollaborative));
      return toConnection(rows.slice(w.offset, w.offset + w.limit), rows.length, w);
    }
    // A list of courses (or accounts) each asking for its groups shares one batch (listForContexts).
    return this.ctx.loaders.perParent(`groups:${context.type}`, { ...args, state }, (contexts: readonly GroupContext[]) => this.listForContexts(contexts, state, args)).load(context);
  }

  /** The non_collaborative kinds the viewer may list in a context for a collaboration state; refuses otherwise. */
  private async listKinds(context: GroupContext, state: string): Promise<boolean[]> {
    const admin = await this.policy.isContextAdmin(context.type, context.id, false);
    const roster = admin || (context.course ? await this.ctx.authz.canCourse(context.course, 'read_roster') : false);
    const tags = state !== 'collaborative' && (await this.policy.isContextAdmin(context.type, context.id, true));
    if (!roster && !(state !== 'collaborative' && tags)) throw new ForbiddenError();
    if (state === 'non_collaborative' && !tags) throw new ForbiddenError();
    return state === 'all' ? (tags ? [false, true] : [false]) : state === 'non_collaborative' ? [true] : [false];
  }

  /**
   * One page of groups per context (all of one type), each refused alone when the viewer may not list
   * it. One context (the REST list) reads through contextGroupPage; several through one windowed
   * statement pair (pagePerParent), whatever their number.
   */
  async listForContexts(
    contexts: readonly GroupContext[],
    state: string,
    args: { first?: number | null; after?: string | null; onlyOwnGroups?: boolean | null; categoryId?: number | null },
  ): Promise<(ConnectionResult<Group> | Error)[]> {
    const viewer = this.ctx.authz.requireViewer();
    const kinds = await settleEach(contexts, (c) => this.listKinds(c, state));
    const w = pageWindow(args);
    const memberId = args.onlyOwnGroups ? viewer.id : null;
    if (contexts.length === 1) {
      if (kinds[0] instanceof Error) return [kinds[0]];
      const c = contexts[0];
      const { rows, total } = await contextGroupPage(this.ctx.ds, { contextType: c.type, contextId: c.id, kinds: kinds[0], categoryId: args.categoryId, memberId }, w);
      return [toConnection(rows, total, w)];
    }
    const byKinds = new Map<string, number[]>();
    contexts.forEach((c, i) => {
      if (kinds[i] instanceof Error) return;
      const key = (kinds[i] as boolean[]).map(Number).join(',');
      byKinds.set(key, [...(byKinds.get(key) ?? []), c.id]);
    });
    const qb = this.ctx.ds
      .getRepository(Group)
      .createQueryBuilder('g')
      .where('g.context_type = :type AND g.workflow_state = :available', { type: contexts[0].type, available: 'available' })
      .andWhere(
        new Brackets((b) => {
          b.where('1 = 0');
          [...byKinds].forEach(([k, ids], j) => b.orWhere(`(g.non_collaborative IN (:...k${j}) AND g.context_id IN (:...c${j}))`, { [`k${j}`]: k.split(',').map(Number), [`c${j}`]: ids }));
        }),
      );
    if (args.categoryId != null) qb.andWhere('g.group_category_id = :cat', { cat: args.categoryId });
    if (memberId != null) qb.andWhere("g.id IN (SELECT m.group_id FROM group_memberships m WHERE m.user_id = :member AND m.workflow_state = 'accepted')", { member: memberId });
    const pages = await pagePerParent(qb, 'context_id', [['group_category_id', 'ASC'], ['name', 'ASC'], ['id', 'ASC']], [...byKinds.values()].flat(), w);
    return contexts.map((c, i) => (kinds[i] instanceof Error ? (kinds[i] as Error) : pages.get(c.id)!));
  }

  /** Available groups by category, ordered as listForContext orders them (name, then id), batched per request. */
  private categoryGroups() {
    return this.ctx.loaders.get('groups:byCategory', () =>
      new DataLoader<number, Group[]>(async (ids) => {
        const rows = await this.ctx.ds
          .getRepository(Group)
          .createQueryBuilder('g')
          .where('g.group_category_id IN (:...ids) AND g.workflow_state = :available', { ids: [...ids], available: 'available' })
          .orderBy('g.group_category_id', 'ASC')
          .addOrderBy('g.name', 'ASC')
          .addOrderBy('g.id', 'ASC')
          .getMany();
        return ids.map((id) => rows.filter((g) => g.groupCategoryId === id));
      }),
    );
  }

  /** Groups of one category (GET /group_categories/:id/groups). */
  async listForCategory(categoryRaw: string, args: { first?: number | null; after?: string | null }): Promise<ConnectionResult<Group>> {
    const cat = await this.ctx.use(GroupCategoryService).find(categoryRaw);
    const context = (await loadContext(this.ctx, cat.contextType, cat.contextId))!;
    return this.listForContext(context.type, String(context.id), { ...args, categoryId: cat.id, collaborationState: cat.nonCollaborative ? 'non_collaborative' : 'collaborative' });
  }

  contextName(group: Group): Promise<string | null> {
    return group.contextType === 'Course'
      ? this.ctx.loaders.byId(Course).load(group.contextId).then((c) => c?.name ?? null)
      : this.ctx.loaders.byId(Account).load(group.contextId).then((a) => a?.name ?? null);
  }

  async concluded(group: Group): Promise<boolean> {
    if (group.contextType !== 'Course') return false;
    const course = await this.ctx.loaders.byId(Course).load(group.contextId);
    return !course || course.workflowState === 'deleted' || course.isConcluded();
  }
}

function permissionList(rights: GroupRights, names: string[]): { name: string; granted: boolean }[] {
  const table: Record<string, boolean> = {
    read: rights.read,
    read_roster: rights.readRoster,
    join: rights.join,
    update: rights.update,
    manage: rights.manage,
    delete: rights.delete,
    leave: rights.leave,
    create_discussion_topic: rights.createDiscussionTopic,
    create_announcement: rights.createAnnouncement,
    manage_files: rights.manageFiles,
    post_to_forum: rights.read,
    read_forum: rights.read,
    read_files: rights.read,
    read_sis: rights.readSis,
    manage_sis: rights.manageSis,
  };
  return names.map((name) => ({ name, granted: table[name] ?? false }));
}
