import { Brackets, EntityManager, In, Not } from 'typeorm';
import { ForbiddenError, NotFoundError, RequestError, ValidationError, Validator } from '../common/errors';
import { parseIdParam } from '../common/ids';
import { nowToSecond } from '../db/columns';
import { pagePerParent, settleEach } from '../db/page-per-parent';
import { transaction } from '../db/transaction';
import type { RequestContext } from '../request/context';
import { ConnectionResult } from '../common/relay';
import { CategoryRole, GroupCategory } from './group-category.entity';
import { GroupContext, loadContext, lookupContext } from './group-context';
import { Group } from './group.entity';
import { GroupMembership } from './group-membership.entity';
import { GroupPolicy } from './group-policy';

export interface CategoryInput {
  name?: string | null;
  selfSignup?: string | null;
  groupLimit?: number | null;
  autoLeader?: string | null;
  nonCollaborative?: boolean | null;
  sisGroupCategoryId?: string | null;
  createGroupCount?: number | null;
}

const BUILT_IN_NAMES: Record<CategoryRole, string> = {
  student_organized: 'Student Groups',
  communities: 'Communities',
  imported: 'Imported Groups',
};

export class GroupCategoryService {
  constructor(private readonly ctx: RequestContext) {}

  /** The context's built-in category of a role (student-organized groups, communities), created on first use. */
  async builtIn(context: GroupContext, role: CategoryRole): Promise<GroupCategory> {
    const existing = await this.ctx.ds.getRepository(GroupCategory).findOneBy({ contextType: context.type, contextId: context.id, role, workflowState: 'active' });
    if (existing) return existing;
    return transaction(this.ctx.ds, (em) => GroupCategoryService.builtInIn(em, context, role));
  }

  /** builtIn inside a transaction already open (also used by the demo seed). */
  static async builtInIn(em: EntityManager, context: Pick<GroupContext, 'type' | 'id' | 'rootAccountId'>, role: CategoryRole): Promise<GroupCategory> {
    const repo = em.getRepository(GroupCategory);
    const existing = await repo.findOneBy({ contextType: context.type, contextId: context.id, role, workflowState: 'active' });
    if (existing) return existing;
    return repo.save(
      repo.create({
        contextType: context.type,
        contextId: context.id,
        rootAccountId: context.rootAccountId,
        name: BUILT_IN_NAMES[role],
        role,
        selfSignup: null,
        groupLimit: null,
        autoLeader: null,
        nonCollaborative: false,
        sisGroupCategoryId: null,
        sisImportId: null,
        workflowState: 'active',
        deletedAt: null,
      }),
    );
  }

  /** A live category by id or sis_group_category_id:, with no permission check. */
  async lookup(raw: string | number): Promise<GroupCategory> {
    const p = parseIdParam(raw, ['sis_group_category_id']);
    const cat =
      p.kind === 'id'
        ? await this.ctx.loaders.byId(GroupCategory).load(p.id)
        : await this.ctx.ds.getRepository(GroupCategory).findOneBy({ sisGroupCategoryId: p.kind === 'prefixed' ? p.value : '' });
    if (!cat || cat.workflowState === 'deleted') throw new NotFoundError();
    return cat;
  }

  /** Who may see a category: context admins; for collaborative ones also people of the course roster. */
  async canRead(cat: GroupCategory): Promise<boolean> {
    const policy = this.ctx.use(GroupPolicy);
    if (await policy.isContextAdmin(cat.contextType, cat.contextId, cat.nonCollaborative)) return true;
    if (cat.nonCollaborative) return false;
    // Every user may start a community group in the built-in communities category, so it hides nothing.
    if (cat.isCommunities) return this.ctx.viewer != null;
    return this.canReadRosterOf(cat.contextType, cat.contextId);
  }

  private async canReadRosterOf(type: string, id: number): Promise<boolean> {
    const context = await loadContext(this.ctx, type as 'Course' | 'Account', id);
    if (!context?.course) return false;
    return this.ctx.authz.canCourse(context.course, 'read_roster');
  }

  async find(raw: string | number): Promise<GroupCategory> {
    const cat = await this.lookup(raw);
    this.ctx.authz.requireViewer();
    if (!(await this.canRead(cat))) throw new ForbiddenError();
    return cat;
  }

  private async assertManage(context: GroupContext, nonCollaborative: boolean): Promise<void> {
    this.ctx.authz.requireViewer();
    if (context.course && !(await this.ctx.authz.canCourse(context.course, 'read'))) throw new ForbiddenError();
    if (!(await this.ctx.use(GroupPolicy).isContextAdmin(context.type, context.id, nonCollaborative))) throw new ForbiddenError();
  }

  private async validate(context: GroupContext, input: CategoryInput, existing?: GroupCategory): Promise<void> {
    const v = new Validator();
    if (input.name !== undefined || !existing) {
      const name = (input.name ?? '').trim();
      v.check(name.length > 0, 'name', 'blank', 'Name is required');
      v.check(name.length <= 255, 'name', 'too_long', 'Enter a shorter category name');
      if (Object.values(BUILT_IN_NAMES).includes(name) && !existing?.isProtected) v.add('name', 'invalid', `${name} is a reserved name.`);
      if (name) {
        const clash = await this.ctx.ds.getRepository(GroupCategory).findOneBy({
          contextType: context.type,
          contextId: context.id,
          name,
          workflowState: 'active',
          ...(existing ? { id: Not(existing.id) } : {}),
        });
        if (clash) v.add('name', 'taken', `${name} is already in use.`);
      }
    }
    if (input.selfSignup != null && input.selfSignup !== '') {
      v.check(['enabled', 'restricted'].includes(input.selfSignup), 'self_signup', 'inclusion', 'self_signup must be enabled or restricted');
      v.check(context.type === 'Course', 'self_signup', 'invalid', 'self signup is only available for course categories');
    }
    if (input.groupLimit != null) {
      v.check(input.groupLimit > 1, 'group_limit', 'greater_than', 'Must be greater than 1');
      v.check(context.type === 'Course', 'group_limit', 'invalid', 'group limits are only available for course categories');
    }
    if (input.autoLeader != null && input.autoLeader !== '') {
      v.check(['first', 'random'].includes(input.autoLeader), 'auto_leader', 'inclusion', 'auto_leader must be first or random');
    }
    if (input.nonCollaborative) v.check(context.type === 'Course', 'non_collaborative', 'invalid', 'differentiation tags belong to courses');
    if (input.createGroupCount != null) v.check(input.createGroupCount >= 0 && input.createGroupCount <= 200, 'create_group_count', 'invalid', 'must be between 0 and 200');
    if (input.sisGroupCategoryId) {
      const clash = await this.ctx.ds.getRepository(GroupCategory).findOneBy({
        rootAccountId: context.rootAccountId,
        sisGroupCategoryId: input.sisGroupCategoryId,
        ...(existing ? { id: Not(existing.id) } : {}),
      });
      if (clash) v.add('sis_group_category_id', 'taken', `SIS ID "${input.sisGroupCategoryId}" is already in use`);
    }
    v.throwIfInvalid();
  }

  async create(contextType: string, contextRaw: string, input: CategoryInput): Promise<{ groupCategory: GroupCategory }> {
    const context = await lookupContext(this.ctx, contextType, contextRaw);
    await this.assertManage(context, Boolean(input.nonCollaborative));
    await this.validate(context, input);
    const manageSis = context.course ? await this.ctx.authz.canCourse(context.course, 'manage_sis') : true;
    if (input.sisGroupCategoryId && !manageSis) {
      throw new RequestError('You must have manage_sis permission to set sis attributes', 401);
    }
    return transaction(this.ctx.ds, async (em) => {
      const cat = await em.getRepository(GroupCategory).save(
        em.getRepository(GroupCategory).create({
          contextType: context.type,
          contextId: context.id,
          rootAccountId: context.rootAccountId,
          name: input.name!.trim(),
          role: null,
          selfSignup: (input.selfSignup || null) as GroupCategory['selfSignup'],
          groupLimit: input.groupLimit ?? null,
          autoLeader: (input.autoLeader || null) as GroupCategory['autoLeader'],
          nonCollaborative: Boolean(input.nonCollaborative),
          sisGroupCategoryId: input.sisGroupCategoryId || null,
          sisImportId: null,
          workflowState: 'active',
          deletedAt: null,
        }),
      );
      for (let i = 1; i <= (input.createGroupCount ?? 0); i++) {
        await em.getRepository(Group).save(
          em.getRepository(Group).create({
            contextType: cat.contextType,
            contextId: cat.contextId,
            rootAccountId: cat.rootAccountId,
            groupCategoryId: cat.id,
            name: `${cat.name} ${i}`,
            description: null,
            isPublic: false,
            joinLevel: 'invitation_only',
            maxMembership: null,
            storageQuotaMb: null,
            avatarAttachmentId: null,
            leaderId: null,
            sisGroupId: null,
            sisImportId: null,
            nonCollaborative: cat.nonCollaborative,
            stickyFields: null,
            workflowState: 'available',
            deletedAt: null,
          }),
        );
      }
      return { groupCategory: cat };
    });
  }

  async update(raw: string, input: CategoryInput): Promise<{ groupCategory: GroupCategory }> {
    const cat = await this.find(raw);
    const context = (await loadContext(this.ctx, cat.contextType, cat.contextId))!;
    await this.assertManage(context, cat.nonCollaborative);
    if (input.nonCollaborative != null && input.nonCollaborative !== cat.nonCollaborative) {
      throw ValidationError.of('non_collaborative', 'read_only', 'non_collaborative cannot be changed after creation');
    }
    await this.validate(context, input, cat);
    return transaction(this.ctx.ds, async (em) => {
      if (input.name != null && !cat.isProtected) cat.name = input.name.trim();
      if (input.selfSignup !== undefined) cat.selfSignup = (input.selfSignup || null) as GroupCategory['selfSignup'];
      if (input.groupLimit !== undefined) cat.groupLimit = input.groupLimit ?? null;
      if (input.autoLeader !== undefined) cat.autoLeader = (input.autoLeader || null) as GroupCategory['autoLeader'];
      if (input.sisGroupCategoryId !== undefined && (context.course ? await this.ctx.authz.canCourse(context.course, 'manage_sis') : true)) {
        cat.sisGroupCategoryId = input.sisGroupCategoryId || null;
      }
      await em.getRepository(GroupCategory).save(cat);
      return { groupCategory: cat };
    });
  }

  /** Soft-deletes the category, its groups and their memberships. Built-in categories stay. */
  async delete(raw: string): Promise<{ groupCategory: GroupCategory }> {
    const cat = await this.find(raw);
    const context = (await loadContext(this.ctx, cat.contextType, cat.contextId))!;
    await this.assertManage(context, cat.nonCollaborative);
    if (cat.isProtected) throw ValidationError.of('role', 'protected', 'Built-in group categories cannot be deleted');
    return transaction(this.ctx.ds, async (em) => {
      const now = nowToSecond();
      const groups = await em.getRepository(Group).findBy({ groupCategoryId: cat.id, workflowState: 'available' });
      if (groups.length) {
        await em.getRepository(GroupMembership).update({ groupId: In(groups.map((g) => g.id)) }, { workflowState: 'deleted' });
        await em.getRepository(Group).update({ id: In(groups.map((g) => g.id)) }, { workflowState: 'deleted', deletedAt: now });
      }
      cat.workflowState = 'deleted';
      cat.deletedAt = now;
      await em.getRepository(GroupCategory).save(cat);
      return { groupCategory: cat };
    });
  }

  /** Categories of a context the viewer may see, by name then id. */
  /** Group sets of a course or account, by name, for those who may list them. Batched across contexts (listForContexts). */
  async listForContext(contextType: string, contextRaw: string, args: { first?: number | null; after?: string | null }): Promise<ConnectionResult<GroupCategory>> {
    const context = await lookupContext(this.ctx, contextType, contextRaw);
    this.ctx.authz.requireViewer();
    return this.ctx.loaders.perParent(`groupSets:${context.type}`, args, (contexts: readonly GroupContext[]) => this.listForContexts(contexts, args)).load(context);
  }

  /**
   * One page of group sets per context (all of one type) in one statement pair: the roster's sets for
   * those who may read it, non-collaborative ones for tag admins; a context the viewer may list
   * neither of is refused alone.
   */
  async listForContexts(contexts: readonly GroupContext[], args: { first?: number | null; after?: string | null }): Promise<(ConnectionResult<GroupCategory> | Error)[]> {
    const policy = this.ctx.use(GroupPolicy);
    const rights = await settleEach(contexts, async (context) => {
      const [admin, tagAdmin] = await Promise.all([policy.isContextAdmin(context.type, context.id, false), policy.isContextAdmin(context.type, context.id, true)]);
      const roster = admin || (context.course ? await this.ctx.authz.canCourse(context.course, 'read_roster') : false);
      if (!roster && !tagAdmin) throw new ForbiddenError();
      return { roster, tagAdmin };
    });
    const ok = (i: number) => (rights[i] instanceof Error ? null : (rights[i] as { roster: boolean; tagAdmin: boolean }));
    const rosterIds = contexts.filter((_, i) => ok(i)?.roster).map((c) => c.id);
    const tagIds = contexts.filter((_, i) => ok(i)?.tagAdmin).map((c) => c.id);
    const qb = this.ctx.ds
      .getRepository(GroupCategory)
      .createQueryBuilder('gc')
      .where('gc.context_type = :type AND gc.workflow_state = :active', { type: contexts[0]?.type, active: 'active' })
      .andWhere(
        new Brackets((b) => {
          b.where('1 = 0');
          if (rosterIds.length) b.orWhere('(gc.non_collaborative = 0 AND gc.context_id IN (:...rosterIds))', { rosterIds });
          if (tagIds.length) b.orWhere('(gc.non_collaborative = 1 AND gc.context_id IN (:...tagIds))', { tagIds });
        }),
      );
    const readable = contexts.filter((_, i) => ok(i)).map((c) => c.id);
    const pages = await pagePerParent(qb, 'context_id', [['name', 'ASC'], ['id', 'ASC']], readable, args);
    return contexts.map((c, i) => (rights[i] instanceof Error ? (rights[i] as Error) : pages.get(c.id)!));
  }
}
