import { Arg, Args, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { NodeResolver, NodeType, registerNode } from '../api/graphql/node';
import { mutationPayload } from '../api/graphql/payload';
import { ListBound } from '../common/list-bounds';
import type { RequestContext } from '../request/context';
import { AssignmentEventResolver } from './assignment-event.resolver';
import { CalendarEvent } from './calendar-event.entity';
import { CalendarEventFields, CalendarEventService } from './calendar-event.service';
import {
  CalendarEventConnection,
  CalendarEventFieldsInput,
  CalendarEventPayload,
  CalendarEventsArgs,
  CalendarEventType,
  CreateCalendarEventInput,
  DeleteCalendarEventInput,
  UpdateCalendarEventInput,
} from './calendar-event.types';

registerNode(NodeType.CalendarEvent, CalendarEvent, (ctx, id) => ctx.use(CalendarEventService).show(id));

/** Only the fields given: an absent one stays as it is. */
const fields = (i: CalendarEventFieldsInput): CalendarEventFields => ({
  title: i.title,
  description: i.description,
  startAt: i.startAt,
  endAt: i.endAt,
  locationName: i.locationName,
  locationAddress: i.locationAddress,
  allDay: i.allDay,
  childEventData: i.childEventData,
});

@Resolver(() => CalendarEventType)
export class CalendarEventResolver extends NodeResolver(NodeType.CalendarEvent, CalendarEventType) {
  @Query(() => CalendarEventConnection, { description: 'Calendar events of the given contexts in a date window, by start (Canvas\'s GET /calendar_events).' })
  calendarEvents(@Args() args: CalendarEventsArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(CalendarEventService).list(args);
  }

  @Query(() => CalendarEventType, { description: 'One calendar event the viewer may see.' })
  calendarEvent(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<CalendarEvent> {
    return ctx.use(CalendarEventService).show(id);
  }

  @Mutation(() => CalendarEventPayload, { description: 'Creates an event in a course (calendar managers), group (its members) or the viewer\'s own calendar.' })
  createCalendarEvent(@Arg('input') input: CreateCalendarEventInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(CalendarEventService).create(input.contextCode, fields(input)));
  }

  @Mutation(() => CalendarEventPayload)
  updateCalendarEvent(@Arg('input') input: UpdateCalendarEventInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(CalendarEventService).update(input.id, fields(input)));
  }

  @Mutation(() => CalendarEventPayload, { description: 'Deletes the event and its section events; the payload holds it, workflowState deleted.' })
  deleteCalendarEvent(@Arg('input') input: DeleteCalendarEventInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(CalendarEventService).delete(input.id));
  }

  @FieldResolver(() => String, { nullable: true, description: "The context's name (course, group, user or section)." })
  contextName(@Root() e: CalendarEvent, @Ctx() ctx: RequestContext): Promise<string | null> {
    return ctx.use(CalendarEventService).contextName(e);
  }

  @ListBound(2)
  @FieldResolver(() => [String], { description: 'The effective context code, then its own when different.' })
  allContextCodes(@Root() e: CalendarEvent): string[] {
    return e.contextCode === e.effectiveContextCode ? [e.contextCode] : [e.effectiveContextCode, e.contextCode];
  }

  @FieldResolver(() => ID, { nullable: true })
  parentEventId(@Root() e: CalendarEvent): number | null {
    return e.parentCalendarEventId;
  }

  @ListBound(100) // CHILDREN_MAX: a course event has at most 100 section events
  @FieldResolver(() => [CalendarEventType], { description: 'Its section events the viewer may see.' })
  childEvents(@Root() e: CalendarEvent, @Ctx() ctx: RequestContext): Promise<CalendarEvent[]> {
    return e.hidden ? ctx.use(CalendarEventService).childrenOf(e) : Promise.resolve([]);
  }

  @FieldResolver(() => Int)
  async childEventsCount(@Root() e: CalendarEvent, @Ctx() ctx: RequestContext): Promise<number> {
    return e.hidden ? (await ctx.use(CalendarEventService).childrenOf(e)).length : 0;
  }

  @FieldResolver(() => String, { description: 'The API URL.' })
  url(@Root() e: CalendarEvent, @Ctx() ctx: RequestContext): string {
    return `${ctx.baseUrl}/api/v1/calendar_events/${e.id}`;
  }

  @FieldResolver(() => String, { description: 'The event on the calendar page.' })
  htmlUrl(@Root() e: CalendarEvent, @Ctx() ctx: RequestContext): string {
    return `${ctx.baseUrl}/calendar?event_id=${e.id}&include_contexts=${e.effectiveContextCode}`;
  }
}

export const calendarEventResolvers = [CalendarEventResolver, AssignmentEventResolver] as const;
