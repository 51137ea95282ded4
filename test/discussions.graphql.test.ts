import type { Api } from './support/api';
import { startTestServer, TestServer } from './support/server';
import { World } from './support/world';
import { coursePath, discussionTables, discussionWorld, entry, groupPath, Room, topic } from './discussions.support';

let server: TestServer;
let world: World;
let r: Room;

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
  r = await discussionWorld(world);
});
afterAll(() => server.close());

const globalId = (type: string, id: number | string) => Buffer.from(`${type}-${id}`).toString('base64');

async function gql<T = any>(api: Api, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await api.graphql<T>(query, variables);
  expect(res.errors).toBeUndefined();
  return res.data;
}

const TOPIC = `_id id title message isAnnouncement published contextType contextId userName readState unreadCount
  discussionSubentryCount rootEntryCount locked todoDate requireInitialPost author { _id name } permissions { update reply delete }`;

const CREATE = `mutation($input: CreateDiscussionTopicInput!) { createDiscussionTopic(input: $input) { discussionTopic { ${TOPIC} } errors { attribute type message } } }`;

describe('discussion mutations and queries', () => {
  it('creates a group topic, reads it by id, global id and legacyNode, and lists it on the group', async () => {
    const data = await gql(r.student.api, CREATE, {
      input: { contextType: 'Group', contextId: globalId('Group', r.group.id), title: 'Via GraphQL', message: '<p>hi<script>x</script></p>' },
    });
    expect(data.createDiscussionTopic.errors).toBeNull();
    const t = data.createDiscussionTopic.discussionTopic;
    expect(t).toMatchObject({ title: 'Via GraphQL', message: '<p>hi</p>', contextType: 'Group', contextId: String(r.group.id), published: true, readState: 'read', userName: 'Sam Student' });
    expect(t.id).toBe(globalId('Discussion', t._id));

    const byId = await gql(r.student2.api, `query($id: ID!) { discussionTopic(id: $id) { _id readState permissions { update reply } } }`, { id: t.id });
    expect(byId.discussionTopic).toEqual({ _id: t._id, readState: 'unread', permissions: { update: false, reply: true } });
    const node = await gql(r.student2.api, `query($id: ID!, $n: ID!) { node(id: $id) { ... on Discussion { title } } legacyNode(type: Discussion, _id: $n) { id } }`, { id: t.id, n: t._id });
    expect(node).toEqual({ node: { title: 'Via GraphQL' }, legacyNode: { id: t.id } });

    const listed = await gql(r.student2.api, `query($id: ID!) { group(id: $id) { discussionsConnection(first: 50) { totalCount nodes { _id } } } }`, { id: String(r.group.id) });
    expect(listed.group.discussionsConnection.nodes.map((n: any) => n._id)).toContain(t._id);
    const viaTop = await gql(r.student2.api, `query($id: ID!) { discussionTopics(contextType: "Group", contextId: $id) { nodes { _id } } }`, { id: String(r.group.id) });
    expect(viaTop.discussionTopics.nodes.map((n: any) => n._id)).toContain(t._id);
  });

  it('reports validation problems in the payload and stores nothing', async () => {
    const before = await discussionTables(server);
    const data = await gql(r.teacher.api, CREATE, { input: { contextType: 'Course', contextId: String(r.course.id), title: 'z'.repeat(256), discussionType: 'weird' } });
    expect(data.createDiscussionTopic.discussionTopic).toBeNull();
    expect(data.createDiscussionTopic.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ attribute: 'title', type: 'too_long' }), expect.objectContaining({ attribute: 'discussion_type', type: 'inclusion' })]),
    );
    const badDate = await r.teacher.api.graphql(CREATE, { input: { contextType: 'Course', contextId: String(r.course.id), title: 'x', lockAt: 'soon' } });
    expect(badDate.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(await discussionTables(server)).toEqual(before);
  });

  it('refuses outsiders and non-members with FORBIDDEN, and hides topics from them', async () => {
    const t = await topic(r.student.api, groupPath(r.group.id), { title: 'Secret' });
    const before = await discussionTables(server);
    const res = await r.classmate.api.graphql(CREATE, { input: { contextType: 'Group', contextId: String(r.group.id), title: 'Let me in' } });
    expect(res.errors?.[0].extensions.code).toBe('FORBIDDEN');
    const announce = await r.student.api.graphql(CREATE, { input: { contextType: 'Course', contextId: String(r.course.id), title: 'Hear ye', isAnnouncement: true } });
    expect(announce.errors?.[0].extensions.code).toBe('FORBIDDEN');
    expect(await discussionTables(server)).toEqual(before);
    const shown = await r.outsider.api.graphql(`query($id: ID!) { discussionTopic(id: $id) { _id } }`, { id: String(t.id) });
    expect(shown.errors?.[0].extensions.code).toBe('FORBIDDEN');
    expect((await r.outsider.api.graphql(`query($g: ID!) { node(id: $g) { id } }`, { g: globalId('Discussion', t.id) })).data.node).toBeNull();
    const stream = await r.classmate.api.graphql(`query($id: ID!) { groupActivityStream(groupId: $id) { nodes { _id } } }`, { id: String(r.group.id) });
    expect(stream.errors?.[0].extensions.code).toBe('FORBIDDEN');
  });

  it('updates, posts entries and replies, marks read, and deletes', async () => {
    const C = coursePath(r.course.id);
    const t = await topic(r.teacher.api, C, { title: 'Lifecycle' });
    const upd = await gql(
      r.teacher.api,
      `mutation($input: UpdateDiscussionTopicInput!) { updateDiscussionTopic(input: $input) { discussionTopic { title todoDate requireInitialPost } errors { attribute } } }`,
      { input: { id: globalId('Discussion', t.id), title: 'Renamed', todoDate: '2031-01-02T03:04:05Z' } },
    );
    expect(upd.updateDiscussionTopic).toEqual({ discussionTopic: { title: 'Renamed', todoDate: '2031-01-02T03:04:05Z', requireInitialPost: false }, errors: null });

    const ENTRY = `mutation($input: CreateDiscussionEntryInput!) { createDiscussionEntry(input: $input) { discussionEntry { _id id parentId rootEntryId message userName readState } errors { attribute type } } }`;
    const e = (await gql(r.student.api, ENTRY, { input: { discussionTopicId: String(t.id), message: 'first!' } })).createDiscussionEntry;
    expect(e.errors).toBeNull();
    expect(e.discussionEntry).toMatchObject({ message: 'first!', parentId: null, userName: 'Sam Student', readState: 'read' });
    const reply = (await gql(r.student2.api, ENTRY, { input: { discussionTopicId: globalId('Discussion', t.id), message: 'reply', parentEntryId: e.discussionEntry.id } })).createDiscussionEntry;
    expect(reply.discussionEntry).toMatchObject({ parentId: e.discussionEntry._id, rootEntryId: e.discussionEntry._id });
    const blank = (await gql(r.student.api, ENTRY, { input: { discussionTopicId: String(t.id), message: ' ' } })).createDiscussionEntry;
    expect(blank).toEqual({ discussionEntry: null, errors: [{ attribute: 'message', type: 'blank' }] });

    const entries = await gql(
      r.student2.api,
      `query($id: ID!) { discussionTopic(id: $id) { discussionSubentryCount rootEntryCount unreadCount entriesConnection { totalCount nodes { _id readState recentReplies { message } hasMoreReplies repliesConnection { totalCount } } } } }`,
      { id: String(t.id) },
    );
    expect(entries.discussionTopic).toMatchObject({ discussionSubentryCount: 2, rootEntryCount: 1, unreadCount: 1 });
    expect(entries.discussionTopic.entriesConnection).toEqual({
      totalCount: 1,
      nodes: [{ _id: e.discussionEntry._id, readState: 'unread', recentReplies: [{ message: 'reply' }], hasMoreReplies: false, repliesConnection: { totalCount: 1 } }],
    });

    const MARK = `mutation($input: MarkDiscussionReadInput!) { markDiscussionTopicRead(input: $input) { discussionTopic { readState unreadCount } errors { attribute } } }`;
    const marked = await gql(r.student2.api, MARK, { input: { id: String(t.id), read: true, allEntries: true } });
    expect(marked.markDiscussionTopicRead).toEqual({ discussionTopic: { readState: 'read', unreadCount: 0 }, errors: null });

    const DEL = `mutation($input: DiscussionRefInput!) { deleteDiscussionTopic(input: $input) { discussionTopic { _id workflowState } errors { attribute } } }`;
    const refused = await r.student.api.graphql(DEL, { input: { id: String(t.id) } });
    expect(refused.errors?.[0].extensions.code).toBe('FORBIDDEN');
    const wrongContext = await r.teacher.api.graphql(DEL, { input: { id: String(t.id), contextType: 'Group', contextId: String(r.group.id) } });
    expect(wrongContext.errors?.[0].extensions.code).toBe('NOT_FOUND');
    expect((await gql(r.teacher.api, DEL, { input: { id: String(t.id) } })).deleteDiscussionTopic).toEqual({ discussionTopic: { _id: String(t.id), workflowState: 'deleted' }, errors: null });
    expect((await r.teacher.api.graphql(`query($id: ID!) { discussionTopic(id: $id) { _id } }`, { id: String(t.id) })).errors?.[0].extensions.code).toBe('NOT_FOUND');
  });

  it('lists course announcements through Course.discussionsConnection', async () => {
    const a = await topic(r.teacher.api, coursePath(r.course.id), { title: 'Course news', is_announcement: true });
    const data = await gql(r.student.api, `query($id: ID!) { course(id: $id) { discussionsConnection(onlyAnnouncements: true) { nodes { _id isAnnouncement locked } } } }`, {
      id: String(r.course.id),
    });
    expect(data.course.discussionsConnection.nodes).toContainEqual({ _id: String(a.id), isAnnouncement: true, locked: true });
  });
});

describe('activity streams', () => {
  it('serves the group stream and its summary, and the viewer stream', async () => {
    const room = await discussionWorld(world);
    const G = groupPath(room.group.id);
    const a = await topic(room.student.api, G, { title: 'First' });
    const n = await topic(room.student.api, G, { title: 'Notice', is_announcement: true });
    await entry(room.student2.api, G, a.id, 'bump');
    const data = await gql(
      room.student2.api,
      `query($id: ID!) {
        groupActivityStream(groupId: $id) { totalCount nodes { _id type title readState contextType contextId htmlUrl totalRootDiscussionEntries userHasPosted
          rootDiscussionEntries { userId userName message } discussionTopic { _id isAnnouncement } } }
        groupActivityStreamSummary(groupId: $id) { type count unreadCount notificationCategory }
        viewerActivityStream(first: 50) { nodes { _id } }
        viewerActivityStreamSummary { type count }
      }`,
      { id: globalId('Group', room.group.id) },
    );
    expect(data.groupActivityStream.totalCount).toBe(2);
    expect(data.groupActivityStream.nodes).toEqual([
      {
        _id: String(a.id),
        type: 'DiscussionTopic',
        title: 'First',
        readState: true,
        contextType: 'Group',
        contextId: String(room.group.id),
        htmlUrl: `${server.url}/groups/${room.group.id}/discussion_topics/${a.id}`,
        totalRootDiscussionEntries: 1,
        userHasPosted: null,
        rootDiscussionEntries: [{ userId: String(room.student2.id), userName: 'Sally Student', message: 'bump' }],
        discussionTopic: { _id: String(a.id), isAnnouncement: false },
      },
      expect.objectContaining({ _id: String(n.id), type: 'Announcement', readState: false, htmlUrl: `${server.url}/groups/${room.group.id}/announcements/${n.id}` }),
    ]);
    expect(data.groupActivityStreamSummary).toEqual([
      { type: 'Announcement', count: 1, unreadCount: 1, notificationCategory: null },
      { type: 'DiscussionTopic', count: 1, unreadCount: 0, notificationCategory: null },
    ]);
    expect(data.viewerActivityStream.nodes.map((x: any) => x._id)).toEqual(expect.arrayContaining([String(a.id), String(n.id)]));
    expect(data.viewerActivityStreamSummary.map((x: any) => x.type)).toEqual(['Announcement', 'DiscussionTopic']);
    const course = await gql(room.observer.api, `query($id: ID!) { courseActivityStream(courseId: $id) { totalCount } courseActivityStreamSummary(courseId: $id) { type } }`, {
      id: String(room.course.id),
    });
    expect(course.courseActivityStream.totalCount).toBe(0);
    expect(course.courseActivityStreamSummary).toEqual([]);
  });
});
