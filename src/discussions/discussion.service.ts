import { Brackets, EntityManager } from 'typeorm';
import { ForbiddenError, NotFoundError, ValidationError, Validator } from '../common/errors';
import { sanitizeHtml } from '../common/sanitize';
import { nowToSecond } from '../db/columns';
import { pagePerParent, settleEach } from '../db/page-per-parent';
import { transaction } from '../db/transaction';
import { raise } from '../events/domain-events';
import type { RequestContext } from '../request/context';
import { ConnectionResult, pageWindow } from '../common/relay';
import { User } from '../users/user.entity';
import { DiscussionContext, DiscussionContexts, DiscussionRights } from './discussion-context';
import { DiscussionEntry } from './discussion-entry.entity';
import { DiscussionParticipant } from './discussion-participant.entity';
import { DISCUSSION_TYPES, DiscussionTopic, DiscussionType } from './discussion-topic.entity';
import { DiscussionLoaders } from './discussion.loaders';
import { containsPattern } from '../common/like';
import type { GradingPlan, TopicAssignmentInput } from './graded-discussion.service';
import { nextActivitySeq } from './topic-publishing';
import { GradedDiscussionService } from './graded-discussion.service';

/** Canvas's maximum_string_length; and the most a TEXT column holds on MySQL. */
export const TITLE_MAX = 255;
export const MESSAGE_MAX_BYTES = 65_535;
export const DEFAULT_TITLE = 'No Title';

/** Field errors Canvas's controller (not the model) reports: rendered as plain strings, as Canvas does. */
export const CONTROLLER_ERROR = 'unauthorized';

export interface TopicFields {
  title?: string | null;
  message?: string | null;
  discussionType?: string | null;
  published?: boolean | null;
  delayedPostAt?: Date | null;
  lockAt?: Date | null;
  locked?: boolean | null;
  requireInitialPost?: boolean | null;
  pinned?: boolean | null;
  todoDate?: Date | null;
  /** Canvas's assignment[...] params: make the (course) topic graded, change its assignment, or with setAssignment false ungrade it. */
  assignment?: TopicAssignmentInput | null;
}

export interface CreateTopicInput extends TopicFields {
  isAnnouncement?: boolean | null;
}

/** A topic as a path names it: its id, and (REST) the course or group it must belong to. */
export interface TopicRef {
  id: string | number;
  contextType?: string | null;
  contextId?: string | null;
}

export interface TopicListArgs {
  first?: number | null;
  after?: string | null;
  onlyAnnouncements?: boolean | null;
  orderBy?: string | null;
  searchTerm?: string | null;
}

export interface Located {
  topic: DiscussionTopic;
  context: DiscussionContext;
  rights: DiscussionRights;
}

export const ORDERS = ['position', 'recent_activity', 'title'] as const;

const contentChanged = (before: { title: string; message: string | null }, topic: DiscussionTopic): boolean => before.title !== topic.title || before.message !== topic.message;

// modules/ still imports these from here.
export { nextActivitySeq, setTopicsPublished } from './topic-publishing';

/** Times are kept to the second, as Canvas renders them (MySQL would round the rest, SQLite keep it). */
const toSecond = (d: Date) => new Date(Math.floor(d.getTime() / 1000) * 1000);

/**
 * Canvas's prefer_assignment_availability_dates: a graded topic's availability comes from its
 * assignment, so assignment[unlock_at] clears the topic's delayed_post_at and assignment[lock_at] its lock_at.
 */
function preferAssignmentDates(input: TopicFields, plan: GradingPlan | null): TopicFields {
  if (plan?.kind !== 'grade') return input;
  const out = { ...input };
  if (plan.fields.unlockAt !== undefined) out.delayedPostAt = null;
  if (plan.fields.lockAt !== undefined) out.lockAt = null;
  return out;
}

/** A LIKE pattern with an explicit escape character: SQLite has no default one, and `!` needs no doubling in MySQL. */

export class DiscussionService {
  readonly contexts: DiscussionContexts;
  readonly loaders: DiscussionLoaders;

  constructor(private readonly ctx: RequestContext) {
    // The request's instances: graded discussions ask them too, and rights are cached per instance.
    this.contexts = ctx.use(DiscussionContexts);
    this.loaders = ctx.use(DiscussionLoaders);
  }

  // ---- lookups and visibility -------------------------------------------------------------------

  /** Whether the viewer sees a topic of a context they may read: moderators see everything live. */
  static visible(topic: DiscussionTopic, rights: DiscussionRights): boolean {
    if (topic.workflowState === 'deleted' || !rights.read) return false;
    if (rights.moderate) return true;
    // Students never see drafts, nor an announcement before its delayed post date.
    return topic.published && !(topic.isAnnouncement && topic.notYetPosted());
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
      if (!topic || topic.contextType !== context.type || topic.contextId !== context.id || !DiscussionService.visible(topic, rights)) throw new NotFoundError();
      return { topic, context, rights };
    }
    if (!topic || topic.workflowState === 'deleted') throw new NotFoundError();
    context = await this.contexts.load(topic.contextType, topic.contextId);
    if (!context) throw new NotFoundError();
    const rights = await this.contexts.readable(context);
    if (!DiscussionService.visible(topic, rights)) throw new NotFoundError();
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

  // ---- lists ------------------------------------------------------------------------------------

  /**
   * A context's topics (or, with onlyAnnouncements, its announcements) that the viewer may see.
   * Topics: pinned ones first in their order, then newest first; announcements newest posted first.
   */
  async list(contextType: string, contextRaw: string, args: TopicListArgs): Promise<ConnectionResult<DiscussionTopic>> {
    const context = await this.contexts.lookup(contextType, contextRaw);
    return this.listIn(context, args);
  }

  /** One context's list (as list). Batched across contexts of one type (listInMany): a list of courses each asking for its topics. */
  listIn(context: DiscussionContext, args: TopicListArgs): Promise<ConnectionResult<DiscussionTopic>> {
    return this.ctx.loaders.perParent(`discussions:${context.type}`, args, (contexts: readonly DiscussionContext[]) => this.listInMany(contexts, args)).load(context);
  }

  /**
   * One page of topics per context (all of one type) in one statement pair: moderators see drafts,
   * others active topics (and announcements once posted); a context the viewer may not read is
   * refused alone.
   */
  async listInMany(contexts: readonly DiscussionContext[], args: TopicListArgs): Promise<(ConnectionResult<DiscussionTopic> | Error)[]> {
    const orderBy = args.orderBy ?? 'position';
    // The permission first, as for one context: a refused caller learns nothing, not even about its arguments.
    const rights = await settleEach(contexts, async (c) => {
      const r = await this.contexts.readable(c);
      if (!(ORDERS as readonly string[]).includes(orderBy)) throw ValidationError.of('order_by', 'inclusion', `order_by must be one of ${ORDERS.join(', ')}`);
      return r;
    });
    const readable = contexts.filter((_, i) => !(rights[i] instanceof Error));
    const moderated = readable.filter((c) => (rights[contexts.indexOf(c)] as DiscussionRights).moderate).map((c) => c.id);
    const others = readable.filter((c) => !(rights[contexts.indexOf(c)] as DiscussionRights).moderate).map((c) => c.id);
    const qb = this.ctx.ds
      .getRepository(DiscussionTopic)
      .createQueryBuilder('t')
      .where('t.context_type = :ct', { ct: contexts[0]?.type })
      .andWhere('t.is_announcement = :ann', { ann: Boolean(args.onlyAnnouncements) })
      .andWhere(
        new Brackets((b) => {
          b.where('1 = 0');
          if (moderated.length) b.orWhere('(t.workflow_state <> :deleted AND t.context_id IN (:...moderated))', { deleted: 'deleted', moderated });
          if (others.length) {
            const posted = args.onlyAnnouncements ? ' AND (t.delayed_post_at IS NULL OR t.delayed_post_at <= :now)' : '';
            b.orWhere(`(t.workflow_state = :active AND t.context_id IN (:...others)${posted})`, { active: 'active', others, now: new Date() });
          }
        }),
      );
    const term = args.searchTerm?.trim();
    if (term) {
      const like = containsPattern(term);
      qb.andWhere(new Brackets((b) => b.where("LOWER(t.title) LIKE :like ESCAPE '!'", { like }).orWhere("LOWER(t.message) LIKE :like ESCAPE '!'", { like })));
    }
    const order: [string, 'ASC' | 'DESC'][] = args.onlyAnnouncements
      ? [['posted_at', 'DESC'], ['id', 'DESC']]
      : orderBy === 'title'
        ? [['title', 'ASC'], ['id', 'ASC']]
        : orderBy === 'recent_activity'
          ? [['last_reply_at', 'DESC'], ['posted_at', 'DESC'], ['id', 'DESC']]
          : [['pinned', 'DESC'], ['position', 'ASC'], ['created_at', 'DESC'], ['id', 'DESC']];
    const pages = await pagePerParent(qb, 'context_id', order, readable.map((c) => c.id), pageWindow(args));
    // The loader cache learns the rows, so per-topic lookups by id that follow cost nothing.
    for (const page of pages.values()) for (const r of page.nodes) this.ctx.loaders.byId(DiscussionTopic).prime(r.id, r);
    return contexts.map((c, i) => (rights[i] instanceof Error ? (rights[i] as Error) : pages.get(c.id)!));
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
    const bumped = this.apply(topic, preferAssignmentDates(input, plan), rights, true, false, plan);

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
    if (!this.canUpdate(topic, rights)) throw new ForbiddenError();
    const draft = Object.assign(new DiscussionTopic(), topic);
    const wasPinned = topic.pinned;
    const hasEntries = input.published === false && topic.published ? (await this.loaders.entryCount(false).load(topic.id)) > 0 : false;
    const plan = await this.ctx.use(GradedDiscussionService).plan(context, topic, input.assignment);
    const bumped = this.apply(draft, preferAssignmentDates(input, plan), rights, false, hasEntries, plan);
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

  /**
   * Validates and applies the fields a caller sent (undefined = not sent). Throws with every problem
   * at once; the topic is only saved by the caller when this returns. Returns whether the topic moved
   * in activity streams.
   */
  private apply(topic: DiscussionTopic, input: TopicFields, rights: DiscussionRights, creating: boolean, hasEntries = false, grading: GradingPlan | null = null): boolean {
    const v = new Validator();
    const controller = new Validator();
    const before = { title: topic.title, message: topic.message, published: topic.published };
    if (input.title !== undefined) {
      const title = (input.title ?? '').trim();
      if (title.length > TITLE_MAX) v.add('title', 'too_long', `is too long (maximum is ${TITLE_MAX} characters)`);
      else topic.title = title || DEFAULT_TITLE;
    }
    if (input.message !== undefined) {
      const message = input.message == null ? null : sanitizeHtml(input.message, this.ctx.app.config);
      if (message != null && Buffer.byteLength(message, 'utf8') > MESSAGE_MAX_BYTES) v.add('message', 'too_long', `is too long (maximum is ${MESSAGE_MAX_BYTES} characters)`);
      else topic.message = message;
    }
    if (input.discussionType != null) {
      if (!(DISCUSSION_TYPES as readonly string[]).includes(input.discussionType)) {
        v.add('discussion_type', 'inclusion', `discussion_type must be one of ${DISCUSSION_TYPES.join(', ')}`);
      } else topic.discussionType = input.discussionType as DiscussionType;
    }
    if (input.requireInitialPost != null) topic.requireInitialPost = input.requireInitialPost;
    // Pinning and closing for comments are moderators' business; others' values are ignored.
    if (input.pinned != null && rights.moderate) topic.pinned = input.pinned;
    if (input.locked != null && (rights.moderate || creating)) topic.locked = input.locked;

    for (const k of ['delayedPostAt', 'lockAt', 'todoDate'] as const) if (input[k]) input = { ...input, [k]: toSecond(input[k]!) };
    const delayedChanged = input.delayedPostAt !== undefined && (input.delayedPostAt?.getTime() ?? null) !== (topic.delayedPostAt?.getTime() ?? null);
    if (input.delayedPostAt !== undefined) topic.delayedPostAt = input.delayedPostAt;
    if (input.lockAt !== undefined) topic.lockAt = input.lockAt;
    if (topic.delayedPostAt && topic.lockAt && topic.lockAt.getTime() < topic.delayedPostAt.getTime()) {
      v.add('lock_at', 'invalid', 'Lock date cannot be before the delayed post date');
    }

    // Publishing: announcements are always published; only moderators make drafts.
    if (!topic.isAnnouncement && input.published != null && input.published !== topic.published) {
      if (input.published) topic.workflowState = 'active';
      else if (!rights.moderate) controller.add('published', CONTROLLER_ERROR, 'You do not have permission to set this topic to draft state.');
      else if (hasEntries) v.add('published', 'invalid', 'This topic cannot be set to draft state because it contains posts.');
      else topic.workflowState = 'unpublished';
    }

    // To-do dates are for ungraded topics: one being (or staying) graded refuses one, and becoming graded clears it.
    const graded = grading?.kind === 'grade' || (topic.assignmentId != null && grading?.kind !== 'remove');
    if (input.todoDate !== undefined) {
      if (input.todoDate != null && !rights.manageContent) {
        controller.add('todo_date', CONTROLLER_ERROR, 'You do not have permission to add this topic to the student to-do list.');
      } else if (input.todoDate != null && graded) {
        controller.add('todo_date', CONTROLLER_ERROR, 'Date cannot be added if discussion topic is graded');
      } else if (rights.manageContent) topic.todoDate = input.todoDate;
    } else if (grading?.kind === 'grade') topic.todoDate = null;
    // Canvas reports its controller's objections alone, before any model validation.
    controller.throwIfInvalid();
    v.throwIfInvalid();

    // Changed content, or a draft going (back) out, brings the topic to the top of activity streams.
    const bump = !creating && (contentChanged(before, topic) || !before.published);
    if (!topic.published) return false;
    this.schedule(topic, delayedChanged, bump);
    // Whether its place in activity streams changed: it then takes the next activity sequence number.
    return creating || bump || delayedChanged;
  }

  /**
   * posted_at is when the topic went (or, delayed, will go) out; activity_at places it in activity
   * streams: its posting, its latest top-level entry, or its latest change of content, which Canvas
   * answers by regenerating the stream item.
   */
  private schedule(topic: DiscussionTopic, delayedChanged: boolean, contentChanged: boolean): void {
    const now = nowToSecond();
    const future = topic.delayedPostAt && topic.delayedPostAt.getTime() > now.getTime() ? topic.delayedPostAt : null;
    if (topic.postedAt == null) topic.postedAt = future ?? now;
    else if (delayedChanged) topic.postedAt = future ?? (topic.postedAt.getTime() > now.getTime() ? now : topic.postedAt);
    let activity = topic.activityAt ?? topic.postedAt;
    if (contentChanged && !future) activity = now;
    topic.activityAt = activity.getTime() < topic.postedAt.getTime() ? topic.postedAt : activity;
  }

  // ---- per-topic facts for presenters -------------------------------------------------------------

  canUpdate(topic: DiscussionTopic, rights: DiscussionRights): boolean {
    if (rights.moderate) return true;
    const mine = this.ctx.viewer != null && topic.userId === this.ctx.viewer.id;
    return mine && (topic.isAnnouncement ? rights.createAnnouncement : rights.createTopic) && !topic.closed();
  }

  /** Whether the viewer may reply now: a reader with post rights, on a posted topic open for comments. */
  canReply(topic: DiscussionTopic, rights: DiscussionRights): boolean {
    if (!rights.post || !DiscussionService.visible(topic, rights)) return false;
    if (rights.moderate) return true;
    return topic.published && !topic.notYetPosted() && !topic.closed();
  }

  /** The topic's author, for callers who see the topic itself (re-checked here: a parent is never trusted). */
  async author(topic: DiscussionTopic): Promise<User | null> {
    if (topic.userId == null || !DiscussionService.visible(topic, await this.rightsFor(topic))) return null;
    return this.ctx.loaders.byId(User).load(topic.userId);
  }

  async readState(topic: DiscussionTopic): Promise<'read' | 'unread'> {
    const p = await this.loaders.viewerParticipant().load(topic.id);
    return p?.workflowState ?? 'unread';
  }

  unreadCount(topic: DiscussionTopic): Promise<number> {
    return this.loaders.unreadCount().load(topic.id);
  }

  /** With require_initial_post, posts are hidden from students until they have posted themselves. */
  async userCanSeePosts(topic: DiscussionTopic): Promise<boolean> {
    // Asked for every topic alike, so that each topic of a list waits on the same batches and what
    // its fields load next is batched together again (on a pooled engine, batches finish in any order).
    const [rights, posted] = await Promise.all([this.rightsFor(topic), this.loaders.viewerPosted().load(topic.id)]);
    return !topic.requireInitialPost || rights.moderate || posted;
  }

  /** Authors follow their topics, and so does anyone who has posted in one. */
  async subscribed(topic: DiscussionTopic): Promise<boolean> {
    if (!this.ctx.viewer) return false;
    const posted = await this.loaders.viewerPosted().load(topic.id);
    return topic.userId === this.ctx.viewer.id || posted;
  }

  /** Why the viewer cannot take part (yet), as Canvas's lock_info; null when nothing locks the topic for them. */
  async lockInfo(topic: DiscussionTopic): Promise<{ assetString: string; unlockAt: Date | null; lockAt: Date | null; canView: boolean; explanation: string } | null> {
    const rights = await this.rightsFor(topic);
    if (rights.moderate) return null;
    if (topic.notYetPosted()) {
      return { assetString: topic.assetString, unlockAt: topic.delayedPostAt, lockAt: null, canView: false, explanation: `This topic is locked until ${topic.delayedPostAt!.toISOString()}.` };
    }
    if (topic.lockAt && topic.lockAt.getTime() <= Date.now()) {
      return { assetString: topic.assetString, unlockAt: null, lockAt: topic.lockAt, canView: true, explanation: `This topic was locked ${topic.lockAt.toISOString()}.` };
    }
    // A graded topic is locked while its assignment is (before unlock_at, after lock_at), as Canvas's locked_for?.
    const a = topic.assignmentId != null ? await this.ctx.use(GradedDiscussionService).assignmentLock(topic) : null;
    if (a?.locked && a.unlockAt) {
      return { assetString: a.assetString, unlockAt: a.unlockAt, lockAt: null, canView: false, explanation: `This assignment is locked until ${a.unlockAt.toISOString()}.` };
    }
    if (a?.locked && a.lockAt) {
      return { assetString: a.assetString, unlockAt: null, lockAt: a.lockAt, canView: true, explanation: `This assignment was locked ${a.lockAt.toISOString()}.` };
    }
    return null;
  }

  async permissions(topic: DiscussionTopic): Promise<{ attach: boolean; update: boolean; reply: boolean; delete: boolean }> {
    const [rights, entries] = await Promise.all([this.rightsFor(topic), this.loaders.entryCount(false).load(topic.id)]);
    const update = this.canUpdate(topic, rights);
    const mine = this.ctx.viewer != null && topic.userId === this.ctx.viewer.id;
    const del = rights.moderate || (mine && entries === 0);
    return { attach: update, update, reply: await this.mayReply(topic, rights), delete: del };
  }

  /** canReply, and for a graded topic its assignment open to the viewer (Canvas: the topic is locked while its assignment is). */
  async mayReply(topic: DiscussionTopic, rights: DiscussionRights): Promise<boolean> {
    if (!this.canReply(topic, rights)) return false;
    if (rights.moderate || topic.assignmentId == null) return true;
    return !(await this.ctx.use(GradedDiscussionService).assignmentLock(topic))?.locked;
  }

  htmlUrl(topic: DiscussionTopic, kind: 'discussion_topics' | 'announcements' = 'discussion_topics'): string {
    return `${this.ctx.baseUrl}/${topic.contextType === 'Course' ? 'courses' : 'groups'}/${topic.contextId}/${kind}/${topic.id}`;
  }
}
