import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { orHidden } from '../common/visible';
import type { RequestContext } from '../request/context';
import { NodeResolver, NodeType, registerNode } from '../api/graphql/node';
import { mutationPayload } from '../api/graphql/payload';
import { User } from '../users/user.entity';
import { UserType } from '../users/user.types';
import { groupIdArg } from './group.resolver';
import { Group } from './group.entity';
import { GroupType } from './group.types';
import { GroupMembership } from './group-membership.entity';
import {
  GroupMembershipType,
  InvitePayload,
  InviteToGroupInput,
  JoinGroupInput,
  MembershipPayload,
  MembershipRefInput,
  UpdateMembershipInput,
} from './group-membership.types';
import { GroupMembershipService } from './group-membership.service';
import { GroupService } from './group.service';

registerNode(NodeType.GroupMembership, GroupMembership, async (ctx, id) => {
  const m = await ctx.ds.getRepository(GroupMembership).findOneBy({ id });
  return m ? ctx.use(GroupMembershipService).show(String(m.groupId), { membershipId: String(id) }) : null;
});

type MembershipView = GroupMembership & { justCreated?: boolean };

@Resolver(() => GroupMembershipType)
export class GroupMembershipResolver extends NodeResolver(NodeType.GroupMembership, GroupMembershipType) {
  @Query(() => GroupMembershipType, { description: 'A membership by id or by user (`self` allowed in either).' })
  groupMembership(
    @Arg('groupId', () => ID) groupId: string,
    @Arg('membershipId', () => ID, { nullable: true }) membershipId: string | null,
    @Arg('userId', () => ID, { nullable: true }) userId: string | null,
    @Ctx() ctx: RequestContext,
  ) {
    return ctx.use(GroupMembershipService).show(groupIdArg(groupId), { membershipId, userId });
  }

  @Mutation(() => MembershipPayload, { description: 'Joins (or requests to join) a group, or adds a user as moderator/admin; tag bulk forms too.' })
  joinGroup(@Arg('input') input: JoinGroupInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(async () => {
      const r = await ctx.use(GroupMembershipService).join(groupIdArg(input.groupId), input);
      return {
        membership: r.membership ? Object.assign(r.membership, { justCreated: r.justCreated }) : null,
        added: r.bulk?.added,
        invalidUserIds: r.bulk?.invalidUserIds,
      };
    });
  }

  @Mutation(() => MembershipPayload, { description: 'Accepts a request or invitation, or sets moderator rights.' })
  updateGroupMembership(@Arg('input') input: UpdateMembershipInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(GroupMembershipService).update(groupIdArg(input.groupId), input, input));
  }

  @Mutation(() => MembershipPayload, { description: 'Leaves the group, or removes a member (moderators and admins).' })
  leaveGroup(@Arg('input') input: MembershipRefInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(GroupMembershipService).remove(groupIdArg(input.groupId), input));
  }

  @Mutation(() => InvitePayload, { description: 'Invites e-mail addresses to the group.' })
  inviteToGroup(@Arg('input') input: InviteToGroupInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(GroupService).invite(groupIdArg(input.groupId), input.invitees));
  }

  @FieldResolver(() => Boolean, { nullable: true })
  justCreated(@Root() m: MembershipView): boolean | null {
    return m.justCreated ?? null;
  }

  @FieldResolver(() => Int, { nullable: true })
  async sisImportId(@Root() m: GroupMembership, @Ctx() ctx: RequestContext): Promise<number | null> {
    const group = await ctx.loaders.byId(Group).load(m.groupId);
    return group && (await ctx.use(GroupService).rights(group)).manageSis ? m.sisImportId : null;
  }

  @FieldResolver(() => UserType, { nullable: true })
  user(@Root() m: GroupMembership, @Ctx() ctx: RequestContext): Promise<User | null> {
    return ctx.use(GroupMembershipService).userOf(m);
  }

  @FieldResolver(() => GroupType, { nullable: true, description: 'Null unless the viewer may see the group itself (as group(id:) checks).' })
  group(@Root() m: GroupMembership, @Ctx() ctx: RequestContext): Promise<Group | null> {
    return orHidden(ctx.use(GroupService).show(m.groupId));
  }
}
