import { arr, constant, defineSchema, nullable, shape } from '../api/rest/response';
import { AssignmentSchema } from '../content/assignments/assignment.schemas';

/** Canvas's DiscussionTopic JSON (presentTopic): lock_info and lock_explanation when locked, assignment when graded. */
export const DiscussionTopicSchema = defineSchema(
  'DiscussionTopic',
  shape(
    {
      id: 'id', title: 'string', message: 'string?', html_url: 'string', posted_at: 'date?', last_reply_at: 'date?',
      created_at: 'date', require_initial_post: 'bool', user_can_see_posts: 'bool', discussion_subentry_count: 'int',
      read_state: 'string', unread_count: 'int', subscribed: 'bool', assignment_id: 'id?', delayed_post_at: 'date?',
      published: 'bool', lock_at: 'date?', locked: 'bool', pinned: 'bool', position: 'int?', user_name: 'string?',
      discussion_type: 'string', todo_date: 'date?', is_announcement: 'bool', can_unpublish: 'bool', can_lock: 'bool',
      permissions: shape({ attach: 'bool', update: 'bool', reply: 'bool', delete: 'bool' }),
      url: 'string', context_code: 'string', locked_for_user: 'bool',
      lock_info: shape({ asset_string: 'string', unlock_at: 'date', lock_at: 'date', can_view: 'bool' }, { optional: ['unlock_at', 'lock_at'] }),
      lock_explanation: 'string',
      author: {
        anyOf: [
          shape({ id: 'id', display_name: 'string', avatar_image_url: 'string?', html_url: 'string', pronouns: constant(null) }),
          { type: 'object', maxProperties: 0 },
        ],
      },
      can_group: 'bool', root_topic_id: constant(null), topic_children: arr('id'), group_topic_children: arr('any'),
      group_category_id: constant(null), podcast_url: constant(null), podcast_has_student_posts: 'bool', attachments: arr('any'),
      allow_rating: 'bool', only_graders_can_rate: 'bool', sort_by_rating: 'bool',
      assignment: AssignmentSchema,
    },
    { optional: ['lock_info', 'lock_explanation', 'assignment'] },
  ),
);

const reply = {
  id: 'id', user_id: 'id', parent_id: 'id?', created_at: 'date', updated_at: 'date', user_name: 'string?', message: 'string?',
  read_state: 'string', forced_read_state: 'bool',
} as const;

/** A reply (Canvas's discussion entry JSON without its replies). */
export const DiscussionReplySchema = defineSchema('DiscussionReply', shape(reply));

/** A top-level entry: recent_replies and has_more_replies only when it has replies. */
export const DiscussionEntrySchema = defineSchema(
  'DiscussionEntry',
  shape({ ...reply, recent_replies: arr(DiscussionReplySchema), has_more_replies: 'bool' }, { optional: ['recent_replies', 'has_more_replies'] }),
);

/** Canvas's stream item JSON for DiscussionTopic and Announcement items. */
export const StreamItemSchema = defineSchema(
  'StreamItem',
  shape(
    {
      id: 'id', title: 'string', message: 'string?', type: 'string', read_state: 'bool', created_at: 'date', updated_at: 'date',
      html_url: 'string', total_root_discussion_entries: 'int', require_initial_post: 'bool', user_has_posted: 'bool?',
      context_type: 'string', course_id: 'id', group_id: 'id', announcement_id: 'id', discussion_topic_id: 'id',
      root_discussion_entries: arr(shape({ user: shape({ user_id: 'id', user_name: 'string?' }), message: 'string?' })),
    },
    { optional: ['course_id', 'group_id', 'announcement_id', 'discussion_topic_id'] },
  ),
);

export const StreamSummarySchema = defineSchema(
  'StreamSummary',
  arr(shape({ type: 'string', unread_count: 'int', count: 'int', notification_category: 'string?' })),
);
