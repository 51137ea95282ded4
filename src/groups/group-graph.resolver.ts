import { Args, ClassType, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { AccountType } from '../accounts/account.types';
import { orRefused } from '../common/visible';
import { CourseType } from '../courses/course.types';
import type { RequestContext } from '../request/context';
import { ConnectionArgs, MAX_PAGE_SIZE } from '../common/relay';
import { User } from '../users/user.entity';
import { UserType } from '../users/user.types';
import { GroupCategoryConnection } from './group-category.types';
import { GroupMembershipConnection, MembershipsArgs } from './group-membership.types';
import { Group } from './group.entity';
import { ContextGroupsArgs, GroupConnection, GroupType, ViewerGroupsArgs } from './group.types';
import { ListBound } from '../common/list-bounds';
import { GroupListService } from './group-list.service';
import { GroupCategoryService } from './group-category.service';
import { GroupMembershipService } from './group-membership.service';

/**
 * The groups part of the navigable graph. Each field runs the top-level query's service call with the
 * parent's id (contextGroupsConnection, groupSetsConnection, groupMembershipsConnection,
 * viewerGroupsConnection); a list the caller may not see is null.
 */

/** A context's groups and group sets (Course's, Account's): the top-level queries run with the parent's id. */
function ContextGroupsFields(contextType: 'Course' | 'Account', parent: ClassType, description: { groups: string; groupSets: string }) {
  @Resolver(() => parent)
  abstract class ContextGroupsFields {
    @FieldResolver(() => GroupConnection, { nullable: true, description: description.groups })
    groupsConnection(@Root() c: { id: number }, @Args() args: ContextGroupsArgs, @Ctx() ctx: RequestContext) {
      return orRefused(() => ctx.use(GroupListService).listForContext(contextType, String(c.id), args));
    }

    @FieldResolver(() => GroupCategoryConnection, { nullable: true, description: description.groupSets })
    groupSetsConnection(@Root() c: { id: number }, @Args() args: ConnectionArgs, @Ctx() ctx: RequestContext) {
      return orRefused(() => ctx.use(GroupCategoryService).listForContext(contextType, String(c.id), args));
    }
  }
  return ContextGroupsFields;
}

@Resolver(() => CourseType)
export class CourseGroupsResolver extends ContextGroupsFields('Course', CourseType, {
  groups: 'Groups of the course (as contextGroupsConnection); null unless the viewer may list them.',
  groupSets: 'Group sets of the course (as groupSetsConnection); null unless the viewer may list them.',
}) {}

@Resolver(() => AccountType)
export class AccountGroupsResolver extends ContextGroupsFields('Account', AccountType, {
  groups: 'Groups of the account (as contextGroupsConnection).',
  groupSets: 'Group sets of the account (as groupSetsConnection).',
}) {}

@Resolver(() => GroupType)
export class GroupMembersResolver {
  @FieldResolver(() => GroupMembershipConnection, { nullable: true, description: 'Canvas’s name for membershipsConnection: the group’s memberships; null unless the viewer may read the roster.' })
  membersConnection(@Root() g: Group, @Args() args: MembershipsArgs, @Ctx() ctx: RequestContext) {
    return orRefused(() => ctx.use(GroupMembershipService).list(String(g.id), args));
  }
}

/** A user's own lists are theirs alone: null for anyone else, as the viewer-only top-level queries answer. */
const isViewer = (ctx: RequestContext, u: User) => ctx.viewer != null && ctx.viewer.id === u.id;

@Resolver(() => UserType)
export class UserGroupsResolver {
  @FieldResolver(() => GroupConnection, { nullable: true, description: "The user's groups (as viewerGroupsConnection); only for the user themself." })
  groupsConnection(@Root() u: User, @Args() args: ViewerGroupsArgs, @Ctx() ctx: RequestContext) {
    return isViewer(ctx, u) ? orRefused(() => ctx.use(GroupListService).listForViewer(args)) : null;
  }

  @ListBound(MAX_PAGE_SIZE)
  @FieldResolver(() => [GroupType], { nullable: true, description: `Canvas's User.groups: the first ${MAX_PAGE_SIZE} of groupsConnection; only for the user themself.` })
  async groups(@Root() u: User, @Ctx() ctx: RequestContext): Promise<Group[] | null> {
    if (!isViewer(ctx, u)) return null;
    return (await orRefused(() => ctx.use(GroupListService).listForViewer({ first: MAX_PAGE_SIZE })))?.nodes ?? null;
  }
}

export const groupGraphResolvers = [CourseGroupsResolver, AccountGroupsResolver, GroupMembersResolver, UserGroupsResolver] as const;
