import type { DiscussionRights } from './discussion-context';
import type { DiscussionTopic } from './discussion-topic.entity';

/** Whether the viewer sees a topic of a context they may read: moderators see everything live. */
export function topicVisible(topic: DiscussionTopic, rights: DiscussionRights): boolean {
  if (topic.workflowState === 'deleted' || !rights.read) return false;
  if (rights.moderate) return true;
  // Students never see drafts, nor an announcement before its delayed post date.
  return topic.published && !(topic.isAnnouncement && topic.notYetPosted());
}
