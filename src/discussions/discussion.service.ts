import { EntityManager } from 'typeorm';
import { ForbiddenError, NotFoundError } from '../common/errors';
import { nowToSecond } from '../db/columns';
import { transaction } from '../db/transaction';
import { raise } from '../events/domain-events';
import type { RequestContext } from '../request/context';
import type { ConnectionResult } from '../common/relay';
import type { User } from '../users/user.entity';
import { DiscussionContext, DiscussionContexts, DiscussionRights } from './discussion-context';
import { DiscussionEntry } from './discussion-entry.entity';
import { DiscussionParticipant } from './discussion-participant.entity';
import { DiscussionTopic } from './discussion-topic.entity';
import { DiscussionLoaders } from './discussion.loaders';
import { DEFAULT_TITLE } from './discussion.constants';
import { nextActivitySeq } from './topic-publishing';
import { GradedDiscussionService } from './graded-discussion.service';
import type { CreateTopicInput, Located, TopicFields, TopicListArgs, TopicRef } from './topic-inputs';
import { applyTopicFields, preferAssignmentDates } from './topic-fields';
import { TopicFactsService } from './topic-facts.service';
import { TopicListService } from './topic-list.service';
import { topicVisible } from './topic-visibility';

/**
 * Discussion topics: finding one the viewer may see, and topic writes. Topic lists live in
 * TopicListService and per-topic facts for presenters in TopicFactsService; the methods below
 * that delegate to them keep this the one door other areas use.
 */
export class DiscussionService {
  readonly contexts: DiscussionContexts;
  readonly loaders: DiscussionLoaders;

  constructor(private readonly ctx: RequestContext) {
    // The request's instances: graded discussions ask them too, and rights are cached per instance.
    this.contexts = ctx.use(DiscussionContexts);
    this.loaders = ctx.use(DiscussionLoaders);
  }

  private get facts(): TopicFactsService {
    return this.ctx.use(TopicFactsService);
  }

  private get lists(): TopicListService {
    return this.ctx.use(TopicListService);
  }

  // ---- lookups and visibility -------------------------------------------------------------------

  /** Whether the viewer sees a topic of a context they may read: moderators see everything live. */
  static visible(topic: DiscussionTopic, rights: DiscussionRights): boolean {
    return topicVisible(topic, rights);
  }

  /** Context rights for a stored topic (none when its context is gone). */
  rightsFor(topic: DiscussionTopic): Promise<DiscussionRights> {
    return this.contexts.rightsOfTopic(topic);
  }

  /**
   * The topic a caller names, with its context and the caller's rights there. A context the caller
   * may not read is 403; a topic that is missing, elsewhere or invisible to them is 404.
   */
  async locate(ref: TopicRef): Promise<Located> {
    this.ctx.authz.requireViewer();
    let context: DiscussionContext | null = null;
    if (ref.contextType != null && ref.contextId != null) context = await this.contexts.lookup(ref.contextType, ref.contextId);
    const id = /^\d{1,15}$/.test(String(ref.id).trim()) ? Number(String(ref.id).trim()) : null;
    const topic = id == null ? null : await this.ctx.loaders.byId(DiscussionTopic).load(id);
    if (context) {
      const rights = await this.contexts.readable(context);
      if (!topic || topic.contextType !== context.type || topic.contextId !== context.id || !topicVisible(topic, rights)) throw new NotFoundError();
      return { topic, context, rights };
    }
    if (!topic || topic.workflowState === 'deleted') throw new NotFoundError();
    context = await this.contexts.load(topic.contextType, topic.contextId);
    if (!context) throw new NotFoundError();
    const rights = await this.contexts.readable(context);
    if (!topicVisible(topic, rights)) throw new NotFoundError();
    return { topic, context, rights };
  }

  /** GET of one topic. Viewing course content counts as viewing it (module progress). */
  async show(ref: TopicRef): Promise<DiscussionTopic> {
    const { topic, context } = await this.locate(ref);
    if (context.course && (await this.isStudent(context))) {
      const userId = this.ctx.viewer!.id;
      await transaction(this.ctx.ds, (em) => raise(em, this.ctx, { type: 'content.viewed', courseId: topic.contextId, userId, contentType: 'Discussion', contentId: topic.id }));
    }
    return topic;
  }

  /** An active student of the topic's course: their views and posts count for module progress. */
  async isStudent(context: DiscussionContext): Promise<boolean> {
    if (!context.course || !this.ctx.viewer || !(await this.ctx.authz.canCourse(context.course, 'participate_as_student'))) return false;
    return (await this.ctx.authz.courseRoles(context.course)).types.has('StudentEnrollment');
  }

  // ---- lists (TopicListService) -----------------------------------------------------------------

  list(contextType: string, contextRaw: string, args: TopicListArgs): Promise<ConnectionResult<DiscussionTopic>> {
    return this.lists.list(contextType, contextRaw, args);
  }

  listIn(context: DiscussionContext, args: TopicListArgs): Promise<ConnectionResult<DiscussionTopic>> {
    return this.lists.listIn(context, args);
  }

  listInMany(contexts: readonly DiscussionContext[], args: TopicListArgs): Promise<(ConnectionResult<DiscussionTopic> | Error)[]> {
    return this.lists.listInMany(contexts, args);
  }

  // ---- writes -----------------------------------------------------------------------------------

  /** POST …/discussion_topics: a topic, or an announcement with isAnnouncement. */
  async create(contextType: string, contextRaw: string, input: CreateTopicInput): Promise<{ discussionTopic: DiscussionTopic }> {
    const context = await this.contexts.lookup(contextType, contextRaw);
    const viewer = this.ctx.authz.requireViewer();
    const rights = await this.contexts.readable(context);
    const announcement = Boolean(input.isAnnouncement);
    if (announcement ? !rights.createAnnouncement : !rights.createTopic) throw new ForbiddenError();

    const topic = this.ctx.ds.getRepository(DiscussionTopic).create({
      contextType: context.type,
      contextId: context.id,
      userId: viewer.id,
      title: DEFAULT_TITLE,
      message: null,
      isAnnouncement: announcement,
      // Canvas makes a moderator's new topic a draft unless told to publish it; announcements are always published.
      workflowState: !announcement && rights.moderate && input.published == null ? 'unpublished' : 'active',
      discussionType: 'side_comment',
      postedAt: null,
      delayedPostAt: null,
      lockAt: null,
      // Course announcements are closed for comments unless the caller says otherwise.
      locked: announcement && context.type === 'Course',
      lastReplyAt: null,
      activityAt: null,
      todoDate: null,
      assignmentId: null,
      pinned: false,
      position: null,
      requireInitialPost: false,
      deletedAt: null,
    });
    const plan = await this.ctx.use(GradedDiscussionService).plan(context, topic, input.assignment);
    const bumped = applyTopicFields(topic, preferAssignmentDates(input, plan), rights, this.ctx.app.config, true, false, plan);

    return transaction(this.ctx.ds, async (em) => {
      if (topic.pinned) topic.position = await this.nextPosition(em, topic);
      if (bumped) topic.activitySeq = await nextActivitySeq(em);
      const saved = await em.getRepository(DiscussionTopic).save(topic);
      await this.ctx.use(GradedDiscussionService).afterSave(em, saved, context.course, plan);
      // The author has read their own topic.
      await em.getRepository(DiscussionParticipant).save(
        em.getRepository(DiscussionParticipant).create({ discussionTopicId: saved.id, userId: viewer.id, workflowState: 'read', lastReadEntryId: 0 }),
      );
      if (saved.contextType === 'Course') {
        await raise(em, this.ctx, { type: 'content.changed', courseId: saved.contextId, contentType: 'Discussion', contentId: saved.id, change: 'created' });
      }
      return { discussionTopic: saved };
    });
  }

  /** PUT …/discussion_topics/:id: the author or a moderator. */
  async update(ref: TopicRef, input: TopicFields): Promise<{ discussionTopic: DiscussionTopic }> {
    const { topic, rights, context } = await this.locate(ref);
    if (!this.facts.canUpdate(topic, rights)) throw new ForbiddenError();
    const draft = Object.assign(new DiscussionTopic(), topic);
    const wasPinned = topic.pinned;
    const hasEntries = input.published === false && topic.published ? (await this.loaders.entryCount(false).load(topic.id)) > 0 : false;
    const plan = await this.ctx.use(GradedDiscussionService).plan(context, topic, input.assignment);
    const bumped = applyTopicFields(draft, preferAssignmentDates(input, plan), rights, this.ctx.app.config, false, hasEntries, plan);
    return transaction(this.ctx.ds, async (em) => {
      if (bumped) draft.activitySeq = await nextActivitySeq(em);
      if (draft.pinned && !wasPinned) draft.position = await this.nextPosition(em, draft);
      if (!draft.pinned) draft.position = null;
      const saved = await em.getRepository(DiscussionTopic).save(draft);
      await this.ctx.use(GradedDiscussionService).afterSave(em, saved, context.course, plan);
      if (saved.contextType === 'Course') {
        await raise(em, this.ctx, { type: 'content.changed', courseId: saved.contextId, contentType: 'Discussion', contentId: saved.id, change: 'updated' });
      }
      this.ctx.loaders.byId(DiscussionTopic).clear(saved.id).prime(saved.id, saved);
      return { discussionTopic: saved };
    });
  }

  /** DELETE …/discussion_topics/:id: moderators, or the author while nobody has replied. */
  async delete(ref: TopicRef): Promise<{ discussionTopic: DiscussionTopic }> {
    const { topic, rights } = await this.locate(ref);
    const viewer = this.ctx.authz.requireViewer();
    const ownUnanswered = topic.userId === viewer.id && (await this.loaders.entryCount(false).load(topic.id)) === 0;
    if (!rights.moderate && !ownUnanswered) throw new ForbiddenError();
    return transaction(this.ctx.ds, async (em) => {
      topic.workflowState = 'deleted';
      topic.deletedAt = nowToSecond();
      const saved = await em.getRepository(DiscussionTopic).save(topic);
      // A graded topic takes its assignment with it.
      await this.ctx.use(GradedDiscussionService).deleteWith(em, saved);
      if (saved.contextType === 'Course') {
        await raise(em, this.ctx, { type: 'content.changed', courseId: saved.contextId, contentType: 'Discussion', contentId: saved.id, change: 'deleted' });
      }
      return { discussionTopic: saved };
    });
  }

  /**
   * PUT/DELETE …/read and PUT …/read_all: marks the topic (and with allEntries its entries) read or
   * unread for the caller. Reading course content counts as viewing it.
   */
  async markRead(ref: TopicRef, read: boolean, allEntries = false): Promise<{ discussionTopic: DiscussionTopic }> {
    const { topic, context } = await this.locate(ref);
    const viewer = this.ctx.authz.requireViewer();
    const latest = allEntries && read ? await this.latestEntryId(topic.id) : 0;
    const student = read && (await this.isStudent(context));
    return transaction(this.ctx.ds, async (em) => {
      const repo = em.getRepository(DiscussionParticipant);
      const row = (await repo.findOneBy({ discussionTopicId: topic.id, userId: viewer.id })) ?? repo.create({ discussionTopicId: topic.id, userId: viewer.id, lastReadEntryId: 0 });
      row.workflowState = read ? 'read' : 'unread';
      if (allEntries) row.lastReadEntryId = read ? Math.max(row.lastReadEntryId, latest) : 0;
      await repo.save(row);
      if (student) {
        await raise(em, this.ctx, { type: 'content.viewed', courseId: topic.contextId, userId: viewer.id, contentType: 'Discussion', contentId: topic.id });
      }
      this.loaders.viewerParticipant().clear(topic.id);
      return { discussionTopic: topic };
    });
  }

  private async latestEntryId(topicId: number): Promise<number> {
    const row: { m: number | string | null } | undefined = await this.ctx.ds
      .getRepository(DiscussionEntry)
      .createQueryBuilder('e')
      .select('MAX(e.id)', 'm')
      .where('e.discussion_topic_id = :tid', { tid: topicId })
      .getRawOne();
    return Number(row?.m ?? 0);
  }

  private async nextPosition(em: EntityManager, topic: DiscussionTopic): Promise<number> {
    const row: { m: number | string | null } | undefined = await em
      .getRepository(DiscussionTopic)
      .createQueryBuilder('t')
      .select('MAX(t.position)', 'm')
      .where('t.context_type = :ct AND t.context_id = :cid AND t.pinned = :pinned', { ct: topic.contextType, cid: topic.contextId, pinned: true })
      .getRawOne();
    return Number(row?.m ?? 0) + 1;
  }

  // ---- per-topic facts for presenters (TopicFactsService) ---------------------------------------

  canUpdate(topic: DiscussionTopic, rights: DiscussionRights): boolean {
    return this.facts.canUpdate(topic, rights);
  }

  canReply(topic: DiscussionTopic, rights: DiscussionRights): boolean {
    return this.facts.canReply(topic, rights);
  }

  author(topic: DiscussionTopic): Promise<User | null> {
    return this.facts.author(topic);
  }

  readState(topic: DiscussionTopic): Promise<'read' | 'unread'> {
    return this.facts.readState(topic);
  }

  unreadCount(topic: DiscussionTopic): Promise<number> {
    return this.facts.unreadCount(topic);
  }

  userCanSeePosts(topic: DiscussionTopic): Promise<boolean> {
    return this.facts.userCanSeePosts(topic);
  }

  subscribed(topic: DiscussionTopic): Promise<boolean> {
    return this.facts.subscribed(topic);
  }

  lockInfo(topic: DiscussionTopic): ReturnType<TopicFactsService['lockInfo']> {
    return this.facts.lockInfo(topic);
  }

  permissions(topic: DiscussionTopic): ReturnType<TopicFactsService['permissions']> {
    return this.facts.permissions(topic);
  }

  mayReply(topic: DiscussionTopic, rights: DiscussionRights): Promise<boolean> {
    return this.facts.mayReply(topic, rights);
  }

  htmlUrl(topic: DiscussionTopic, kind: 'discussion_topics' | 'announcements' = 'discussion_topics'): string {
    return this.facts.htmlUrl(topic, kind);
  }
}
