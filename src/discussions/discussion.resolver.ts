import { Arg, Args, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Assignment } from '../content/assignments/assignment.entity';
import { AssignmentType } from '../content/assignments/assignment.types';
import { CourseType } from '../courses/course.types';
import { Course } from '../courses/course.entity';
import type { RequestContext } from '../request/context';
import { NodeResolver, NodeType, registerNode } from '../api/graphql/node';
import { mutationPayload } from '../api/graphql/payload';
import { idArg, ConnectionArgs } from '../common/relay';
import { DateTimeScalar } from '../api/graphql/scalars';
import { GroupType } from '../groups/group.types';
import { Group } from '../groups/group.entity';
import { User } from '../users/user.entity';
import { UserType } from '../users/user.types';
import { DiscussionEntry } from './discussion-entry.entity';
import { DiscussionTopic } from './discussion-topic.entity';
import type { TopicRef } from './topic-inputs';
import {
  CreateDiscussionEntryInput,
  CreateDiscussionTopicInput,
  DiscussionConnection,
  DiscussionEntryConnection,
  DiscussionEntryPayload,
  DiscussionEntryType,
  DiscussionLockInfoType,
  DiscussionPermissionsType,
  DiscussionRefInput,
  DiscussionsArgs,
  DiscussionTopicPayload,
  DiscussionType,
  MarkDiscussionReadInput,
  StreamEntryType,
  StreamItemConnection,
  StreamItemType,
  StreamSummaryItemType,
  UpdateDiscussionTopicInput,
} from './discussion.types';
import { ListBound } from '../common/list-bounds';
import { DiscussionService } from './discussion.service';
import { DiscussionEntryService } from './discussion-entry.service';
import { GradedDiscussionService } from './graded-discussion.service';
import { ActivityStreamService } from './activity-stream.service';

registerNode(NodeType.Discussion, DiscussionTopic, async (ctx, id) => (await ctx.use(DiscussionService).locate({ id })).topic);
registerNode(NodeType.DiscussionEntry, DiscussionEntry, async (ctx, id) => {
  const entry = await ctx.loaders.byId(DiscussionEntry).load(id);
  if (!entry) return null;
  const { topic } = await ctx.use(DiscussionService).locate({ id: entry.discussionTopicId });
  return ctx.use(DiscussionEntryService).find(topic, id);
});

/** Course and group ids take their global ids too; topic ids theirs. */
const contextIdArg = (type: string | null | undefined, id: string | null | undefined) => (id == null ? id : idArg(id, type ?? ''));
const topicRef = (r: { id: string; contextType?: string | null; contextId?: string | null }): TopicRef => ({
  id: idArg(r.id, 'Discussion'),
  contextType: r.contextType,
  contextId: contextIdArg(r.contextType, r.contextId),
});

@Resolver(() => DiscussionType)
export class DiscussionResolver extends NodeResolver(NodeType.Discussion, DiscussionType) {
  @Query(() => DiscussionType, { description: 'A topic the viewer may see; with a context, it must belong to it.' })
  discussionTopic(
    @Arg('id', () => ID) id: string,
    @Arg('contextType', () => String, { nullable: true }) contextType: string | null,
    @Arg('contextId', () => ID, { nullable: true }) contextId: string | null,
    @Ctx() ctx: RequestContext,
  ): Promise<DiscussionTopic> {
    return ctx.use(DiscussionService).show(topicRef({ id, contextType, contextId }));
  }

  @Query(() => DiscussionConnection, { description: "A course's or group's topics (or announcements) the viewer may see." })
  discussionTopics(
    @Arg('contextType', { description: 'Course or Group' }) contextType: string,
    @Arg('contextId', () => ID) contextId: string,
    @Args() args: DiscussionsArgs,
    @Ctx() ctx: RequestContext,
  ) {
    return ctx.use(DiscussionService).list(contextType, contextIdArg(contextType, contextId)!, args);
  }

  @Mutation(() => DiscussionTopicPayload, { description: 'Creates a topic, or with isAnnouncement an announcement.' })
  createDiscussionTopic(@Arg('input') input: CreateDiscussionTopicInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(DiscussionService).create(input.contextType, contextIdArg(input.contextType, input.contextId)!, input));
  }

  @Mutation(() => DiscussionTopicPayload, { description: 'Updates a topic (its author or a moderator).' })
  updateDiscussionTopic(@Arg('input') input: UpdateDiscussionTopicInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(DiscussionService).update(topicRef(input), input));
  }

  @Mutation(() => DiscussionTopicPayload, { description: 'Deletes a topic (a moderator, or its author while it has no entries).' })
  deleteDiscussionTopic(@Arg('input') input: DiscussionRefInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(DiscussionService).delete(topicRef(input)));
  }

  @Mutation(() => DiscussionTopicPayload, { description: 'Marks a topic (and optionally all its entries) read or unread for the viewer.' })
  markDiscussionTopicRead(@Arg('input') input: MarkDiscussionReadInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() => ctx.use(DiscussionService).markRead(topicRef(input), input.read, Boolean(input.allEntries)));
  }

  @Mutation(() => DiscussionEntryPayload, { description: 'Posts an entry (or, with parentEntryId, a reply) to a topic.' })
  createDiscussionEntry(@Arg('input') input: CreateDiscussionEntryInput, @Ctx() ctx: RequestContext) {
    return mutationPayload(() =>
      ctx.use(DiscussionEntryService).create(topicRef({ id: input.discussionTopicId, contextType: input.contextType, contextId: input.contextId }), {
        message: input.message,
        parentEntryId: input.parentEntryId == null ? input.parentEntryId : idArg(input.parentEntryId, 'DiscussionEntry'),
      }),
    );
  }

  @FieldResolver(() => Boolean)
  locked(@Root() t: DiscussionTopic): boolean {
    return t.closed();
  }

  @FieldResolver(() => UserType, { nullable: true })
  author(@Root() t: DiscussionTopic, @Ctx() ctx: RequestContext): Promise<User | null> {
    return ctx.use(DiscussionService).author(t);
  }

  @FieldResolver(() => String, { nullable: true })
  async userName(@Root() t: DiscussionTopic, @Ctx() ctx: RequestContext): Promise<string | null> {
    return (await ctx.use(DiscussionService).author(t))?.name ?? null;
  }

  @FieldResolver(() => AssignmentType, { nullable: true, description: 'The assignment grading the topic (graded discussions).' })
  assignment(@Root() t: DiscussionTopic, @Ctx() ctx: RequestContext): Promise<Assignment | null> {
    return ctx.use(GradedDiscussionService).assignmentOf(t);
  }

  @FieldResolver(() => String)
  htmlUrl(@Root() t: DiscussionTopic, @Ctx() ctx: RequestContext): string {
    return ctx.use(DiscussionService).htmlUrl(t);
  }

  @FieldResolver(() => Int, { description: 'Active entries, replies included.' })
  discussionSubentryCount(@Root() t: DiscussionTopic, @Ctx() ctx: RequestContext): Promise<number> {
    return ctx.use(DiscussionService).loaders.entryCount(false).load(t.id);
  }

  @FieldResolver(() => Int, { description: 'Active top-level entries.' })
  rootEntryCount(@Root() t: DiscussionTopic, @Ctx() ctx: RequestContext): Promise<number> {
    return ctx.use(DiscussionService).loaders.entryCount(true).load(t.id);
  }

  @FieldResolver(() => String, { description: 'read or unread, for the viewer.' })
  readState(@Root() t: DiscussionTopic, @Ctx() ctx: RequestContext): Promise<string> {
    return ctx.use(DiscussionService).readState(t);
  }

  @FieldResolver(() => Int, { description: "Others' entries the viewer has not read." })
  unreadCount(@Root() t: DiscussionTopic, @Ctx() ctx: RequestContext): Promise<number> {
    return ctx.use(DiscussionService).unreadCount(t);
  }

  @FieldResolver(() => Boolean)
  subscribed(@Root() t: DiscussionTopic, @Ctx() ctx: RequestContext): Promise<boolean> {
    return ctx.use(DiscussionService).subscribed(t);
  }

  @FieldResolver(() => Boolean, { description: 'False while a require_initial_post topic awaits the viewer’s post.' })
  userCanSeePosts(@Root() t: DiscussionTopic, @Ctx() ctx: RequestContext): Promise<boolean> {
    return ctx.use(DiscussionService).userCanSeePosts(t);
  }

  @FieldResolver(() => DiscussionLockInfoType, { nullable: true, description: 'Null when nothing locks the topic for the viewer.' })
  lockInfo(@Root() t: DiscussionTopic, @Ctx() ctx: RequestContext) {
    return ctx.use(DiscussionService).lockInfo(t);
  }

  @FieldResolver(() => DiscussionPermissionsType)
  permissions(@Root() t: DiscussionTopic, @Ctx() ctx: RequestContext) {
    return ctx.use(DiscussionService).permissions(t);
  }

  @FieldResolver(() => Boolean, { description: 'A moderator may make it a draft again: a topic without entries.' })
  async canUnpublish(@Root() t: DiscussionTopic, @Ctx() ctx: RequestContext): Promise<boolean> {
    const [rights, entries] = await Promise.all([ctx.use(DiscussionService).rightsFor(t), ctx.use(DiscussionService).loaders.entryCount(false).load(t.id)]);
    return !t.isAnnouncement && rights.moderate && entries === 0;
  }

  @FieldResolver(() => Boolean)
  async canLock(@Root() t: DiscussionTopic, @Ctx() ctx: RequestContext): Promise<boolean> {
    return (await ctx.use(DiscussionService).rightsFor(t)).moderate;
  }

  @FieldResolver(() => DiscussionEntryConnection, { description: 'Top-level entries, newest first.' })
  entriesConnection(@Root() t: DiscussionTopic, @Args() args: ConnectionArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(DiscussionEntryService).list(t, args);
  }

  @FieldResolver(() => DiscussionEntryType, { description: 'One entry of the topic.' })
  entry(@Root() t: DiscussionTopic, @Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<DiscussionEntry> {
    return ctx.use(DiscussionEntryService).find(t, idArg(id, 'DiscussionEntry'));
  }
}

@Resolver(() => DiscussionEntryType)
export class DiscussionEntryResolver extends NodeResolver(NodeType.DiscussionEntry, DiscussionEntryType) {
  @FieldResolver(() => UserType, { nullable: true })
  author(@Root() e: DiscussionEntry, @Ctx() ctx: RequestContext): Promise<User | null> {
    return ctx.use(DiscussionEntryService).author(e);
  }

  @FieldResolver(() => String, { nullable: true })
  async userName(@Root() e: DiscussionEntry, @Ctx() ctx: RequestContext): Promise<string | null> {
    return (await ctx.use(DiscussionEntryService).author(e))?.name ?? null;
  }

  @FieldResolver(() => String, { description: 'read or unread, for the viewer.' })
  readState(@Root() e: DiscussionEntry, @Ctx() ctx: RequestContext): Promise<string> {
    return ctx.use(DiscussionEntryService).readState(e);
  }

  @ListBound(10)
  @FieldResolver(() => [DiscussionEntryType], { description: 'The ten newest replies under a top-level entry.' })
  async recentReplies(@Root() e: DiscussionEntry, @Ctx() ctx: RequestContext): Promise<DiscussionEntry[]> {
    return (await ctx.use(DiscussionEntryService).recentReplies(e)).replies;
  }

  @FieldResolver(() => Boolean, { description: 'More than ten replies under a top-level entry.' })
  async hasMoreReplies(@Root() e: DiscussionEntry, @Ctx() ctx: RequestContext): Promise<boolean> {
    return (await ctx.use(DiscussionEntryService).recentReplies(e)).more;
  }

  @FieldResolver(() => DiscussionEntryConnection, { description: 'All replies under the same top-level entry, newest first.' })
  repliesConnection(@Root() e: DiscussionEntry, @Args() args: ConnectionArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(DiscussionEntryService).replies(e, args);
  }
}

@Resolver(() => StreamItemType)
export class StreamItemResolver {
  @Query(() => StreamItemConnection, { description: "The viewer's activity stream of a group, newest activity first." })
  groupActivityStream(@Arg('groupId', () => ID) groupId: string, @Args() args: ConnectionArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(ActivityStreamService).scope('Group', contextIdArg('Group', groupId)).then((s) => ctx.use(ActivityStreamService).stream(s, args));
  }

  @Query(() => StreamItemConnection, { description: "The viewer's activity stream of a course, newest activity first." })
  courseActivityStream(@Arg('courseId', () => ID) courseId: string, @Args() args: ConnectionArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(ActivityStreamService).scope('Course', contextIdArg('Course', courseId)).then((s) => ctx.use(ActivityStreamService).stream(s, args));
  }

  @Query(() => StreamItemConnection, { description: "The viewer's activity stream across their courses and groups." })
  viewerActivityStream(@Args() args: ConnectionArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(ActivityStreamService).scope('User').then((s) => ctx.use(ActivityStreamService).stream(s, args));
  }

  @ListBound(10)
  @Query(() => [StreamSummaryItemType], { description: 'Counts per item type of a group activity stream.' })
  groupActivityStreamSummary(@Arg('groupId', () => ID) groupId: string, @Ctx() ctx: RequestContext) {
    return ctx.use(ActivityStreamService).scope('Group', contextIdArg('Group', groupId)).then((s) => ctx.use(ActivityStreamService).summary(s));
  }

  @ListBound(10)
  @Query(() => [StreamSummaryItemType], { description: 'Counts per item type of a course activity stream.' })
  courseActivityStreamSummary(@Arg('courseId', () => ID) courseId: string, @Ctx() ctx: RequestContext) {
    return ctx.use(ActivityStreamService).scope('Course', contextIdArg('Course', courseId)).then((s) => ctx.use(ActivityStreamService).summary(s));
  }

  @ListBound(10)
  @Query(() => [StreamSummaryItemType], { description: "Counts per item type of the viewer's activity stream." })
  viewerActivityStreamSummary(@Ctx() ctx: RequestContext) {
    return ctx.use(ActivityStreamService).scope('User').then((s) => ctx.use(ActivityStreamService).summary(s));
  }

  @FieldResolver(() => ID)
  _id(@Root() t: DiscussionTopic): string {
    return String(t.id);
  }

  @FieldResolver(() => String)
  type(@Root() t: DiscussionTopic): string {
    return t.isAnnouncement ? 'Announcement' : 'DiscussionTopic';
  }

  @FieldResolver(() => Boolean)
  async readState(@Root() t: DiscussionTopic, @Ctx() ctx: RequestContext): Promise<boolean> {
    return (await ctx.use(DiscussionService).readState(t)) === 'read';
  }

  @FieldResolver(() => DateTimeScalar)
  createdAt(@Root() t: DiscussionTopic): Date {
    return t.postedAt ?? t.createdAt;
  }

  @FieldResolver(() => DateTimeScalar)
  updatedAt(@Root() t: DiscussionTopic): Date {
    return t.activityAt ?? t.updatedAt;
  }

  @FieldResolver(() => String)
  htmlUrl(@Root() t: DiscussionTopic, @Ctx() ctx: RequestContext): string {
    return ctx.use(DiscussionService).htmlUrl(t, t.isAnnouncement ? 'announcements' : 'discussion_topics');
  }

  @FieldResolver(() => Int)
  totalRootDiscussionEntries(@Root() t: DiscussionTopic, @Ctx() ctx: RequestContext): Promise<number> {
    return ctx.use(DiscussionService).loaders.entryCount(true).load(t.id);
  }

  @FieldResolver(() => Boolean, { nullable: true })
  userHasPosted(@Root() t: DiscussionTopic, @Ctx() ctx: RequestContext): Promise<boolean | null> {
    return ctx.use(ActivityStreamService).userHasPosted(t);
  }

  @ListBound(3)
  @FieldResolver(() => [StreamEntryType])
  async rootDiscussionEntries(@Root() t: DiscussionTopic, @Ctx() ctx: RequestContext): Promise<StreamEntryType[]> {
    const entries = await ctx.use(ActivityStreamService).rootEntries(t);
    const users = await ctx.loaders.byId(User).loadMany(entries.map((e) => e.userId));
    return entries.map((e, i) => {
      const u = users[i];
      return { userId: e.userId, userName: u && !(u instanceof Error) ? u.shortName : null, message: e.message };
    });
  }

  @FieldResolver(() => DiscussionType)
  discussionTopic(@Root() t: DiscussionTopic): DiscussionTopic {
    return t;
  }
}

@Resolver(() => GroupType)
export class GroupDiscussionsResolver {
  @FieldResolver(() => DiscussionConnection, { description: 'Topics (or announcements) of the group the viewer may see.' })
  discussionsConnection(@Root() g: Group, @Args() args: DiscussionsArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(DiscussionService).listIn({ type: 'Group', id: g.id, group: g }, args);
  }
}

@Resolver(() => CourseType)
export class CourseDiscussionsResolver {
  @FieldResolver(() => DiscussionConnection, { description: 'Topics (or announcements) of the course the viewer may see.' })
  discussionsConnection(@Root() c: Course, @Args() args: DiscussionsArgs, @Ctx() ctx: RequestContext) {
    return ctx.use(DiscussionService).listIn({ type: 'Course', id: c.id, course: c }, args);
  }
}

/** Every resolver class of the area, for the schema. */
export const discussionResolvers = [DiscussionResolver, DiscussionEntryResolver, StreamItemResolver, GroupDiscussionsResolver, CourseDiscussionsResolver] as const;
