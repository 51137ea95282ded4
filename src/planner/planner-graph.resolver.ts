import { Args, ArgsType, Ctx, Field, FieldResolver, Resolver, Root } from 'type-graphql';
import { orRefused } from '../common/visible';
import type { RequestContext } from '../graphql/context';
import { ConnectionArgs } from '../graphql/relay';
import { User } from '../users/user.entity';
import { UserType } from '../users/user.types';
import { PlannerItemConnection, PlannerNoteConnection, PlannerNotesArgs, PlannerOverrideConnection } from './planner.types';

/** plannerItems' arguments without userId: the user is the parent object. */
@ArgsType()
export class UserPlannerItemsArgs extends ConnectionArgs {
  @Field(() => [String], { nullable: true, description: 'course_<id>, group_<id>, user_<id>; default all the user’s contexts.' })
  contextCodes?: string[] | null;
  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD or ISO 8601.' })
  startDate?: string | null;
  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD or ISO 8601.' })
  endDate?: string | null;
  @Field(() => String, { nullable: true, description: 'new_activity, incomplete_items, complete_items, ungraded_todo_items, all_ungraded_todo_items' })
  filter?: string | null;
  @Field(() => [String], { nullable: true, description: 'concluded: include concluded courses.' })
  include?: string[] | null;
  @Field(() => String, { nullable: true, description: 'asc (default) or desc' })
  order?: string | null;
}

/**
 * A user's planner in the graph. Items run plannerItems(userId:) (the user themself, or an observer of
 * theirs); notes and overrides are personal, as plannerNotes/plannerOverrides are: null for anyone else.
 */
@Resolver(() => UserType)
export class UserPlannerResolver {
  @FieldResolver(() => PlannerItemConnection, { nullable: true, description: "The user's planner (as plannerItems(userId:)); null unless the viewer may see it." })
  plannerItemsConnection(@Root() u: User, @Args() args: UserPlannerItemsArgs, @Ctx() ctx: RequestContext) {
    const self = ctx.viewer?.id === u.id;
    return orRefused(() => ctx.services.plannerItems.list({ ...args, userId: self ? null : String(u.id) }));
  }

  @FieldResolver(() => PlannerNoteConnection, { nullable: true, description: "The user's planner notes (as plannerNotes); only for the user themself." })
  plannerNotesConnection(@Root() u: User, @Args() args: PlannerNotesArgs, @Ctx() ctx: RequestContext) {
    return ctx.viewer?.id === u.id ? orRefused(() => ctx.services.plannerNotes.list(args)) : null;
  }

  @FieldResolver(() => PlannerOverrideConnection, { nullable: true, description: "The user's planner overrides (as plannerOverrides); only for the user themself." })
  plannerOverridesConnection(@Root() u: User, @Args() args: ConnectionArgs, @Ctx() ctx: RequestContext) {
    return ctx.viewer?.id === u.id ? orRefused(() => ctx.services.plannerOverrides.list(args)) : null;
  }
}
