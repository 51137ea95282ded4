import { Entity, Index } from 'typeorm';
import { IntColumn, NullableInt, StringColumn, TextColumn, Timestamped } from '../db/columns';

/** A post in a topic: top-level (no parent) or a reply, whose root_entry_id is its top-level ancestor. */
@Entity('discussion_entries')
@Index(['discussionTopicId', 'parentId', 'workflowState', 'id'])
@Index(['rootEntryId', 'workflowState', 'id'])
@Index(['userId', 'discussionTopicId'])
export class DiscussionEntry extends Timestamped {
  @IntColumn()
  discussionTopicId: number;

  @IntColumn()
  userId: number;

  /** Sanitised HTML. */
  @TextColumn()
  message: string | null;

  @NullableInt()
  parentId: number | null;

  @NullableInt()
  rootEntryId: number | null;

  @StringColumn(16, { default: 'active' })
  workflowState: 'active' | 'deleted';
}
