import { Validator } from '../common/errors';
import { sanitizeHtml, type HtmlPolicy } from '../common/sanitize';
import { nowToSecond } from '../db/columns';
import { CONTROLLER_ERROR, DEFAULT_TITLE, MESSAGE_MAX_BYTES, TITLE_MAX } from './discussion.constants';
import type { DiscussionRights } from './discussion-context';
import { DISCUSSION_TYPES, type DiscussionTopic, type DiscussionType } from './discussion-topic.entity';
import type { GradingPlan } from './graded-discussion.service';
import type { TopicFields } from './topic-inputs';

const contentChanged = (before: { title: string; message: string | null }, topic: DiscussionTopic): boolean => before.title !== topic.title || before.message !== topic.message;

/** Times are kept to the second, as Canvas renders them (MySQL would round the rest, SQLite keep it). */
const toSecond = (d: Date) => new Date(Math.floor(d.getTime() / 1000) * 1000);

/**
 * Canvas's prefer_assignment_availability_dates: a graded topic's availability comes from its
 * assignment, so assignment[unlock_at] clears the topic's delayed_post_at and assignment[lock_at] its lock_at.
 */
export function preferAssignmentDates(input: TopicFields, plan: GradingPlan | null): TopicFields {
  if (plan?.kind !== 'grade') return input;
  const out = { ...input };
  if (plan.fields.unlockAt !== undefined) out.delayedPostAt = null;
  if (plan.fields.lockAt !== undefined) out.lockAt = null;
  return out;
}

/**
 * Validates and applies the fields a caller sent (undefined = not sent). Throws with every problem
 * at once; the topic is only saved by the caller when this returns. Returns whether the topic moved
 * in activity streams.
 */
export function applyTopicFields(
  topic: DiscussionTopic,
  input: TopicFields,
  rights: DiscussionRights,
  html: HtmlPolicy,
  creating: boolean,
  hasEntries = false,
  grading: GradingPlan | null = null,
): boolean {
  const v = new Validator();
  const controller = new Validator();
  const before = { title: topic.title, message: topic.message, published: topic.published };
  if (input.title !== undefined) {
    const title = (input.title ?? '').trim();
    if (title.length > TITLE_MAX) v.add('title', 'too_long', `is too long (maximum is ${TITLE_MAX} characters)`);
    else topic.title = title || DEFAULT_TITLE;
  }
  if (input.message !== undefined) {
    const message = input.message == null ? null : sanitizeHtml(input.message, html);
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
  schedule(topic, delayedChanged, bump);
  // Whether its place in activity streams changed: it then takes the next activity sequence number.
  return creating || bump || delayedChanged;
}

/**
 * posted_at is when the topic went (or, delayed, will go) out; activity_at places it in activity
 * streams: its posting, its latest top-level entry, or its latest change of content, which Canvas
 * answers by regenerating the stream item.
 */
function schedule(topic: DiscussionTopic, delayedChanged: boolean, contentChanged: boolean): void {
  const now = nowToSecond();
  const future = topic.delayedPostAt && topic.delayedPostAt.getTime() > now.getTime() ? topic.delayedPostAt : null;
  if (topic.postedAt == null) topic.postedAt = future ?? now;
  else if (delayedChanged) topic.postedAt = future ?? (topic.postedAt.getTime() > now.getTime() ? now : topic.postedAt);
  let activity = topic.activityAt ?? topic.postedAt;
  if (contentChanged && !future) activity = now;
  topic.activityAt = activity.getTime() < topic.postedAt.getTime() ? topic.postedAt : activity;
}
