import { Arg, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Course } from '../courses/course.entity';
import { CourseType } from '../courses/course.types';
import type { RequestContext } from '../request/context';
import { NodeResolver, NodeType, registerNode } from '../api/graphql/node';
import { mutationPayload } from '../api/graphql/payload';
import { BlackoutDate } from './blackout-date.entity';
import type { UnsavedBlackoutDate } from './blackout-date.service';
import {
  BlackoutDatePayload,
  BlackoutDatesPayload,
  BlackoutDateType,
  CreateBlackoutDateInput,
  DeleteBlackoutDateInput,
  ReplaceBlackoutDatesInput,
  UnsavedBlackoutDateType,
  UpdateBlackoutDateInput,
} from './blackout-date.types';
import { ListBound } from '../common/list-bounds';
import { BlackoutDateService } from './blackout-date.service';

registerNode(NodeType.BlackoutDate, BlackoutDate, (ctx, id) => ctx.use(BlackoutDateService).show(id));

const fields = (i: { startDate?: string | null; endDate?: string | null; eventTitle?: string | null }) => ({ startDate: i.startDate, endDate: i.endDate, eventTitle: i.eventTitle });

@Resolver(() => BlackoutDateType)
export class BlackoutDateResolver extends NodeResolver(NodeType.BlackoutDate, BlackoutDateType) {
  @ListBound(1000) // BULK_MAX: a bulk replace stores at most 1,000
  @Query(() => [BlackoutDateType], { description: 'Every blackout date of a course or account, by start date (course-pacing or content managers; account admins).' })
  blackoutDates(
    @Arg('contextType', { description: 'Course or Account' }) contextType: string,
    @Arg('contextId', () => ID) contextId: string,
    @Ctx() ctx: RequestContext,
  ): Promise<BlackoutDate[]> {
    return ctx.use(BlackoutDateService).list(contextType, contextId);
  }

  @Query(() => BlackoutDateType, { description: 'One blackout date; with a context it must belong to it.' })
  blackoutDate(
    @Arg('id', () => ID) id: string,
    @Arg('contextType', () => String, { nullable: true }) contextType: string | null,
    @Arg('contextId', () => ID, { nullable: true }) contextId: string | null,
    @Ctx() ctx: RequestContext,
  ): Promise<BlackoutDate> {
    return ctx.use(BlackoutDateService).show(id, contextType, contextId);
  }

  @Query(() => UnsavedBlackoutDateType, { description: 'A blackout date initialised for the context, not stored.' })
  newBlackoutDate(
    @Arg('contextType', { description: 'Course or Account' }) contextType: string,
    @Arg('contextId', () => ID) contextId: string,
    @Ctx() ctx: RequestContext,
  ): Promise<UnsavedBlackoutDate> {
    return ctx.use(BlackoutDateService).initial(contextType, contextId);
  }

  @Mutation(() => BlackoutDatePayload)
  createBlackoutDate(@Arg('input') input: CreateBlackoutDateInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(BlackoutDateService).create(input.contextType, input.contextId, fields(input)));
  }

  @Mutation(() => BlackoutDatePayload)
  updateBlackoutDate(@Arg('input') input: UpdateBlackoutDateInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(BlackoutDateService).update(input.id, fields(input), { type: input.contextType, id: input.contextId }));
  }

  @Mutation(() => BlackoutDatePayload, { description: 'Deletes the date; the payload holds it as it was.' })
  deleteBlackoutDate(@Arg('input') input: DeleteBlackoutDateInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(BlackoutDateService).delete(input.id, { type: input.contextType, id: input.contextId }));
  }

  @Mutation(() => BlackoutDatesPayload, { description: 'Makes the context\'s dates equal the list, atomically: one invalid entry and nothing changes.' })
  replaceBlackoutDates(@Arg('input') input: ReplaceBlackoutDatesInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(BlackoutDateService).replace(input.contextType, input.contextId, input.blackoutDates.map((e) => ({ id: e.id, ...fields(e) }))));
  }
}

/** The course-pacing side of a course, kept with blackout dates rather than in courses/. */
@Resolver(() => CourseType)
export class CoursePacingResolver {
  @ListBound(1000) // BULK_MAX: a bulk replace stores at most 1,000
  @FieldResolver(() => [BlackoutDateType], {
    nullable: true,
    description: "Blackout dates course pacing applies to this course: its own and every account's above it, by start date.",
  })
  pacingBlackoutDates(@Root() course: Course, @Ctx() ctx: RequestContext): Promise<BlackoutDate[]> {
    return ctx.use(BlackoutDateService).forCoursePacing(course);
  }
}
