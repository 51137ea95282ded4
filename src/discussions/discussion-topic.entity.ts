import { Entity, Index } from 'typeorm';
import { BoolColumn, DateTimeColumn, IntColumn, NullableInt, StringColumn, TextColumn, Timestamped } from '../db/columns';

export const DISCUSSION_CONTEXTS = ['Course', 'Group'] as const;
export type DiscussionContextType = (typeof DISCUSSION_CONTEXTS)[number];

/** Canvas's DiscussionTypes (side_comment is its default); not_threaded is the documented API name of flat. */
export const DISCUSSION_TYPES = ['side_comment', 'threaded', 'not_threaded', 'flat'] as const;
export type DiscussionType = (typeof DISCUSSION_TYPES)[number];

export type TopicState = 'active' | 'unpublished' | 'deleted';

/**
 * A discussion topic or announcement of a course or group. Announcements are always published;
 * graded topics point at the assignment that scores them (created by the content area).
 */
@Entity('discussion_topics')
@Index(['contextType', 'contextId', 'activityAt', 'activitySeq', 'id'])
@Index(['activitySeq'])
@Index(['assignmentId'])
@Index(['userId'])
// Planner date windows (migrations/1732000009000-Planner.ts).
@Index(['contextType', 'contextId', 'todoDate'])
export class DiscussionTopic extends Timestamped {
  @StringColumn(16)
  contextType: DiscussionContextType;

  @IntColumn()
  contextId: number;

  /** The author; null for topics whose author is gone. */
  @NullableInt()
  userId: number | null;

  @StringColumn()
  title: string;

  /** Sanitised HTML. */
  @TextColumn()
  message: string | null;

  @BoolColumn(false)
  isAnnouncement: boolean;

  @StringColumn(16, { default: 'active' })
  workflowState: TopicState;

  @StringColumn(16, { default: 'side_comment' })
  discussionType: DiscussionType;

  /** When the topic was (or will be, for a delayed post) posted. */
  @DateTimeColumn()
  postedAt: Date | null;

  @DateTimeColumn()
  delayedPostAt: Date | null;

  @DateTimeColumn()
  lockAt: Date | null;

  /** Closed for comments (Canvas's `locked`); course announcements start locked unless told otherwise. */
  @BoolColumn(false)
  locked: boolean;

  @DateTimeColumn()
  lastReplyAt: Date | null;

  /** Where the topic sits in activity streams: when it was posted, or its latest top-level entry. */
  @DateTimeColumn()
  activityAt: Date | null;

  /**
   * Orders stream activity within one second (times are kept to the second): every bump takes the
   * next number of one sequence shared by all topics, as Canvas's stream item instances are ordered.
   */
  @IntColumn({ default: 0 })
  activitySeq: number;

  /** Student to-do date; ungraded topics only. */
  @DateTimeColumn()
  todoDate: Date | null;

  /** The assignment grading this topic (graded discussions), or null. */
  @NullableInt()
  assignmentId: number | null;

  @BoolColumn(false)
  pinned: boolean;

  /** Order among pinned topics (1-based); null when not pinned. */
  @NullableInt()
  position: number | null;

  @BoolColumn(false)
  requireInitialPost: boolean;

  @DateTimeColumn()
  deletedAt: Date | null;

  get published(): boolean {
    return this.workflowState === 'active';
  }

  /** A delayed post whose time has not come. */
  notYetPosted(now = Date.now()): boolean {
    return this.delayedPostAt != null && this.delayedPostAt.getTime() > now;
  }

  /** Closed for comments: locked, or past lock_at. */
  closed(now = Date.now()): boolean {
    return this.locked || (this.lockAt != null && this.lockAt.getTime() <= now);
  }

  get assetString(): string {
    return `discussion_topic_${this.id}`;
  }
}
