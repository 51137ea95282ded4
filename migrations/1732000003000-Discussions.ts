import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { bool, datetime, id, index, int, intNull, state, str, text, timestamps } from './columns';

/** Discussion topics and announcements of courses and groups, their entries and per-user read state. */
export class Discussions1732000003000 implements MigrationInterface {
  name = 'Discussions1732000003000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'discussion_topics',
        columns: [
          id(),
          ...timestamps(),
          str('context_type', 16),
          int('context_id'),
          intNull('user_id'),
          str('title'),
          text('message'),
          bool('is_announcement', false),
          state('active', 16),
          str('discussion_type', 16, { default: "'side_comment'" }),
          datetime('posted_at'),
          datetime('delayed_post_at'),
          datetime('lock_at'),
          bool('locked', false),
          datetime('last_reply_at'),
          datetime('activity_at'),
          int('activity_seq', { default: 0 }),
          datetime('todo_date'),
          intNull('assignment_id'),
          bool('pinned', false),
          intNull('position'),
          bool('require_initial_post', false),
          datetime('deleted_at'),
        ],
        // A context's topics (lists, and activity streams newest first); the next activity sequence number;
        // the topic of a graded assignment; an author's topics.
        indices: [index(['context_type', 'context_id', 'activity_at', 'activity_seq']), index(['activity_seq']), index(['assignment_id']), index(['user_id'])],
      }),
      true,
    );
    await q.createTable(
      new Table({
        name: 'discussion_entries',
        columns: [
          id(),
          ...timestamps(),
          int('discussion_topic_id'),
          int('user_id'),
          text('message'),
          intNull('parent_id'),
          intNull('root_entry_id'),
          state('active', 16),
        ],
        // Top-level entries of topics; replies under a top-level entry; whether a user has posted in a topic.
        indices: [index(['discussion_topic_id', 'parent_id']), index(['root_entry_id']), index(['user_id', 'discussion_topic_id'])],
      }),
      true,
    );
    await q.createTable(
      new Table({
        name: 'discussion_topic_participants',
        columns: [id(), ...timestamps(), int('discussion_topic_id'), int('user_id'), state('unread', 16), int('last_read_entry_id', { default: 0 })],
        indices: [index(['discussion_topic_id', 'user_id'], true), index(['user_id'])],
      }),
      true,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['discussion_topic_participants', 'discussion_entries', 'discussion_topics']) await q.dropTable(t, true);
  }
}
