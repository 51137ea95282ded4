import { ArgsType, Field, ID, ObjectType } from 'type-graphql';
import { DateTimeScalar } from '../api/graphql/scalars';
import { Connection, ConnectionArgs } from '../common/relay';

/**
 * An assignment placed on the calendar at its due date (Canvas's assignment_event_json). Its fields are
 * resolved from the assignment (src/calendar-events/assignment-event.resolver.ts).
 */
@ObjectType('AssignmentEvent', { description: "An assignment on the calendar, on its due date (Canvas's calendar event of type assignment)." })
export class AssignmentEventType {
  @Field(() => String, { nullable: true, description: 'Sanitised HTML.' })
  description: string | null;
  @Field({ description: 'published or unpublished' })
  workflowState: string;
  @Field(() => DateTimeScalar)
  createdAt: Date;
  @Field(() => DateTimeScalar)
  updatedAt: Date;
}

export const AssignmentEventConnection = Connection('AssignmentEvent', AssignmentEventType);

@ArgsType()
export class AssignmentEventsArgs extends ConnectionArgs {
  @Field(() => [String], { nullable: true, description: 'course_N codes; other codes (and courses the viewer cannot read) are dropped.' })
  contextCodes?: string[] | null;
  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD or ISO 8601; default today.' })
  startDate?: string | null;
  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD (to the end of that day) or ISO 8601; default the end of the start day.' })
  endDate?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Only assignments without a due date.' })
  undated?: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'Every assignment, due or not, ignoring the window.' })
  allEvents?: boolean | null;
}
