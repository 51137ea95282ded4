import { Arg, Args, Ctx, FieldResolver, ID, Query, Resolver, Root } from 'type-graphql';
import { Assignment } from '../content/assignments/assignment.entity';
import { AssignmentType } from '../content/assignments/assignment.types';
import { DateTimeScalar } from '../api/graphql/scalars';
import type { RequestContext } from '../request/context';
import { AssignmentEventService, dueAllDay } from './assignment-event.service';
import { AssignmentEventConnection, AssignmentEventsArgs, AssignmentEventType } from './assignment-event.types';

/** Assignment events: every field is read from the assignment a checked query returned. */
@Resolver(() => AssignmentEventType)
export class AssignmentEventResolver {
  @Query(() => AssignmentEventConnection, { description: "Assignments of the given courses due in a date window, by due date (Canvas's GET /calendar_events?type=assignment)." })
  assignmentEvents(@Args() args: AssignmentEventsArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(AssignmentEventService).list(args);
  }

  @Query(() => AssignmentEventType, { description: 'One assignment event (id assignment_<id>) the viewer may see.' })
  assignmentEvent(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<Assignment> {
    return ctx.use(AssignmentEventService).show(id);
  }

  @FieldResolver(() => ID)
  id(@Root() a: Assignment): string {
    return `assignment_${a.id}`;
  }

  @FieldResolver(() => String)
  title(@Root() a: Assignment): string {
    return a.name;
  }

  @FieldResolver(() => DateTimeScalar, { nullable: true })
  startAt(@Root() a: Assignment): Date | null {
    return a.dueAt;
  }

  @FieldResolver(() => DateTimeScalar, { nullable: true })
  endAt(@Root() a: Assignment): Date | null {
    return a.dueAt;
  }

  @FieldResolver(() => Boolean, { description: 'Due at 23:59: shown as due that whole day.' })
  allDay(@Root() a: Assignment): boolean {
    return dueAllDay(a);
  }

  @FieldResolver(() => String, { nullable: true, description: 'The due date (YYYY-MM-DD) of an all-day assignment.' })
  allDayDate(@Root() a: Assignment): string | null {
    return dueAllDay(a) ? a.dueAt!.toISOString().slice(0, 10) : null;
  }

  @FieldResolver(() => String, { description: "Canvas's stored form: the submission types joined by commas." })
  submissionTypes(@Root() a: Assignment): string {
    return a.submissionTypes;
  }

  @FieldResolver(() => String)
  contextCode(@Root() a: Assignment): string {
    return `course_${a.courseId}`;
  }

  @FieldResolver(() => String, { nullable: true, description: "The course's name." })
  contextName(@Root() a: Assignment, @Ctx() ctx: RequestContext): Promise<string | null> {
    return ctx.use(AssignmentEventService).courseName(a);
  }

  @FieldResolver(() => String, { description: 'The API URL (GET /api/v1/calendar_events/assignment_<id>).' })
  url(@Root() a: Assignment, @Ctx() ctx: RequestContext): string {
    return `${ctx.baseUrl}/api/v1/calendar_events/assignment_${a.id}`;
  }

  @FieldResolver(() => String)
  htmlUrl(@Root() a: Assignment, @Ctx() ctx: RequestContext): string {
    return `${ctx.baseUrl}/courses/${a.courseId}/assignments/${a.id}`;
  }

  @FieldResolver(() => AssignmentType, { description: 'The assignment itself (the same one the event was checked as).' })
  assignment(@Root() a: Assignment): Assignment {
    return a;
  }
}
