import { Brackets } from 'typeorm';
import { ForbiddenError, ValidationError } from '../common/errors';
import { keyWindow } from '../common/keyset';
import { ConnectionResult } from '../common/relay';
import { pagePerParent, settleEach } from '../db/page-per-parent';
import type { RequestContext } from '../request/context';
import { GroupCategoryService } from './group-category.service';
import { GroupContext, loadContext, lookupContext } from './group-context';
import { GroupMembership } from './group-membership.entity';
import { CONTEXT_GROUP_ORDER, contextGroupPage } from './group-page';
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
    // A user's groups are few: the page is the user's accepted memberships, joined and sorted.
    const pages = await pagePerParent(qb, { expression: 'm.user_id' }, [['name', 'ASC'], ['id', 'ASC']], [viewer.id], { first: args.first, after: args.after });
    return pages.get(viewer.id)!;
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
    if (args.categoryId != null && !args.onlyOwnGroups) {
      const kinds = await this.listKinds(context, state);
      // One category's groups (GroupSet.groupsConnection, GET /group_categories/:id/groups): a page per
      // category for every category asked in this request, in one batch.
      const page = { first: args.first, after: args.after };
      return this.ctx.loaders.perParent(`groups:byCategory:${kinds.join(',')}`, page, (cats: readonly { id: number }[]) => this.categoryPages(cats.map((c) => c.id), kinds, page)).load({ id: args.categoryId });
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
    const w = keyWindow(args, CONTEXT_GROUP_ORDER.length);
    const memberId = args.onlyOwnGroups ? viewer.id : null;
    if (contexts.length === 1) {
      if (kinds[0] instanceof Error) return [kinds[0]];
      const c = contexts[0];
      return [await contextGroupPage(this.ctx.ds, { contextType: c.type, contextId: c.id, kinds: kinds[0], categoryId: args.categoryId, memberId }, w)];
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

  /** Available groups of each category by name and id: key set pages from the (category, name, id) index. */
  private async categoryPages(catIds: number[], kinds: boolean[], page: { first?: number | null; after?: string | null }): Promise<ConnectionResult<Group>[]> {
    const qb = this.ctx.ds
      .getRepository(Group)
      .createQueryBuilder('g')
      .where('g.workflow_state = :available', { available: 'available' })
      .andWhere('g.non_collaborative IN (:...kinds)', { kinds });
    const pages = await pagePerParent(qb, 'group_category_id', [['name', 'ASC'], ['id', 'ASC']], catIds, page);
    return catIds.map((id) => pages.get(id)!);
  }

  /** Groups of one category (GET /group_categories/:id/groups). */
  async listForCategory(categoryRaw: string, args: { first?: number | null; after?: string | null }): Promise<ConnectionResult<Group>> {
    const cat = await this.ctx.use(GroupCategoryService).find(categoryRaw);
    const context = (await loadContext(this.ctx, cat.contextType, cat.contextId))!;
    return this.listForContext(context.type, String(context.id), { ...args, categoryId: cat.id, collaborationState: cat.nonCollaborative ? 'non_collaborative' : 'collaborative' });
  }
}
