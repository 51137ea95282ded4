import { Args, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { Account } from '../accounts/account.entity';
import { AccountType } from '../accounts/account.types';
import { orRefused } from '../common/visible';
import { Course } from '../courses/course.entity';
import { CourseType } from '../courses/course.types';
import type { RequestContext } from '../graphql/context';
import { ConnectionArgs, MAX_PAGE_SIZE } from '../graphql/relay';
import { User } from '../users/user.entity';
import { UserType } from '../users/user.types';
import { GroupCategoryConnection } from './group-category.types';
import { GroupMembershipConnection, MembershipsArgs } from './group-membership.types';
import { Group } from './group.entity';
import { ContextGroupsArgs, GroupConnection, GroupType, ViewerGroupsArgs } from './group.types';

/**
 * The groups part of the navigable graph. Each field runs the top-level query's service call with the
 * parent's id (contextGroupsConnection, groupSetsConnection, groupMembershipsConnection,
 * viewerGroupsConnection); a list the caller may not see is null.
 */

@Resolver(() => CourseType)
export class CourseGroupsResolver {
  @FieldResolver(() => GroupConnection, { nullable: true, description: 'Groups of the course (as contextGroupsConnection); null unless the viewer may list them.' })
  groupsConnection(@Root() c: Course, @Args() args: ContextGroupsArgs, @Ctx() ctx: RequestContext) {
    return orRefused(() => ctx.services.groups.listForContext('Course', String(c.id), args));
  }

  @FieldResolver(() => GroupCategoryConnection, { nullable: true, description: 'Group sets of the course (as groupSetsConnection); null unless the viewer may list them.' })
  groupSetsConnection(@Root() c: Course, @Args() args: ConnectionArgs, @Ctx() ctx: RequestContext) {
    return orRefused(() => ctx.services.groupCategories.listForContext('Course', String(c.id), args));
  }
}

@Resolver(() => AccountType)
export class AccountGroupsResolver {
  @FieldResolver(() => GroupConnection, { nullable: true, description: 'Groups of the account (as contextGroupsConnection).' })
  groupsConnection(@Root() a: Account, @Args() args: ContextGroupsArgs, @Ctx() ctx: RequestContext) {
    return orRefused(() => ctx.services.groups.listForContext('Account', String(a.id), args));
  }

  @FieldResolver(() => GroupCategoryConnection, { nullable: true, description: 'Group sets of the account (as groupSetsConnection).' })
  groupSetsConnection(@Root() a: Account, @Args() args: ConnectionArgs, @Ctx() ctx: RequestContext) {
    return orRefused(() => ctx.services.groupCategories.listForContext('Account', String(a.id), args));
  }
}

@Resolver(() => GroupType)
export class GroupMembersResolver {
  @FieldResolver(() => GroupMembershipConnection, { nullable: true, description: 'Canvas’s name for membershipsConnection: the group’s memberships; null unless the viewer may read the roster.' })
  membersConnection(@Root() g: Group, @Args() args: MembershipsArgs, @Ctx() ctx: RequestContext) {
    return orRefused(() => ctx.services.groupMemberships.list(String(g.id), args));
  }
}

/** A user's own lists are theirs alone: null for anyone else, as the viewer-only top-level queries answer. */
const isViewer = (ctx: RequestContext, u: User) => ctx.viewer != null && ctx.viewer.id === u.id;

@Resolver(() => UserType)
export class UserGroupsResolver {
  @FieldResolver(() => GroupConnection, { nullable: true, description: "The user's groups (as viewerGroupsConnection); only for the user themself." })
  groupsConnection(@Root() u: User, @Args() args: ViewerGroupsArgs, @Ctx() ctx: RequestContext) {
    return isViewer(ctx, u) ? orRefused(() => ctx.services.groups.listForViewer(args)) : null;
  }

  @FieldResolver(() => [GroupType], { nullable: true, description: `Canvas's User.groups: the first ${MAX_PAGE_SIZE} of groupsConnection; only for the user themself.` })
  async groups(@Root() u: User, @Ctx() ctx: RequestContext): Promise<Group[] | null> {
    if (!isViewer(ctx, u)) return null;
    return (await orRefused(() => ctx.services.groups.listForViewer({ first: MAX_PAGE_SIZE })))?.nodes ?? null;
  }
}

export const groupGraphResolvers = [CourseGroupsResolver, AccountGroupsResolver, GroupMembersResolver, UserGroupsResolver] as const;
