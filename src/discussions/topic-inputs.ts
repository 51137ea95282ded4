import type { DiscussionContext, DiscussionRights } from './discussion-context';
import type { DiscussionTopic } from './discussion-topic.entity';
import type { TopicAssignmentInput } from './graded-discussion.service';

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
