import { ArgsType, Field, Float, ID, InputType, Int, ObjectType } from 'type-graphql';
import { Node } from '../api/graphql/node';
import { PayloadType } from '../api/graphql/payload';
import { Connection, ConnectionArgs } from '../common/relay';
import { DateTimeScalar } from '../api/graphql/scalars';

@ObjectType('PlannerNote', { implements: Node, description: "A user's note to self on the planner." })
export class PlannerNoteType extends Node {
  @Field(() => ID)
  _id: string;
  @Field()
  title: string;
  @Field(() => String, { nullable: true, description: 'The note text (Canvas names it details).' })
  details: string | null;
  @Field(() => String, { nullable: true, description: 'The note text, under the team spec name.' })
  description: string | null;
  @Field(() => ID)
  userId: number;
  @Field(() => ID, { nullable: true })
  courseId: number | null;
  @Field({ description: 'active or deleted' })
  workflowState: string;
  @Field(() => DateTimeScalar)
  todoDate: Date;
  @Field(() => String, { nullable: true, description: 'assignment, quiz, discussion_topic or wiki_page' })
  linkedObjectType: string | null;
  @Field(() => ID, { nullable: true })
  linkedObjectId: number | null;
  @Field(() => String, { nullable: true })
  linkedObjectHtmlUrl: string | null;
  @Field(() => String, { nullable: true })
  linkedObjectUrl: string | null;
  @Field(() => DateTimeScalar)
  createdAt: Date;
  @Field(() => DateTimeScalar)
  updatedAt: Date;
}

export const PlannerNoteConnection = Connection('PlannerNote', PlannerNoteType);

@ObjectType('PlannerOverride', { implements: Node, description: 'How the user shows one plannable on their planner.' })
export class PlannerOverrideType extends Node {
  @Field(() => ID)
  _id: string;
  @Field({ description: 'assignment, quiz, discussion_topic, announcement, wiki_page, planner_note or calendar_event' })
  plannableType: string;
  @Field(() => ID)
  plannableId: number;
  @Field(() => ID)
  userId: number;
  @Field(() => ID, { nullable: true, description: 'The assignment behind the plannable, if any.' })
  assignmentId: number | null;
  @Field({ description: 'active, unpublished (follows the plannable) or deleted' })
  workflowState: string;
  @Field()
  markedComplete: boolean;
  @Field()
  dismissed: boolean;
  @Field(() => DateTimeScalar)
  createdAt: Date;
  @Field(() => DateTimeScalar)
  updatedAt: Date;
  @Field(() => DateTimeScalar, { nullable: true })
  deletedAt: Date | null;
}

export const PlannerOverrideConnection = Connection('PlannerOverride', PlannerOverrideType);

@ObjectType('PlannerSubmissionStatus', { description: "The student's submission for the item's assignment." })
export class PlannerSubmissionStatusType {
  @Field()
  submitted: boolean;
  @Field()
  excused: boolean;
  @Field()
  graded: boolean;
  @Field(() => DateTimeScalar, { nullable: true })
  postedAt: Date | null;
  @Field()
  late: boolean;
  @Field()
  missing: boolean;
  @Field()
  needsGrading: boolean;
  @Field({ description: 'Canvas current name of with_feedback.' })
  hasFeedback: boolean;
  @Field({ description: 'The spec (and older Canvas) name of has_feedback.' })
  withFeedback: boolean;
  @Field()
  redoRequest: boolean;
}

@ObjectType('Plannable', { description: 'The object behind a planner item; fields that do not apply to its kind are null.' })
export class PlannableType {
  @Field(() => ID)
  id: number;
  @Field()
  title: string;
  @Field(() => ID, { nullable: true })
  courseId: number | null;
  @Field(() => ID, { nullable: true })
  groupId: number | null;
  @Field(() => ID, { nullable: true, description: 'Planner notes: the owner.' })
  userId: number | null;
  @Field(() => DateTimeScalar, { nullable: true })
  todoDate: Date | null;
  @Field(() => String, { nullable: true, description: 'Planner notes: the note text.' })
  details: string | null;
  @Field(() => String, { nullable: true, description: 'Wiki pages: the slug.' })
  url: string | null;
  @Field(() => Int, { nullable: true, description: 'Discussions: entries the user has not read.' })
  unreadCount: number | null;
  @Field(() => String, { nullable: true, description: 'Discussions: read or unread.' })
  readState: string | null;
  @Field(() => ID, { nullable: true, description: 'Gradable kinds: the assignment.' })
  assignmentId: number | null;
  @Field(() => Float, { nullable: true })
  pointsPossible: number | null;
  @Field(() => DateTimeScalar, { nullable: true, description: "Gradable kinds: the user's due date." })
  dueAt: Date | null;
  @Field(() => String, { nullable: true, description: 'Planner notes: active.' })
  workflowState: string | null;
  @Field(() => String, { nullable: true, description: 'Calendar events.' })
  locationName: string | null;
  @Field(() => String, { nullable: true, description: 'Calendar events.' })
  locationAddress: string | null;
  @Field(() => String, { nullable: true, description: 'Calendar events: HTML.' })
  description: string | null;
  @Field(() => DateTimeScalar, { nullable: true, description: 'Calendar events.' })
  startAt: Date | null;
  @Field(() => DateTimeScalar, { nullable: true, description: 'Calendar events.' })
  endAt: Date | null;
  @Field(() => Boolean, { nullable: true, description: 'Calendar events.' })
  allDay: boolean | null;
  @Field(() => DateTimeScalar)
  createdAt: Date;
  @Field(() => DateTimeScalar)
  updatedAt: Date;
}

@ObjectType('PlannerItem', { description: 'One learning object on the planner, in Canvas planner item shape.' })
export class PlannerItemType {
  @Field(() => String, { nullable: true, description: 'Course or Group; null for notes without a course.' })
  contextType: string | null;
  @Field(() => ID, { nullable: true })
  courseId: number | null;
  @Field(() => ID, { nullable: true })
  groupId: number | null;
  @Field(() => String, { nullable: true })
  contextName: string | null;
  @Field(() => ID)
  plannableId: number;
  @Field({ description: 'assignment, quiz, discussion_topic, announcement, wiki_page or planner_note' })
  plannableType: string;
  @Field(() => DateTimeScalar)
  plannableDate: Date;
  @Field(() => PlannerOverrideType, { nullable: true })
  plannerOverride: unknown;
  @Field()
  newActivity: boolean;
  @Field(() => PlannerSubmissionStatusType, { nullable: true, description: 'Null (false in REST) when no assignment is behind the item.' })
  submissions: PlannerSubmissionStatusType | null;
  @Field(() => PlannableType)
  plannable: PlannableType;
  @Field(() => String, { nullable: true })
  htmlUrl: string | null;
}

export const PlannerItemConnection = Connection('PlannerItem', PlannerItemType);

/** plannerItems' filters without whose planner it is: User.plannerItemsConnection takes these, its user being the parent object. */
@ArgsType()
export class PlannerItemsFilterArgs extends ConnectionArgs {
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

@ArgsType()
export class PlannerItemsArgs extends PlannerItemsFilterArgs {
  @Field(() => ID, { nullable: true, description: 'Whose planner: the viewer (default) or a student they observe.' })
  userId?: string | null;
  @Field(() => ID, { nullable: true, description: 'A student the viewer observes in every course of contextCodes.' })
  observedUserId?: string | null;
}

@ArgsType()
export class PlannerNotesArgs extends ConnectionArgs {
  @Field(() => String, { nullable: true, description: 'Inclusive; YYYY-MM-DD or ISO 8601.' })
  startDate?: string | null;
  @Field(() => String, { nullable: true, description: 'Inclusive; a date alone means the end of that day.' })
  endDate?: string | null;
  @Field(() => [String], { nullable: true, description: 'course_<id>; user_<self id> adds notes without a course.' })
  contextCodes?: string[] | null;
}

@InputType()
export class CreatePlannerNoteInput {
  @Field(() => String, { nullable: true, description: "Defaults to the linked object's title." })
  title?: string | null;
  @Field(() => String, { nullable: true })
  details?: string | null;
  @Field(() => DateTimeScalar, { nullable: true })
  todoDate?: Date | null;
  @Field(() => ID, { nullable: true })
  courseId?: string | null;
  @Field(() => String, { nullable: true, description: 'announcement, assignment, discussion_topic, wiki_page or quiz' })
  linkedObjectType?: string | null;
  @Field(() => ID, { nullable: true })
  linkedObjectId?: string | null;
}

@InputType()
export class UpdatePlannerNoteInput {
  @Field(() => ID)
  id: string;
  @Field(() => String, { nullable: true })
  title?: string | null;
  @Field(() => String, { nullable: true })
  details?: string | null;
  @Field(() => DateTimeScalar, { nullable: true })
  todoDate?: Date | null;
  @Field(() => ID, { nullable: true, description: 'Null or empty removes the note from its course (not for linked notes).' })
  courseId?: string | null;
}

export const PlannerNotePayload = PayloadType('PlannerNotePayload', { plannerNote: () => PlannerNoteType });

@InputType()
export class CreatePlannerOverrideInput {
  @Field(() => String, { nullable: true, description: 'assignment, quiz, discussion_topic, announcement, wiki_page, planner_note' })
  plannableType?: string | null;
  @Field(() => ID, { nullable: true })
  plannableId?: string | null;
  @Field(() => Boolean, { nullable: true })
  markedComplete?: boolean | null;
  @Field(() => Boolean, { nullable: true })
  dismissed?: boolean | null;
}

@InputType()
export class UpdatePlannerOverrideInput {
  @Field(() => ID)
  id: string;
  @Field(() => Boolean, { nullable: true, description: 'Overwritten: absent means false.' })
  markedComplete?: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'Overwritten: absent means false.' })
  dismissed?: boolean | null;
}

export const PlannerOverridePayload = PayloadType('PlannerOverridePayload', {
  plannerOverride: () => PlannerOverrideType,
});

@ObjectType('PlannerChange', { description: 'One of the viewer’s planner items appeared, changed or disappeared.' })
export class PlannerChangeType {
  @Field({ description: 'created, updated or deleted' })
  change: string;
  @Field({ description: 'The planner kind: assignment, quiz, discussion_topic, announcement, wiki_page, planner_note, planner_override' })
  plannableType: string;
  @Field(() => ID)
  plannableId: number;
  @Field(() => ID, { nullable: true })
  courseId: number | null;
  @Field({ description: 'What happened: note, override, content, submission.' })
  reason: string;
  @Field(() => DateTimeScalar)
  occurredAt: string;
}

@ObjectType('PlannerNoteChange', { description: 'A planner note was updated or deleted.' })
export class PlannerNoteChangeType {
  @Field({ description: 'updated or deleted' })
  change: string;
  @Field(() => PlannerNoteType, { nullable: true })
  plannerNote: unknown;
}
