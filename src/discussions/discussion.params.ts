import { GRADING_TYPES } from '../content/assignments/assignment.entity';
import { courseId } from '../courses/course.params';
import { groupId } from '../groups/group.params';
import { bool, date, id, model, nullableText, num, oneOf, params, text } from '../api/rest/input';
import { MESSAGE_MAX_BYTES, ORDERS, TITLE_MAX } from './discussion.constants';
import { DISCUSSION_TYPES } from './discussion-topic.entity';

/**
 * Declared params of the discussion rows (src/discussions/discussion.routes.ts). Each row exists under
 * /courses/:course_id and /groups/:group_id, so both context keys are declared and the path supplies one.
 * Rules with Canvas's own messages (lock_at before delayed_post_at, a graded topic's todo_date) stay in
 * the services.
 */

const context = { course_id: courseId().optional(), group_id: groupId().optional() };
const topic = { ...context, topic_id: id() };

/** A message's limit is in bytes (the service counts them); no text of more characters can fit. */
const message = nullableText({ max: MESSAGE_MAX_BYTES });

/** `assignment[...]` of a graded topic: a model() hash, so a refusal names points_possible as the assignment service does. */
const assignment = model({
  set_assignment: bool().optional(),
  points_possible: num({ min: 0, max: 999_999_999, nullable: true }).optional(),
  grading_type: oneOf(GRADING_TYPES).optional(),
  due_at: date().optional(),
  unlock_at: date().optional(),
  lock_at: date().optional(),
});

const topicFields = {
  title: nullableText({ max: TITLE_MAX }).optional(),
  message: message.optional(),
  discussion_type: oneOf(DISCUSSION_TYPES).optional(),
  published: bool().optional(),
  delayed_post_at: date().optional(),
  lock_at: date().optional(),
  locked: bool().optional(),
  require_initial_post: bool().optional(),
  pinned: bool().optional(),
  todo_date: date().optional(),
  assignment: assignment.optional(),
};

export const discussionParams = {
  list: params({ ...context, only_announcements: bool().optional(), order_by: oneOf(ORDERS).optional(), search_term: text({ max: 255 }).optional() }),
  create: params({ ...context, ...topicFields, is_announcement: bool().optional() }),
  topic: params(topic),
  update: params({ ...topic, ...topicFields }),
  entry: params({ ...topic, message: message.optional() }),
  replies: params({ ...topic, entry_id: id() }),
  reply: params({ ...topic, entry_id: id(), message: message.optional() }),
  courseStream: params({ course_id: courseId() }),
  groupStream: params({ group_id: groupId() }),
  viewerStream: params({}),
};
