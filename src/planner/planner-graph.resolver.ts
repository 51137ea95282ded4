import { Args, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { orRefused } from '../common/visible';
import type { RequestContext } from '../request/context';
import { ConnectionArgs } from '../common/relay';
import { User } from '../users/user.entity';
import { UserType } from '../users/user.types';
import { PlannerItemConnection, PlannerItemsFilterArgs, PlannerNoteConnection, PlannerNotesArgs, PlannerOverrideConnection } from './planner.types';
import { PlannerItemsService } from './planner-items.service';
import { PlannerNoteService } from './planner-note.service';
import { PlannerOverrideService } from './planner-override.service';

/**
 * A user's planner in the graph. Items run plannerItems(userId:) (the user themself, or an observer of
 * theirs); notes and overrides are personal, as plannerNotes/plannerOverrides are: null for anyone else.
 */
@Resolver(() => UserType)
export class UserPlannerResolver {
  @FieldResolver(() => PlannerItemConnection, { nullable: true, description: "The user's planner (as plannerItems(userId:)); null unless the viewer may see it." })
  plannerItemsConnection(@Root() u: User, @Args() args: PlannerItemsFilterArgs, @Ctx() ctx: RequestContext) {
    const self = ctx.viewer?.id === u.id;
    return orRefused(() => ctx.use(PlannerItemsService).list({ ...args, userId: self ? null : String(u.id) }));
  }

  @FieldResolver(() => PlannerNoteConnection, { nullable: true, description: "The user's planner notes (as plannerNotes); only for the user themself." })
  plannerNotesConnection(@Root() u: User, @Args() args: PlannerNotesArgs, @Ctx() ctx: RequestContext) {
    return ctx.viewer?.id === u.id ? orRefused(() => ctx.use(PlannerNoteService).list(args)) : null;
  }

  @FieldResolver(() => PlannerOverrideConnection, { nullable: true, description: "The user's planner overrides (as plannerOverrides); only for the user themself." })
  plannerOverridesConnection(@Root() u: User, @Args() args: ConnectionArgs, @Ctx() ctx: RequestContext) {
    return ctx.viewer?.id === u.id ? orRefused(() => ctx.use(PlannerOverrideService).list(args)) : null;
  }
}
