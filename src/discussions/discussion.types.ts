import { ArgsType, Field, Float, ID, InputType, Int, ObjectType } from 'type-graphql';
import { Node } from '../api/graphql/node';
import { PayloadType } from '../api/graphql/payload';
import { Connection, ConnectionArgs } from '../common/relay';
import { DateTimeScalar } from '../api/graphql/scalars';

@ObjectType('DiscussionPermissions', { description: "The viewer's rights on one topic." })
export class DiscussionPermissionsType {
  @Field()
  attach: boolean;
  @Field()
  update: boolean;
  @Field({ description: 'May post an entry now.' })
  reply: boolean;
  @Field()
  delete: boolean;
}

@ObjectType('DiscussionLockInfo', { description: 'Why a topic is locked for the viewer (Canvas lock_info).' })
export class DiscussionLockInfoType {
  @Field()
  assetString: string;
  @Field(() => DateTimeScalar, { nullable: true })
  unlockAt: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  lockAt: Date | null;
  @Field()
  canView: boolean;
  @Field()
  explanation: string;
}

@ObjectType('Discussion', { implements: Node, description: 'A discussion topic or announcement of a course or group.' })
export class DiscussionType extends Node {
  @Field(() => ID)
  _id: string;
  @Field()
  title: string;
  @Field(() => String, { nullable: true, description: 'Sanitised HTML.' })
  message: string | null;
  @Field({ description: 'Course or Group' })
  contextType: string;
  @Field(() => ID)
  contextId: number;
  @Field()
  isAnnouncement: boolean;
  @Field({ description: 'Announcements are always published.' })
  published: boolean;
  @Field({ description: 'active, unpublished or deleted' })
  workflowState: string;
  @Field({ description: 'side_comment, threaded, not_threaded or flat' })
  discussionType: string;
  @Field(() => DateTimeScalar, { nullable: true })
  postedAt: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  delayedPostAt: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  lockAt: Date | null;
  @Field({ description: 'Closed for comments: locked, or past lock_at.' })
  locked: boolean;
  @Field(() => DateTimeScalar, { nullable: true })
  lastReplyAt: Date | null;
  @Field(() => DateTimeScalar, { nullable: true, description: 'Student to-do date (ungraded topics).' })
  todoDate: Date | null;
  @Field(() => ID, { nullable: true, description: 'The assignment grading the topic, if graded.' })
  assignmentId: number | null;
  @Field()
  pinned: boolean;
  @Field(() => Int, { nullable: true, description: 'Order among pinned topics.' })
  position: number | null;
  @Field()
  requireInitialPost: boolean;
  @Field(() => DateTimeScalar)
  createdAt: Date;
  @Field(() => DateTimeScalar)
  updatedAt: Date;
}

export const DiscussionConnection = Connection('Discussion', DiscussionType);

@ObjectType('DiscussionEntry', { implements: Node, description: 'A post in a discussion: top-level, or a reply.' })
export class DiscussionEntryType extends Node {
  @Field(() => ID)
  _id: string;
  @Field(() => ID)
  discussionTopicId: number;
  @Field(() => ID)
  userId: number;
  @Field(() => String, { nullable: true, description: 'Sanitised HTML.' })
  message: string | null;
  @Field(() => ID, { nullable: true })
  parentId: number | null;
  @Field(() => ID, { nullable: true, description: 'The top-level entry a reply sits under.' })
  rootEntryId: number | null;
  @Field(() => DateTimeScalar)
  createdAt: Date;
  @Field(() => DateTimeScalar)
  updatedAt: Date;
}

export const DiscussionEntryConnection = Connection('DiscussionEntry', DiscussionEntryType);

@ObjectType('StreamEntry', { description: 'A top-level entry as an activity stream item shows it.' })
export class StreamEntryType {
  @Field(() => ID)
  userId: number;
  @Field(() => String, { nullable: true })
  userName: string | null;
  @Field(() => String, { nullable: true })
  message: string | null;
}

@ObjectType('StreamItem', { description: 'An activity stream item (DiscussionTopic or Announcement), as Canvas shapes them.' })
export class StreamItemType {
  @Field(() => ID)
  _id: string;
  @Field()
  title: string;
  @Field(() => String, { nullable: true })
  message: string | null;
  @Field({ description: 'DiscussionTopic or Announcement' })
  type: string;
  @Field({ description: 'Whether the viewer has read the topic.' })
  readState: boolean;
  @Field()
  contextType: string;
  @Field(() => ID)
  contextId: number;
  @Field(() => DateTimeScalar)
  createdAt: Date;
  @Field(() => DateTimeScalar)
  updatedAt: Date;
  @Field()
  htmlUrl: string;
  @Field(() => Int)
  totalRootDiscussionEntries: number;
  @Field()
  requireInitialPost: boolean;
  @Field(() => Boolean, { nullable: true, description: 'Only for topics that require an initial post.' })
  userHasPosted: boolean | null;
  @Field(() => [StreamEntryType], { description: 'The latest three top-level entries.' })
  rootDiscussionEntries: StreamEntryType[];
  @Field(() => DiscussionType)
  discussionTopic: unknown;
}

export const StreamItemConnection = Connection('StreamItem', StreamItemType);

@ObjectType('StreamSummaryItem', { description: 'Counts of one type of activity stream item.' })
export class StreamSummaryItemType {
  @Field()
  type: string;
  @Field(() => Int)
  unreadCount: number;
  @Field(() => Int)
  count: number;
  @Field(() => String, { nullable: true })
  notificationCategory: string | null;
}

@ArgsType()
export class DiscussionsArgs extends ConnectionArgs {
  @Field(() => Boolean, { nullable: true, description: 'Announcements instead of discussion topics.' })
  onlyAnnouncements?: boolean | null;
  @Field(() => String, { nullable: true, description: 'position (default), recent_activity or title' })
  orderBy?: string | null;
  @Field(() => String, { nullable: true, description: 'Part of the title or message.' })
  searchTerm?: string | null;
}

@InputType({ description: "Canvas's assignment[...] params of a course topic: make it graded, or change how. Its name, description and published state follow the topic." })
export class DiscussionAssignmentInput {
  @Field(() => Boolean, { nullable: true, description: 'false removes (deletes) the assignment: the topic becomes ungraded.' })
  setAssignment?: boolean | null;
  @Field(() => Float, { nullable: true })
  pointsPossible?: number | null;
  @Field(() => String, { nullable: true, description: 'pass_fail, percent, letter_grade, gpa_scale, points or not_graded' })
  gradingType?: string | null;
  @Field(() => DateTimeScalar, { nullable: true })
  dueAt?: Date | null;
  @Field(() => DateTimeScalar, { nullable: true, description: "Given, it replaces the topic's delayed_post_at." })
  unlockAt?: Date | null;
  @Field(() => DateTimeScalar, { nullable: true, description: "Given, it replaces the topic's lock_at." })
  lockAt?: Date | null;
}

@InputType()
export class DiscussionFieldsInput {
  @Field(() => String, { nullable: true, description: 'At most 255 characters; blank means "No Title".' })
  title?: string | null;
  @Field(() => String, { nullable: true, description: 'HTML; sanitised.' })
  message?: string | null;
  @Field(() => String, { nullable: true, description: 'side_comment, threaded, not_threaded or flat' })
  discussionType?: string | null;
  @Field(() => Boolean, { nullable: true, description: "Default: a moderator's new topic is a draft; others' are published." })
  published?: boolean | null;
  @Field(() => DateTimeScalar, { nullable: true })
  delayedPostAt?: Date | null;
  @Field(() => DateTimeScalar, { nullable: true })
  lockAt?: Date | null;
  @Field(() => Boolean, { nullable: true, description: 'Closed for comments (moderators).' })
  locked?: boolean | null;
  @Field(() => Boolean, { nullable: true })
  requireInitialPost?: boolean | null;
  @Field(() => Boolean, { nullable: true, description: 'Moderators only; ignored for others.' })
  pinned?: boolean | null;
  @Field(() => DateTimeScalar, { nullable: true, description: 'Needs content management rights; ungraded topics only.' })
  todoDate?: Date | null;
  @Field(() => DiscussionAssignmentInput, { nullable: true, description: 'Course topics, by those who may manage assignments (ignored for others, as Canvas).' })
  assignment?: DiscussionAssignmentInput | null;
}

@InputType()
export class CreateDiscussionTopicInput extends DiscussionFieldsInput {
  @Field({ description: 'Course or Group' })
  contextType: string;
  @Field(() => ID, { description: 'Numeric, global or SIS id of the course or group.' })
  contextId: string;
  @Field(() => Boolean, { nullable: true })
  isAnnouncement?: boolean | null;
}

@InputType()
export class DiscussionRefInput {
  @Field(() => ID, { description: 'Numeric or global id of the topic.' })
  id: string;
  @Field(() => String, { nullable: true, description: 'With contextId: the course or group the topic must belong to.' })
  contextType?: string | null;
  @Field(() => ID, { nullable: true })
  contextId?: string | null;
}

@InputType()
export class UpdateDiscussionTopicInput extends DiscussionFieldsInput {
  @Field(() => ID)
  id: string;
  @Field(() => String, { nullable: true })
  contextType?: string | null;
  @Field(() => ID, { nullable: true })
  contextId?: string | null;
}

@InputType()
export class CreateDiscussionEntryInput {
  @Field(() => ID)
  discussionTopicId: string;
  @Field(() => String, { nullable: true })
  contextType?: string | null;
  @Field(() => ID, { nullable: true })
  contextId?: string | null;
  @Field(() => String, { nullable: true, description: 'HTML; sanitised; required.' })
  message?: string | null;
  @Field(() => ID, { nullable: true, description: 'The entry replied to.' })
  parentEntryId?: string | null;
}

@InputType()
export class MarkDiscussionReadInput extends DiscussionRefInput {
  @Field({ description: 'true marks read, false unread.' })
  read: boolean;
  @Field(() => Boolean, { nullable: true, description: 'Also mark every entry (read_all).' })
  allEntries?: boolean | null;
}

export const DiscussionTopicPayload = PayloadType('DiscussionTopicPayload', { discussionTopic: () => DiscussionType });

export const DiscussionEntryPayload = PayloadType('DiscussionEntryPayload', {
  discussionEntry: () => DiscussionEntryType,
});
