import { Arg, Args, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { In } from 'typeorm';
import DataLoader from 'dataloader';
import type { RequestContext } from '../request/context';
import { NodeResolver, NodeType, registerNode } from '../api/graphql/node';
import { mutationPayload } from '../api/graphql/payload';
import { idArg, ConnectionArgs } from '../common/relay';
import { GroupCategory } from './group-category.entity';
import {
  CreateGroupCategoryInput,
  GroupCategoryConnection,
  GroupCategoryPayload,
  GroupCategoryType,
  UpdateGroupCategoryInput,
} from './group-category.types';
import { Group } from './group.entity';
import { GroupConnection } from './group.types';
import { GroupCategoryService } from './group-category.service';
import { GroupListService } from './group-list.service';

registerNode(NodeType.GroupSet, GroupCategory, (ctx, id) => ctx.use(GroupCategoryService).find(id));

const categoryIdArg = (id: string) => idArg(id, 'GroupSet');

@Resolver(() => GroupCategoryType)
export class GroupCategoryResolver extends NodeResolver(NodeType.GroupSet, GroupCategoryType) {
  @Query(() => GroupCategoryType, { description: 'A group category (group set) by id, global id or sis_group_category_id:…' })
  groupSet(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext) {
    return ctx.use(GroupCategoryService).find(categoryIdArg(id));
  }

  @Query(() => GroupCategoryConnection, { description: 'Group categories of a course or account.' })
  groupSetsConnection(
    @Arg('contextType', { description: 'Course or Account' }) contextType: string,
    @Arg('contextId', () => ID) contextId: string,
    @Args() args: ConnectionArgs,
    @Ctx() ctx: RequestContext,
  ) {
    return ctx.use(GroupCategoryService).listForContext(contextType, idArg(contextId, contextType), args);
  }

  @Mutation(() => GroupCategoryPayload)
  createGroupSet(@Arg('input') input: CreateGroupCategoryInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() =>
      ctx.use(GroupCategoryService).create(input.contextType, idArg(input.contextId, input.contextType), input),
    );
  }

  @Mutation(() => GroupCategoryPayload)
  updateGroupSet(@Arg('input') input: UpdateGroupCategoryInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(GroupCategoryService).update(categoryIdArg(input.id), input));
  }

  @Mutation(() => GroupCategoryPayload, { description: 'Deletes the category and its groups.' })
  deleteGroupSet(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(GroupCategoryService).delete(categoryIdArg(id)));
  }

  @FieldResolver(() => Boolean)
  protected(@Root() c: GroupCategory): boolean {
    return c.isProtected;
  }

  @FieldResolver(() => Boolean)
  allowsMultipleMemberships(@Root() c: GroupCategory): boolean {
    return c.allowsMultipleMemberships;
  }

  @FieldResolver(() => Boolean, { description: 'The viewer is in one of its groups.' })
  async isMember(@Root() c: GroupCategory, @Ctx() ctx: RequestContext): Promise<boolean> {
    const viewer = ctx.viewer;
    if (!viewer) return false;
    const loader = ctx.loaders.get('groupSets:viewerIsMember', () =>
      new DataLoader<number, boolean>(async (ids) => {
        const rows: { cat: number }[] = await ctx.ds
          .getRepository(Group)
          .createQueryBuilder('g')
          .select('DISTINCT g.group_category_id', 'cat')
          .innerJoin('group_memberships', 'm', "m.group_id = g.id AND m.user_id = :uid AND m.workflow_state = 'accepted'", { uid: viewer.id })
          .where('g.group_category_id IN (:...ids)', { ids: [...ids] })
          .andWhere("g.workflow_state = 'available'")
          .getRawMany();
        const set = new Set(rows.map((r) => Number(r.cat)));
        return ids.map((id) => set.has(id));
      }),
    );
    return loader.load(c.id);
  }

  @FieldResolver(() => Int, { description: 'Live groups in the category.' })
  groupsCount(@Root() c: GroupCategory, @Ctx() ctx: RequestContext): Promise<number> {
    const loader = ctx.loaders.get('groupSets:groupsCount', () =>
      new DataLoader<number, number>(async (ids) => {
        const rows = await ctx.ds.getRepository(Group).find({ select: { groupCategoryId: true }, where: { groupCategoryId: In([...ids]), workflowState: 'available' } });
        return ids.map((id) => rows.filter((r) => r.groupCategoryId === id).length);
      }),
    );
    return loader.load(c.id);
  }

  @FieldResolver(() => GroupConnection)
  groupsConnection(@Root() c: GroupCategory, @Args() args: ConnectionArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(GroupListService).listForCategory(String(c.id), args);
  }
}
