import { ArgsType, Field, ID, Int, ObjectType } from 'type-graphql';
import { DateTimeScalar } from '../api/graphql/scalars';
import { Connection, ConnectionArgs } from '../common/relay';

@ObjectType('TodoItem', { description: "One entry of the viewer's to-do list (Canvas's todo item): work to turn in or to grade." })
export class TodoItemType {
  @Field({ description: 'submitting or grading' })
  type: string;
  @Field({ description: 'Course' })
  contextType: string;
  @Field(() => ID)
  courseId: number;
  @Field(() => ID, { nullable: true, description: 'The assignment behind the entry; null for an ungraded quiz.' })
  assignmentId: number | null;
  @Field(() => ID, { nullable: true, description: 'For an ungraded quiz.' })
  quizId: number | null;
  @Field(() => DateTimeScalar, { nullable: true })
  dueAt: Date | null;
  @Field(() => Int, { nullable: true, description: 'For grading: the submissions waiting for a grade.' })
  needsGradingCount: number | null;
}

export const TodoItemConnection = Connection('TodoItem', TodoItemType);

@ArgsType()
export class TodoItemsArgs extends ConnectionArgs {
  @Field(() => ID, { nullable: true, description: "Only this course's entries." })
  courseId?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Also ungraded quizzes to take.' })
  includeUngradedQuizzes?: boolean | null;
}

@ObjectType('TodoItemCount')
export class TodoItemCountType {
  @Field(() => Int, { description: 'Submissions waiting for the viewer to grade them.' })
  needsGradingCount: number;
  @Field(() => Int, { description: 'Assignments (and, when asked, ungraded quizzes) the viewer has to turn in.' })
  assignmentsNeedingSubmitting: number;
}

@ObjectType('UpcomingEvent', { description: "One entry of the viewer's upcoming events: an assignment due within a week (calendar events join here)." })
export class UpcomingEventType {
  @Field({ description: 'assignment_<id> for an assignment.' })
  id: string;
  @Field({ description: 'assignment (or event)' })
  type: string;
  @Field()
  title: string;
  @Field(() => DateTimeScalar, { nullable: true })
  startAt: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  endAt: Date | null;
  @Field({ description: 'course_<id>' })
  contextCode: string;
  @Field(() => String, { nullable: true })
  contextName: string | null;
  @Field(() => String, { nullable: true })
  htmlUrl: string | null;
  @Field(() => ID, { nullable: true })
  assignmentId: number | null;
}

@ObjectType('MissingSubmission', { description: 'A past-due assignment the user has not turned in.' })
export class MissingSubmissionType {
  @Field(() => ID)
  courseId: number;
  @Field(() => ID)
  assignmentId: number;
  @Field(() => DateTimeScalar, { nullable: true })
  dueAt: Date | null;
}

export const MissingSubmissionConnection = Connection('MissingSubmission', MissingSubmissionType);

@ArgsType()
export class MissingSubmissionsArgs extends ConnectionArgs {
  @Field(() => ID, { nullable: true, description: 'Whose: the viewer (default) or a student they observe.' })
  userId?: string | null;
  @Field(() => [String], { nullable: true, description: 'submittable (leave out locked assignments), current_grading_period.' })
  filter?: string[] | null;
  @Field(() => [ID], { nullable: true, description: 'Only these courses.' })
  courseIds?: string[] | null;
}
