import type { FieldError } from '../common/errors';
import { presentAssignment } from '../content/assignments/assignment.routes';
import { validationBody } from '../api/rest/errors';
import { numericIds } from '../api/rest/present';
import { defineFragment, RestInput, RestRoute, PAYLOAD_ERRORS } from '../api/rest/route';
import { CONTROLLER_ERROR } from './discussion.constants';
import { discussionParams as P } from './discussion.params';
import { DiscussionEntrySchema, DiscussionReplySchema, DiscussionTopicSchema, StreamItemSchema, StreamSummarySchema } from './discussion.schemas';

defineFragment(`fragment DiscussionTopicJson on Discussion {
  id: _id title message html_url: htmlUrl posted_at: postedAt last_reply_at: lastReplyAt created_at: createdAt
  require_initial_post: requireInitialPost user_can_see_posts: userCanSeePosts
  discussion_subentry_count: discussionSubentryCount read_state: readState unread_count: unreadCount subscribed
  assignment_id: assignmentId delayed_post_at: delayedPostAt published lock_at: lockAt locked pinned position
  user_name: userName discussion_type: discussionType todo_date: todoDate is_announcement: isAnnouncement
  context_type: contextType context_id: contextId can_unpublish: canUnpublish can_lock: canLock
  lock_info: lockInfo { asset_string: assetString unlock_at: unlockAt lock_at: lockAt can_view: canView explanation }
  permissions { attach update reply delete }
  author { id: _id display_name: shortName avatar_image_url: avatarUrl }
  assignment { ...AssignmentJson }
}`);

defineFragment(`fragment DiscussionReplyJson on DiscussionEntry {
  id: _id user_id: userId parent_id: parentId created_at: createdAt updated_at: updatedAt user_name: userName message
  read_state: readState
}`);

defineFragment(`fragment DiscussionEntryJson on DiscussionEntry {
  ...DiscussionReplyJson
  recent_replies: recentReplies { ...DiscussionReplyJson }
  has_more_replies: hasMoreReplies
}`);

defineFragment(`fragment StreamItemJson on StreamItem {
  id: _id title message type read_state: readState context_type: contextType context_id: contextId
  created_at: createdAt updated_at: updatedAt html_url: htmlUrl
  total_root_discussion_entries: totalRootDiscussionEntries require_initial_post: requireInitialPost
  user_has_posted: userHasPosted
  root_discussion_entries: rootDiscussionEntries { user_id: userId user_name: userName message }
}`);

type Json = Record<string, any>;
const PAGE = 'totalCount pageInfo { hasNextPage endCursor }';

const contextPath = (type: string) => (type === 'Course' ? 'courses' : 'groups');
const contextKey = (type: string) => (type === 'Course' ? 'course_id' : 'group_id');

/** Canvas's DiscussionTopic JSON. */
export function presentTopic(t: Json, input: RestInput): Json {
  const { context_type, context_id, lock_info, author, assignment, ...rest } = t;
  const out: Json = numericIds(rest, ['id', 'assignment_id']);
  const base = input.ctx.baseUrl;
  out.url = out.html_url;
  out.context_code = `${String(context_type).toLowerCase()}_${context_id}`;
  out.locked_for_user = lock_info != null;
  if (lock_info) {
    const { explanation, ...info } = lock_info;
    out.lock_info = Object.fromEntries(Object.entries(info).filter(([, v]) => v != null));
    out.lock_explanation = explanation;
  }
  out.author = author
    ? { id: Number(author.id), display_name: author.display_name, avatar_image_url: author.avatar_image_url, html_url: `${base}/${contextPath(context_type)}/${context_id}/users/${author.id}`, pronouns: null }
    : {};
  out.can_group = out.can_unpublish;
  Object.assign(out, {
    root_topic_id: null,
    topic_children: [],
    group_topic_children: [],
    group_category_id: null,
    podcast_url: null,
    podcast_has_student_posts: false,
    attachments: [],
    allow_rating: false,
    only_graders_can_rate: false,
    sort_by_rating: false,
  });
  // Graded topics carry their assignment, as Canvas's include_assignment.
  if (assignment) out.assignment = presentAssignment(assignment, input);
  return out;
}

function presentReply(e: Json): Json {
  return { ...numericIds(e, ['id', 'user_id', 'parent_id']), forced_read_state: false };
}

/** Canvas's discussion entry JSON: recent_replies and has_more_replies only when there are replies. */
export function presentEntry(e: Json): Json {
  const { recent_replies, has_more_replies, ...rest } = e;
  const out = presentReply(rest);
  if (recent_replies?.length) {
    out.recent_replies = recent_replies.map(presentReply);
    out.has_more_replies = has_more_replies;
  }
  return out;
}

/** Canvas's stream item JSON for DiscussionTopic and Announcement items. */
export function presentStreamItem(s: Json): Json {
  const { context_type, context_id, root_discussion_entries, ...rest } = s;
  const out: Json = numericIds(rest, ['id']);
  out.context_type = context_type;
  out[contextKey(context_type)] = Number(context_id);
  out[s.type === 'Announcement' ? 'announcement_id' : 'discussion_topic_id'] = out.id;
  out.root_discussion_entries = (root_discussion_entries as Json[]).map((r) => ({ user: { user_id: Number(r.user_id), user_name: r.user_name }, message: r.message }));
  return out;
}

const presentSummary = (list: Json[]) =>
  list.map((s) => ({ type: s.type, unread_count: s.unreadCount, count: s.count, notification_category: s.notificationCategory }));

/** Canvas reports its controller's objections (todo_date, published) as plain strings, model errors as lists. */
function topicValidationBody(fields: FieldError[]): unknown {
  const controller = fields.filter((f) => f.type === CONTROLLER_ERROR);
  if (controller.length) return { errors: Object.fromEntries(controller.map((f) => [f.attribute, f.message])) };
  return validationBody(fields);
}

const contextOf = (p: Json) => (p.course_id !== undefined ? { type: 'Course', id: p.course_id } : { type: 'Group', id: p.group_id });

/** Canvas's topic params are top-level; a blank date ('' or null) clears one. */
function topicFields(p: Json): Json {
  return {
    title: p.title,
    message: p.message,
    discussionType: p.discussion_type,
    published: p.published,
    delayedPostAt: p.delayed_post_at,
    lockAt: p.lock_at,
    locked: p.locked,
    requireInitialPost: p.require_initial_post,
    pinned: p.pinned,
    todoDate: p.todo_date,
    assignment: assignmentParams(p.assignment),
  };
}

/** `assignment[...]`: the assignment fields a topic takes (its name comes from the title), and set_assignment. */
function assignmentParams(v: unknown): Json | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const a = v as Json;
  return {
    setAssignment: a.set_assignment,
    pointsPossible: a.points_possible,
    gradingType: a.grading_type,
    dueAt: a.due_at,
    unlockAt: a.unlock_at,
    lockAt: a.lock_at,
  };
}

const topicRef = (p: Json) => {
  const c = contextOf(p);
  return { id: p.topic_id, contextType: c.type, contextId: c.id };
};

/** The same row under the course and the group prefix. */
function both(path: string, base: Omit<RestRoute, 'path'>): RestRoute[] {
  return ['/api/v1/courses/:course_id', '/api/v1/groups/:group_id'].map((prefix) => ({ ...base, path: `${prefix}${path}` }));
}

const topicPayload = (name: string, inputType: string) => `mutation($input: ${inputType}!) { ${name}(input: $input) { discussionTopic { ...DiscussionTopicJson } ${PAYLOAD_ERRORS} } }`;
const entryPayload = `mutation($input: CreateDiscussionEntryInput!) { createDiscussionEntry(input: $input) { discussionEntry { ...DiscussionEntryJson } ${PAYLOAD_ERRORS} } }`;
const markRead = (read: boolean, allEntries: boolean): Omit<RestRoute, 'path'> => ({
  method: read ? 'PUT' : 'DELETE',
  accepts: P.topic,
  operation: `mutation($input: MarkDiscussionReadInput!) { markDiscussionTopicRead(input: $input) { discussionTopic { id } ${PAYLOAD_ERRORS} } }`,
  variables: ({ values }) => ({ input: { ...topicRef(values), read, allEntries } }),
  root: 'markDiscussionTopicRead',
  payloadKey: 'discussionTopic',
  present: () => undefined,
  status: 204,
});

/** GET of an activity stream and its summary; `arg` names the scope's id argument (none for the caller's own). */
function streamRoutes(path: string, stream: string, summary: string, accepts: RestRoute['accepts'], arg?: { name: string; param: string }): RestRoute[] {
  const decl = arg ? '$id: ID!, ' : '';
  const pass = arg ? `${arg.name}: $id, ` : '';
  const vars = ({ values }: RestInput) => (arg ? { id: values[arg.param] } : {});
  return [
    {
      method: 'GET',
      path,
      accepts,
      operation: `query(${decl}$first: Int, $after: String) { ${stream}(${pass}first: $first, after: $after) { nodes { ...StreamItemJson } ${PAGE} } }`,
      variables: vars,
      root: stream,
      // Canvas pages activity streams 21 items at a time.
      list: { defaultPerPage: 21 },
      present: presentStreamItem,
      response: StreamItemSchema,
    },
    {
      method: 'GET',
      path: `${path}/summary`,
      accepts,
      operation: arg
        ? `query($id: ID!) { ${summary}(${arg.name}: $id) { type unreadCount count notificationCategory } }`
        : `query { ${summary} { type unreadCount count notificationCategory } }`,
      variables: vars,
      root: summary,
      present: presentSummary,
      response: StreamSummarySchema,
    },
  ];
}

/** The area's rows; params a client did not send stay undefined, and the router leaves them out of the variables. */
export const discussionRoutes: RestRoute[] = [
  ...both('/discussion_topics', {
    method: 'GET',
    accepts: P.list,
    operation: `query($type: String!, $id: ID!, $ann: Boolean, $order: String, $term: String, $first: Int, $after: String) {
      discussionTopics(contextType: $type, contextId: $id, onlyAnnouncements: $ann, orderBy: $order, searchTerm: $term, first: $first, after: $after) {
      nodes { ...DiscussionTopicJson } ${PAGE} } }`,
    variables: ({ values }) => {
      const c = contextOf(values);
      return { type: c.type, id: c.id, ann: values.only_announcements, order: values.order_by, term: values.search_term };
    },
    root: 'discussionTopics',
    list: true,
    present: presentTopic,
    response: DiscussionTopicSchema,
  }),
  ...both('/discussion_topics', {
    method: 'POST',
    accepts: P.create,
    operation: topicPayload('createDiscussionTopic', 'CreateDiscussionTopicInput'),
    variables: ({ values }) => {
      const c = contextOf(values);
      return { input: { contextType: c.type, contextId: c.id, ...topicFields(values), isAnnouncement: values.is_announcement } };
    },
    root: 'createDiscussionTopic',
    payloadKey: 'discussionTopic',
    validationBody: topicValidationBody,
    present: presentTopic,
    response: DiscussionTopicSchema,
  }),
  ...both('/discussion_topics/:topic_id', {
    method: 'GET',
    accepts: P.topic,
    operation: `query($id: ID!, $type: String, $cid: ID) { discussionTopic(id: $id, contextType: $type, contextId: $cid) { ...DiscussionTopicJson } }`,
    variables: ({ values }) => {
      const r = topicRef(values);
      return { id: r.id, type: r.contextType, cid: r.contextId };
    },
    root: 'discussionTopic',
    present: presentTopic,
    response: DiscussionTopicSchema,
  }),
  ...both('/discussion_topics/:topic_id', {
    method: 'PUT',
    accepts: P.update,
    operation: topicPayload('updateDiscussionTopic', 'UpdateDiscussionTopicInput'),
    variables: ({ values }) => ({ input: { ...topicRef(values), ...topicFields(values) } }),
    root: 'updateDiscussionTopic',
    payloadKey: 'discussionTopic',
    validationBody: topicValidationBody,
    present: presentTopic,
    response: DiscussionTopicSchema,
  }),
  ...both('/discussion_topics/:topic_id', {
    method: 'DELETE',
    accepts: P.topic,
    operation: topicPayload('deleteDiscussionTopic', 'DiscussionRefInput'),
    variables: ({ values }) => ({ input: topicRef(values) }),
    root: 'deleteDiscussionTopic',
    payloadKey: 'discussionTopic',
    present: presentTopic,
    response: DiscussionTopicSchema,
  }),
  ...both('/discussion_topics/:topic_id/entries', {
    method: 'GET',
    accepts: P.topic,
    operation: `query($id: ID!, $type: String, $cid: ID, $first: Int, $after: String) { discussionTopic(id: $id, contextType: $type, contextId: $cid) {
      entriesConnection(first: $first, after: $after) { nodes { ...DiscussionEntryJson } ${PAGE} } } }`,
    variables: ({ values }) => {
      const r = topicRef(values);
      return { id: r.id, type: r.contextType, cid: r.contextId };
    },
    root: 'discussionTopic.entriesConnection',
    list: true,
    present: presentEntry,
    response: DiscussionEntrySchema,
  }),
  ...both('/discussion_topics/:topic_id/entries', {
    method: 'POST',
    accepts: P.entry,
    operation: entryPayload,
    variables: ({ values }) => {
      const r = topicRef(values);
      return { input: { discussionTopicId: r.id, contextType: r.contextType, contextId: r.contextId, message: values.message ?? null } };
    },
    root: 'createDiscussionEntry',
    payloadKey: 'discussionEntry',
    present: presentEntry,
    response: DiscussionEntrySchema,
    status: 201,
  }),
  ...both('/discussion_topics/:topic_id/entries/:entry_id/replies', {
    method: 'GET',
    accepts: P.replies,
    operation: `query($id: ID!, $type: String, $cid: ID, $entry: ID!, $first: Int, $after: String) { discussionTopic(id: $id, contextType: $type, contextId: $cid) {
      entry(id: $entry) { repliesConnection(first: $first, after: $after) { nodes { ...DiscussionReplyJson } ${PAGE} } } } }`,
    variables: ({ values }) => {
      const r = topicRef(values);
      return { id: r.id, type: r.contextType, cid: r.contextId, entry: values.entry_id };
    },
    root: 'discussionTopic.entry.repliesConnection',
    list: true,
    present: presentReply,
    response: DiscussionReplySchema,
  }),
  ...both('/discussion_topics/:topic_id/entries/:entry_id/replies', {
    method: 'POST',
    accepts: P.reply,
    operation: entryPayload,
    variables: ({ values }) => {
      const r = topicRef(values);
      return {
        input: { discussionTopicId: r.id, contextType: r.contextType, contextId: r.contextId, message: values.message ?? null, parentEntryId: values.entry_id },
      };
    },
    root: 'createDiscussionEntry',
    payloadKey: 'discussionEntry',
    present: presentEntry,
    response: DiscussionEntrySchema,
    status: 201,
  }),
  ...both('/discussion_topics/:topic_id/read', markRead(true, false)),
  ...both('/discussion_topics/:topic_id/read', markRead(false, false)),
  ...both('/discussion_topics/:topic_id/read_all', markRead(true, true)),
  ...both('/discussion_topics/:topic_id/read_all', markRead(false, true)),
  ...streamRoutes('/api/v1/groups/:group_id/activity_stream', 'groupActivityStream', 'groupActivityStreamSummary', P.groupStream, { name: 'groupId', param: 'group_id' }),
  ...streamRoutes('/api/v1/courses/:course_id/activity_stream', 'courseActivityStream', 'courseActivityStreamSummary', P.courseStream, { name: 'courseId', param: 'course_id' }),
  ...streamRoutes('/api/v1/users/self/activity_stream', 'viewerActivityStream', 'viewerActivityStreamSummary', P.viewerStream),
  ...streamRoutes('/api/v1/users/activity_stream', 'viewerActivityStream', 'viewerActivityStreamSummary', P.viewerStream),
];

