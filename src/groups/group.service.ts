import { In } from 'typeorm';
import { ForbiddenError, RequestError, Validator } from '../common/errors';
import { nowToSecond } from '../db/columns';
import { transaction } from '../db/transaction';
import type { RequestContext } from '../request/context';
import { Pseudonym } from '../users/pseudonym.entity';
import { GroupCategory } from './group-category.entity';
import { accountContext, GroupContext, loadContext } from './group-context';
import { checkSisUnique, effectiveJoinLevel, GroupInput, resolveMembers, UpdateGroupInput, validateFields } from './group-input';
import { GroupInvitation } from './group-invitation.entity';
import { GroupMembership } from './group-membership.entity';
import type { GroupRights } from './group-policy';
import { Group, STICKY_FIELDS } from './group.entity';
import { GroupPolicy } from './group-policy';
import { GroupAccess } from './group-access';
import { AccountService } from '../accounts/account.service';
import { GroupCategoryService } from './group-category.service';
import { GroupAvatarService } from './group-avatar.service';
import { GroupMembershipService } from './group-membership.service';
import { memberSortName } from './member-sort-name';

export type { GroupInput, UpdateGroupInput } from './group-input';

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
    validateFields(input, v, true);
    const canSis = await this.canManageSisIn(context);
    if (input.sisGroupId && !canSis) throw new RequestError('You must have manage_sis permission to set sis attributes', 401);
    await checkSisUnique(this.ctx, v, context.rootAccountId, input.sisGroupId);
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
          joinLevel: effectiveJoinLevel(category, input.joinLevel),
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
          em.getRepository(GroupMembership).create({ groupId: group.id, userId: opts.creatorMembership, workflowState: 'accepted', moderator: Boolean(opts.moderator), sisImportId: null, sortableName: await memberSortName(em, opts.creatorMembership) }),
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
    validateFields(input, v, false);
    if (input.sisGroupId !== undefined && (input.sisGroupId ?? null) !== group.sisGroupId && !rights.manageSis) {
      throw new RequestError('You must have manage_sis permission to update sis attributes', 401);
    }
    await checkSisUnique(this.ctx, v, group.rootAccountId, input.sisGroupId, group);
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
    const memberIds = input.members != null ? await resolveMembers(this.ctx, group, input.members, v) : null;
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
    if (input.joinLevel != null) set('joinLevel', effectiveJoinLevel(category, input.joinLevel, group.joinLevel));
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

}
