import { ArgsType, Field, ID, InputType, ObjectType } from 'type-graphql';
import { Node } from '../api/graphql/node';
import { PayloadType } from '../api/graphql/payload';
import { DateTimeScalar } from '../api/graphql/scalars';
import { Connection, ConnectionArgs } from '../common/relay';

@ObjectType('CalendarEvent', { implements: Node, description: "An event on a course's, group's, user's or section's calendar (Canvas's CalendarEvent)." })
export class CalendarEventType extends Node {
  @Field(() => ID)
  _id: string;
  @Field()
  title: string;
  @Field(() => DateTimeScalar, { nullable: true })
  startAt: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  endAt: Date | null;
  @Field(() => String, { nullable: true, description: 'HTML, sanitised when stored.' })
  description: string | null;
  @Field(() => String, { nullable: true })
  locationName: string | null;
  @Field(() => String, { nullable: true })
  locationAddress: string | null;
  @Field({ description: 'course_1, group_2, user_3 or course_section_4.' })
  contextCode: string;
  @Field({ description: "Where the event shows: its own context, or a section event's course." })
  effectiveContextCode: string;
  @Field({ description: 'Course, Group, User or CourseSection.' })
  contextType: string;
  @Field({ description: 'active or deleted.' })
  workflowState: string;
  @Field({ description: 'A course event with section events: each section sees its own instead.' })
  hidden: boolean;
  @Field()
  allDay: boolean;
  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD of an all-day event.' })
  allDayDate: string | null;
  @Field(() => DateTimeScalar)
  createdAt: Date;
  @Field(() => DateTimeScalar)
  updatedAt: Date;
}

export const CalendarEventConnection = Connection('CalendarEvent', CalendarEventType);

@InputType({ description: 'One section event of a course event.' })
export class ChildEventInput {
  @Field(() => String, { nullable: true })
  startAt?: string | null;
  @Field(() => String, { nullable: true })
  endAt?: string | null;
  @Field(() => String, { nullable: true, description: 'course_section_N, a section of the event\'s course.' })
  contextCode?: string | null;
}

@InputType()
export class CalendarEventFieldsInput {
  @Field(() => String, { nullable: true, description: 'At most 255 characters.' })
  title?: string | null;
  @Field(() => String, { nullable: true, description: 'HTML; sanitised.' })
  description?: string | null;
  @Field(() => String, { nullable: true, description: 'ISO 8601.' })
  startAt?: string | null;
  @Field(() => String, { nullable: true, description: 'ISO 8601; before startAt it becomes startAt.' })
  endAt?: string | null;
  @Field(() => String, { nullable: true })
  locationName?: string | null;
  @Field(() => String, { nullable: true })
  locationAddress?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'An all-day event on the start date.' })
  allDay?: boolean | null;
  @Field(() => [ChildEventInput], { nullable: true, description: 'Section events (course events only); given, it replaces them.' })
  childEventData?: ChildEventInput[] | null;
}

@InputType()
export class CreateCalendarEventInput extends CalendarEventFieldsInput {
  @Field({ description: 'course_1, group_2 or user_3.' })
  contextCode: string;
}

@InputType()
export class UpdateCalendarEventInput extends CalendarEventFieldsInput {
  @Field(() => ID)
  id: string;
}

@InputType()
export class DeleteCalendarEventInput {
  @Field(() => ID)
  id: string;
  @Field(() => String, { nullable: true, description: 'Why it was cancelled (accepted as Canvas does; not stored).' })
  cancelReason?: string | null;
}

export const CalendarEventPayload = PayloadType('CalendarEventPayload', { calendarEvent: () => CalendarEventType });

/** The context codes and date window Canvas's calendar lists share (events and assignment events). */
@ArgsType()
export class CalendarWindowArgs extends ConnectionArgs {
  @Field(() => [String], { nullable: true, description: "course_N, group_N, user_N; default the viewer's own calendar. Codes the viewer cannot read are dropped." })
  contextCodes?: string[] | null;
  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD or ISO 8601; default today.' })
  startDate?: string | null;
  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD (to the end of that day) or ISO 8601; default the end of the start day.' })
  endDate?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Only what has no date.' })
  undated?: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'Everything, dated or not, ignoring the window.' })
  allEvents?: boolean | null;
}

@ArgsType()
export class CalendarEventsArgs extends CalendarWindowArgs {
  @Field(() => String, { nullable: true, description: 'event (the default; assignments on the calendar are listed by assignmentEvents).' })
  type?: string | null;
}
