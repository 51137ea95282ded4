import DataLoader from 'dataloader';
import { Arg, Args, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root, Subscription } from 'type-graphql';
import type { RequestContext } from '../request/context';
import { NodeResolver, NodeType, registerNode } from '../api/graphql/node';
import { mutationPayload } from '../api/graphql/payload';
import { channelId, PLANNER_CHANGED, PLANNER_NOTE_CHANGED } from './planner-events';
import type { PlannerChangePayload, PlannerNoteChangePayload } from './planner-events';
import { PlannerNote } from './planner-note.entity';
import { noteIdArg } from './planner-note.service';
import { PlannerOverride } from './planner-override.entity';
import { plannableRefs } from './planner-override.service';
import {
  CreatePlannerNoteInput,
  CreatePlannerOverrideInput,
  PlannerChangeType,
  PlannerItemConnection,
  PlannerItemsArgs,
  PlannerItemType,
  PlannerNoteChangeType,
  PlannerNoteConnection,
  PlannerNotePayload,
  PlannerNotesArgs,
  PlannerNoteType,
  PlannerOverrideConnection,
  PlannerOverridePayload,
  PlannerOverrideType,
  UpdatePlannerNoteInput,
  UpdatePlannerOverrideInput,
} from './planner.types';
import { ConnectionArgs } from '../common/relay';
import { PlannerNoteService } from './planner-note.service';
import { PlannerOverrideService } from './planner-override.service';
import { PlannerItemsService } from './planner-items.service';

registerNode(NodeType.PlannerNote, PlannerNote, (ctx, id) => ctx.use(PlannerNoteService).own(id));
registerNode(NodeType.PlannerOverride, PlannerOverride, (ctx, id) => ctx.use(PlannerOverrideService).own(id));

@Resolver(() => PlannerItemType)
export class PlannerItemResolver {
  @Query(() => PlannerItemConnection, {
    description: "The planner: the user's dated learning objects and notes, in Canvas's order (date, id, kind), paged by key set.",
  })
  plannerItems(@Args() args: PlannerItemsArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(PlannerItemsService).list(args);
  }

  @Subscription(() => PlannerChangeType, {
    description: "Emits when one of the viewer's planner items appears, changes or disappears.",
    subscribe: async ({ context }) => {
      const ctx = context as RequestContext;
      const viewer = ctx.authz.requireViewer();
      return ctx.app.pubsub.subscribe(PLANNER_CHANGED, await channelId(ctx.ds, viewer.id));
    },
  })
  plannerChanged(@Root() payload: PlannerChangePayload): PlannerChangePayload {
    return payload;
  }
}

@Resolver(() => PlannerNoteType)
export class PlannerNoteResolver extends NodeResolver(NodeType.PlannerNote, PlannerNoteType) {
  @Query(() => PlannerNoteConnection, { description: "The viewer's active planner notes." })
  plannerNotes(@Args() args: PlannerNotesArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(PlannerNoteService).list(args);
  }

  @Query(() => PlannerNoteType, { description: "One of the viewer's notes (anyone else's is not found)." })
  plannerNote(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext) {
    return ctx.use(PlannerNoteService).own(id);
  }

  @Mutation(() => PlannerNotePayload)
  createPlannerNote(@Arg('input') input: CreatePlannerNoteInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(PlannerNoteService).create(input));
  }

  @Mutation(() => PlannerNotePayload)
  updatePlannerNote(@Arg('input') input: UpdatePlannerNoteInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(PlannerNoteService).update(input));
  }

  @Mutation(() => PlannerNotePayload, { description: 'Soft delete: the note comes back with workflowState deleted.' })
  deletePlannerNote(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(PlannerNoteService).delete(id));
  }

  @Subscription(() => PlannerNoteChangeType, {
    description: "Emits when one of the viewer's own notes is updated or deleted.",
    subscribe: async ({ args, context }) => {
      const ctx = context as RequestContext;
      const note = await ctx.use(PlannerNoteService).own(String(args.id));
      return ctx.app.pubsub.subscribe(PLANNER_NOTE_CHANGED, await channelId(ctx.ds, note.id));
    },
  })
  async plannerNoteChanged(@Arg('id', () => ID) _id: string, @Root() payload: PlannerNoteChangePayload, @Ctx() ctx: RequestContext) {
    // Read fresh (no loader: a subscription's context lives as long as the subscription), owner only.
    const viewer = ctx.authz.requireViewer();
    const note = await ctx.ds.getRepository(PlannerNote).findOneBy({ id: noteIdArg(payload.noteId), userId: viewer.id });
    return { change: payload.change, plannerNote: note };
  }

  @FieldResolver(() => String, { nullable: true })
  description(@Root() n: PlannerNote): string | null {
    return n.details;
  }

  @FieldResolver(() => String, { nullable: true })
  linkedObjectHtmlUrl(@Root() n: PlannerNote, @Ctx() ctx: RequestContext): string | null {
    return ctx.use(PlannerNoteService).linkedUrls(n).html;
  }

  @FieldResolver(() => String, { nullable: true })
  linkedObjectUrl(@Root() n: PlannerNote, @Ctx() ctx: RequestContext): string | null {
    return ctx.use(PlannerNoteService).linkedUrls(n).api;
  }
}

@Resolver(() => PlannerOverrideType)
export class PlannerOverrideResolver extends NodeResolver(NodeType.PlannerOverride, PlannerOverrideType) {
  @Query(() => PlannerOverrideConnection, { description: "The viewer's active planner overrides." })
  plannerOverrides(@Args() args: ConnectionArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(PlannerOverrideService).list(args);
  }

  @Query(() => PlannerOverrideType, { description: "One of the viewer's overrides (anyone else's is not found)." })
  plannerOverride(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext) {
    return ctx.use(PlannerOverrideService).own(id);
  }

  @Mutation(() => PlannerOverridePayload)
  createPlannerOverride(@Arg('input') input: CreatePlannerOverrideInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(PlannerOverrideService).create(input));
  }

  @Mutation(() => PlannerOverridePayload, { description: 'Both flags are overwritten: an absent one becomes false.' })
  updatePlannerOverride(@Arg('input') input: UpdatePlannerOverrideInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(PlannerOverrideService).update(input));
  }

  @Mutation(() => PlannerOverridePayload, { description: 'Soft delete: workflowState deleted, deletedAt set.' })
  deletePlannerOverride(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(PlannerOverrideService).delete(id));
  }

  @FieldResolver(() => ID, { nullable: true })
  assignmentId(@Root() o: PlannerOverride, @Ctx() ctx: RequestContext): Promise<number | null> {
    return ctx.loaders
      .get('planner:overrideAssignment', () =>
        new DataLoader<PlannerOverride, number | null, number>(
          async (rows) => {
            const refs = await plannableRefs(ctx.ds.manager, [...rows]);
            return rows.map((r) => refs.get(r.id)?.assignmentId ?? null);
          },
          { cacheKeyFn: (r) => r.id },
        ),
      )
      .load(o);
  }
}

/**
 * The planner items list counts its items only when a client asks (its totalCount is a promise read
 * lazily): a resolver, so the compiled plan awaits it instead of reading the property inline.
 */
@Resolver(() => PlannerItemConnection)
export class PlannerItemConnectionResolver {
  @FieldResolver(() => Int, { description: 'Total number of items across all pages.' })
  totalCount(@Root() c: { totalCount: number | Promise<number> }): number | Promise<number> {
    return c.totalCount;
  }
}

export const plannerResolvers = [PlannerItemResolver, PlannerItemConnectionResolver, PlannerNoteResolver, PlannerOverrideResolver] as const;
