import { ForbiddenError, NotFoundError, RequestError, Validator } from '../common/errors';
import { sanitizeHtml } from '../common/sanitize';
import { nowToSecond } from '../db/columns';
import { transaction } from '../db/transaction';
import { raise } from '../events/domain-events';
import type { RequestContext } from '../request/context';
import { keysetConnection } from '../common/connection';
import { KeyWindow, keyWindow } from '../common/keyset';
import { ConnectionResult } from '../common/relay';
import { User } from '../users/user.entity';
import { DiscussionEntry } from './discussion-entry.entity';
import { DiscussionParticipant } from './discussion-participant.entity';
import { DiscussionTopic } from './discussion-topic.entity';
import { RECENT_REPLIES_LIMIT } from './discussion.loaders';
import { DiscussionService } from './discussion.service';
import { MESSAGE_MAX_BYTES } from './discussion.constants';
import type { TopicRef } from './topic-inputs';
import { nextActivitySeq } from './topic-publishing';
import { GradedDiscussionService } from './graded-discussion.service';

export interface EntryInput {
  message?: string | null;
  /** The entry replied to; a top-level entry when absent. */
  parentEntryId?: string | null;
}

/** Canvas answers 403 with this bare JSON string while a require_initial_post topic awaits the caller's post. */
export const REQUIRE_INITIAL_POST = 'require_initial_post';

/**
 * The id a key set cursor of an entry list carries (entries list newest first, the id the whole key):
 * null on a first page, and for a key that is no id (a forged cursor reads as the first page, never a 500).
 */
function entryKey(w: KeyWindow): number | null {
  const id = w.after?.[0];
  return typeof id === 'number' && Number.isSafeInteger(id) ? id : null;
}

export class DiscussionEntryService {
  constructor(private readonly ctx: RequestContext) {}

  private get topics(): DiscussionService {
    return this.ctx.use(DiscussionService);
  }

  /** Refuses a student who must post before seeing others' posts. */
  private async requireSeesPosts(topic: DiscussionTopic): Promise<void> {
    if (!(await this.topics.userCanSeePosts(topic))) throw new RequestError(REQUIRE_INITIAL_POST, 403, REQUIRE_INITIAL_POST);
  }

  private async entryIn(topic: DiscussionTopic, raw: string | number): Promise<DiscussionEntry> {
    const s = String(raw).trim();
    const entry = /^\d{1,15}$/.test(s) ? await this.ctx.loaders.byId(DiscussionEntry).load(Number(s)) : null;
    if (!entry || entry.discussionTopicId !== topic.id || entry.workflowState === 'deleted') throw new NotFoundError();
    return entry;
  }

  /**
   * POST …/entries (and …/entries/:id/replies): a member contributes to the topic. Refused (403) on
   * a topic the caller may not reply to: no post right, closed for comments, or not yet posted.
   */
  async create(ref: TopicRef, input: EntryInput): Promise<{ discussionEntry: DiscussionEntry }> {
    const located = await this.topics.locate(ref);
    const { topic, rights } = located;
    const viewer = this.ctx.authz.requireViewer();
    if (!(await this.topics.mayReply(topic, rights))) throw new ForbiddenError();
    let parent: DiscussionEntry | null = null;
    if (input.parentEntryId != null) {
      parent = await this.entryIn(topic, input.parentEntryId);
      await this.requireSeesPosts(topic);
    }
    const message = input.message == null ? '' : sanitizeHtml(input.message, this.ctx.app.config);
    const v = new Validator();
    if (!message.trim()) v.add('message', 'blank', "can't be blank");
    else if (Buffer.byteLength(message, 'utf8') > MESSAGE_MAX_BYTES) v.add('message', 'too_long', `is too long (maximum is ${MESSAGE_MAX_BYTES} characters)`);
    v.throwIfInvalid();
    const student = await this.topics.isStudent(located.context);

    return transaction(this.ctx.ds, async (em) => {
      const entry = await em.getRepository(DiscussionEntry).save(
        em.getRepository(DiscussionEntry).create({
          discussionTopicId: topic.id,
          userId: viewer.id,
          message,
          parentId: parent?.id ?? null,
          rootEntryId: parent ? (parent.rootEntryId ?? parent.id) : null,
          workflowState: 'active',
        }),
      );
      const now = nowToSecond();
      // A top-level entry brings the topic back to the top of activity streams.
      await em.getRepository(DiscussionTopic).update({ id: topic.id }, parent ? { lastReplyAt: now } : { lastReplyAt: now, activityAt: now, activitySeq: await nextActivitySeq(em) });
      const participants = em.getRepository(DiscussionParticipant);
      const mine = await participants.findOneBy({ discussionTopicId: topic.id, userId: viewer.id });
      if (mine) {
        if (mine.workflowState !== 'read') await participants.update({ id: mine.id }, { workflowState: 'read' });
      } else {
        await participants.save(participants.create({ discussionTopicId: topic.id, userId: viewer.id, workflowState: 'read', lastReadEntryId: 0 }));
      }
      if (student) {
        // On a graded topic a student's post turns the assignment in (before progress counts the contribution).
        await this.ctx.use(GradedDiscussionService).recordPost(em, topic, viewer.id, entry.createdAt);
        await raise(em, this.ctx, { type: 'content.contributed', courseId: topic.contextId, userId: viewer.id, contentType: 'Discussion', contentId: topic.id });
      }
      return { discussionEntry: entry };
    });
  }

  /**
   * GET …/entries: top-level entries, newest first (batched, so a list of topics may ask each for its
   * entries). Key set pages by id (GraphQL cursors); Canvas's numbered REST pages come as old offset
   * cursors and read only their page; the total (Link rel="last", totalCount) is counted when asked.
   */
  async list(topic: DiscussionTopic, args: { first?: number | null; after?: string | null }): Promise<ConnectionResult<DiscussionEntry>> {
    const w = keyWindow(args, 1);
    const before = entryKey(w);
    // Loaded alongside the check, so every topic of a list joins the same batch.
    const [, rows] = await Promise.all([
      this.requireSeesPosts(topic),
      w.limit > 0 ? this.topics.loaders.rootEntriesPage(topic.id, w.offset, w.limit + 1, before) : Promise.resolve([]),
    ]);
    return keysetConnection(rows, w, (e) => [e.id], () => this.topics.loaders.entryCount(true).load(topic.id));
  }

  /** One entry of a topic the caller sees. */
  async find(topic: DiscussionTopic, raw: string | number): Promise<DiscussionEntry> {
    await this.requireSeesPosts(topic);
    return this.entryIn(topic, raw);
  }

  /** GET …/entries/:id/replies: every reply under a top-level entry, newest first, in pages as the entries list's. */
  async replies(entry: DiscussionEntry, args: { first?: number | null; after?: string | null }): Promise<ConnectionResult<DiscussionEntry>> {
    const w = keyWindow(args, 1);
    const before = entryKey(w);
    const root = entry.rootEntryId ?? entry.id;
    const rows = w.limit > 0 ? await this.topics.loaders.repliesPage(root, w.offset, w.limit + 1, before) : [];
    return keysetConnection(rows, w, (e) => [e.id], () => this.topics.loaders.replyCount().load(root));
  }

  /** The ten newest replies under a top-level entry (empty for replies), and whether there are more. */
  async recentReplies(entry: DiscussionEntry): Promise<{ replies: DiscussionEntry[]; more: boolean }> {
    if (entry.rootEntryId != null) return { replies: [], more: false };
    const rows = await this.topics.loaders.recentReplies(entry.id);
    return { replies: rows.slice(0, RECENT_REPLIES_LIMIT), more: rows.length > RECENT_REPLIES_LIMIT };
  }

  /** The entry's author, for callers who see the entry's topic and its posts (re-checked here). */
  async author(entry: DiscussionEntry): Promise<User | null> {
    const topic = await this.ctx.loaders.byId(DiscussionTopic).load(entry.discussionTopicId);
    if (!topic || !DiscussionService.visible(topic, await this.topics.rightsFor(topic))) return null;
    if (!(await this.topics.userCanSeePosts(topic))) return null;
    return this.ctx.loaders.byId(User).load(entry.userId);
  }

  /** An entry is read by its author, and by anyone who has read the topic's entries up to it. */
  async readState(entry: DiscussionEntry): Promise<'read' | 'unread'> {
    if (this.ctx.viewer && entry.userId === this.ctx.viewer.id) return 'read';
    const p = await this.topics.loaders.viewerParticipant().load(entry.discussionTopicId);
    return p && entry.id <= p.lastReadEntryId ? 'read' : 'unread';
  }
}
