import { ArgsType, Field, ObjectType } from 'type-graphql';
import { DateTimeScalar } from '../api/graphql/scalars';
import { Connection } from '../common/relay';
import { CalendarWindowArgs } from './calendar-event.types';

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

/** Course codes only count: group and user calendars hold no assignments. */
@ArgsType()
export class AssignmentEventsArgs extends CalendarWindowArgs {}
