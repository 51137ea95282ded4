import { Entity, Index } from 'typeorm';
import { IntColumn, StringColumn, Timestamped } from '../db/columns';

/**
 * A user's read state of one topic. Entries with ids up to `lastReadEntryId` (and the user's own)
 * count as read; the topic itself is read or unread as Canvas's discussion_topic_participants are.
 */
@Entity('discussion_topic_participants')
@Index(['discussionTopicId', 'userId'], { unique: true })
@Index(['userId'])
export class DiscussionParticipant extends Timestamped {
  @IntColumn()
  discussionTopicId: number;

  @IntColumn()
  userId: number;

  @StringColumn(16, { default: 'unread' })
  workflowState: 'read' | 'unread';

  @IntColumn({ default: 0 })
  lastReadEntryId: number;
}
