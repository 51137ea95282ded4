import { Arg, Args, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { orHidden } from '../common/visible';
import type { RequestContext } from '../request/context';
import { NodeResolver, NodeType, registerNode } from '../api/graphql/node';
import { mutationPayload } from '../api/graphql/payload';
import { idArg } from '../common/relay';
import { User } from '../users/user.entity';
import { UserConnection, UserType } from '../users/user.types';
import { GroupCategoryType } from './group-category.types';
import { GroupCategory } from './group-category.entity';
import { GroupMembershipConnection, MembershipsArgs } from './group-membership.types';
import { Group } from './group.entity';
import {
  ContextGroupsArgs,
  CreateGroupInput,
  GroupConnection,
  GroupPayload,
  GroupPermissionType,
  GroupType,
  GroupUsersArgs,
  UpdateGroupInput,
  ViewerGroupsArgs,
} from './group.types';
import { ListBound } from '../common/list-bounds';
import { GroupService } from './group.service';
import { GroupDetailsService } from './group-details.service';
import { GroupListService } from './group-list.service';
import { GroupRosterService } from './group-roster.service';
import { GroupMembershipService } from './group-membership.service';
import { GroupAvatarService } from './group-avatar.service';
import { GroupCategoryService } from './group-category.service';

registerNode(NodeType.Group, Group, (ctx, id) => ctx.use(GroupService).show(id));

export const groupIdArg = (id: string) => idArg(id, 'Group');

@Resolver(() => GroupType)
export class GroupResolver extends NodeResolver(NodeType.Group, GroupType) {
  @Query(() => GroupType, { description: 'A group the viewer may see: id, global id or sis_group_id:…' })
  group(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<Group> {
    return ctx.use(GroupService).show(groupIdArg(id));
  }

  @Query(() => GroupConnection, { description: "The viewer's groups (accepted memberships), by name." })
  viewerGroupsConnection(@Args() args: ViewerGroupsArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(GroupListService).listForViewer(args);
  }

  @Query(() => GroupConnection, { description: 'Groups of a course or account.' })
  contextGroupsConnection(
    @Arg('contextType', { description: 'Course or Account' }) contextType: string,
    @Arg('contextId', () => ID) contextId: string,
    @Args() args: ContextGroupsArgs,
    @Ctx() ctx: RequestContext,
  ) {
    const id = idArg(contextId, contextType);
    return ctx.use(GroupListService).listForContext(contextType, id, args);
  }

  @Query(() => UserConnection, { description: 'Accepted members of a group, by sortable name.' })
  groupUsersConnection(@Arg('groupId', () => ID) groupId: string, @Args() args: GroupUsersArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(GroupRosterService).users(groupIdArg(groupId), args);
  }

  @Query(() => GroupMembershipConnection, { description: 'Memberships of a group (accepted, invited, requested).' })
  groupMembershipsConnection(@Arg('groupId', () => ID) groupId: string, @Args() args: MembershipsArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(GroupMembershipService).list(groupIdArg(groupId), args);
  }

  @ListBound(100)
  @Query(() => [GroupPermissionType], { description: "The viewer's rights on a group, for the names asked." })
  groupPermissions(@Arg('groupId', () => ID) groupId: string, @Arg('names', () => [String]) names: string[], @Ctx() ctx: RequestContext) {
    return ctx.use(GroupDetailsService).permissions(groupIdArg(groupId), names);
  }

  @Query(() => String, { description: 'HTML as the group would store it: invalid and unsafe markup removed.' })
  previewGroupHtml(@Arg('groupId', () => ID) groupId: string, @Arg('html', () => String, { nullable: true }) html: string | null, @Ctx() ctx: RequestContext) {
    return ctx.use(GroupDetailsService).previewHtml(groupIdArg(groupId), html);
  }

  @Mutation(() => GroupPayload, { description: 'Creates a group in a category, or a community group without one.' })
  createGroup(@Arg('input') input: CreateGroupInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() =>
      input.groupCategoryId ? ctx.use(GroupService).createInCategory(idArg(input.groupCategoryId, 'GroupSet'), input) : ctx.use(GroupService).createCommunity(input),
    );
  }

  @Mutation(() => GroupPayload)
  updateGroup(@Arg('input') input: UpdateGroupInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(GroupService).update(groupIdArg(input.id), input));
  }

  @Mutation(() => GroupPayload, { description: 'Deletes the group and removes all members.' })
  deleteGroup(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(GroupService).delete(groupIdArg(id)));
  }

  @FieldResolver(() => Boolean)
  followedByUser(): boolean {
    return false;
  }

  @FieldResolver(() => Int)
  membersCount(@Root() g: Group, @Ctx() ctx: RequestContext): Promise<number> {
    return ctx.use(GroupMembershipService).membersCount(g);
  }

  @FieldResolver(() => String, { nullable: true })
  avatarUrl(@Root() g: Group, @Ctx() ctx: RequestContext): Promise<string | null> | null {
    return ctx.use(GroupAvatarService).url(g);
  }

  @FieldResolver(() => String, { nullable: true })
  contextName(@Root() g: Group, @Ctx() ctx: RequestContext): Promise<string | null> {
    return ctx.use(GroupDetailsService).contextName(g);
  }

  @FieldResolver(() => String, { nullable: true })
  role(@Root() g: Group, @Ctx() ctx: RequestContext): Promise<string | null> {
    return ctx.use(GroupDetailsService).role(g);
  }

  @FieldResolver(() => GroupCategoryType, { nullable: true, description: 'Null unless the viewer may see the category itself (as groupSet(id:) checks).' })
  groupCategory(@Root() g: Group, @Ctx() ctx: RequestContext): Promise<GroupCategory | null> {
    return orHidden(ctx.use(GroupCategoryService).find(g.groupCategoryId));
  }

  @FieldResolver(() => String, { nullable: true })
  async sisGroupId(@Root() g: Group, @Ctx() ctx: RequestContext): Promise<string | null> {
    return (await ctx.use(GroupService).rights(g)).readSis ? g.sisGroupId : null;
  }

  @FieldResolver(() => Int, { nullable: true })
  async sisImportId(@Root() g: Group, @Ctx() ctx: RequestContext): Promise<number | null> {
    return (await ctx.use(GroupService).rights(g)).manageSis ? g.sisImportId : null;
  }

  @FieldResolver(() => Int)
  storageQuotaMb(@Root() g: Group): number {
    return g.quotaMb;
  }

  @FieldResolver(() => Boolean)
  concluded(@Root() g: Group, @Ctx() ctx: RequestContext): Promise<boolean> | boolean {
    return ctx.use(GroupDetailsService).concluded(g);
  }

  @FieldResolver(() => UserType, { nullable: true, description: 'Null unless the viewer may read the group roster.' })
  leader(@Root() g: Group, @Ctx() ctx: RequestContext): Promise<User | null> | null {
    return ctx.use(GroupRosterService).leader(g);
  }

  @ListBound(1000)
  @FieldResolver(() => [UserType], { description: 'Accepted members, capped at 1000; membershipsConnection lists everyone. Empty unless the viewer may list the group users.' })
  users(@Root() g: Group, @Ctx() ctx: RequestContext): Promise<User[]> {
    return ctx.use(GroupRosterService).embeddedUsers(g);
  }

  @ListBound(100)
  @FieldResolver(() => [GroupPermissionType], { description: "The viewer's rights: create_discussion_topic, join, create_announcement unless names are given." })
  permissions(@Root() g: Group, @Arg('names', () => [String], { nullable: true }) names: string[] | null, @Ctx() ctx: RequestContext) {
    return ctx.use(GroupDetailsService).permissionsOf(g, names ?? ['create_discussion_topic', 'join', 'create_announcement']);
  }

  @FieldResolver(() => GroupMembershipConnection)
  membershipsConnection(@Root() g: Group, @Args() args: MembershipsArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(GroupMembershipService).list(String(g.id), args);
  }

  @FieldResolver(() => UserConnection, { description: 'Accepted members, by sortable name.' })
  usersConnection(@Root() g: Group, @Args() args: GroupUsersArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(GroupRosterService).users(String(g.id), args);
  }
}
