import type { RequestContext } from '../request/context';
import { User } from '../users/user.entity';
import { DiscussionContexts, DiscussionRights } from './discussion-context';
import { DiscussionTopic } from './discussion-topic.entity';
import { DiscussionLoaders } from './discussion.loaders';
import { GradedDiscussionService } from './graded-discussion.service';
import { topicVisible } from './topic-visibility';

/** Per-topic facts for presenters: what the viewer may do with a topic, and how it stands for them. */
export class TopicFactsService {
  private readonly contexts: DiscussionContexts;
  private readonly loaders: DiscussionLoaders;

  constructor(private readonly ctx: RequestContext) {
    // The request's instances: rights and loads are cached per instance.
    this.contexts = ctx.use(DiscussionContexts);
    this.loaders = ctx.use(DiscussionLoaders);
  }

  /** Context rights for a stored topic (none when its context is gone). */
  rightsFor(topic: DiscussionTopic): Promise<DiscussionRights> {
    return this.contexts.rightsOfTopic(topic);
  }

  canUpdate(topic: DiscussionTopic, rights: DiscussionRights): boolean {
    if (rights.moderate) return true;
    const mine = this.ctx.viewer != null && topic.userId === this.ctx.viewer.id;
    return mine && (topic.isAnnouncement ? rights.createAnnouncement : rights.createTopic) && !topic.closed();
  }

  /** Whether the viewer may reply now: a reader with post rights, on a posted topic open for comments. */
  canReply(topic: DiscussionTopic, rights: DiscussionRights): boolean {
    if (!rights.post || !topicVisible(topic, rights)) return false;
    if (rights.moderate) return true;
    return topic.published && !topic.notYetPosted() && !topic.closed();
  }

  /** The topic's author, for callers who see the topic itself (re-checked here: a parent is never trusted). */
  async author(topic: DiscussionTopic): Promise<User | null> {
    if (topic.userId == null || !topicVisible(topic, await this.rightsFor(topic))) return null;
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
