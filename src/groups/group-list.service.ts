import DataLoader from 'dataloader';
import { Brackets } from 'typeorm';
import { ForbiddenError, ValidationError } from '../common/errors';
import { ConnectionResult, pageWindow, toConnection } from '../common/relay';
import { pagePerParent, settleEach } from '../db/page-per-parent';
import type { RequestContext } from '../request/context';
import { GroupCategoryService } from './group-category.service';
import { GroupContext, loadContext, lookupContext } from './group-context';
import { GroupMembership } from './group-membership.entity';
import { contextGroupPage } from './group-page';
import { GroupPolicy } from './group-policy';
import { Group } from './group.entity';

/** Lists of groups: the viewer's groups, a course's or account's groups, a category's groups. */
export class GroupListService {
  constructor(private readonly ctx: RequestContext) {}

  private get policy() {
    return this.ctx.use(GroupPolicy);
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
}
