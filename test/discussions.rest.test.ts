import { parseLinks } from './support/api';
import type { TestServer } from './support/server';
import { startWorld, World } from './support/world';
import {
  count,
  coursePath,
  discussionTables,
  discussionWorld,
  entry,
  FORBIDDEN,
  groupPath,
  ISO,
  makeGroup,
  NOT_FOUND,
  ok,
  Room,
  topic,
} from './discussions.support';

let server: TestServer;
let world: World;

beforeAll(async () => ({ server, world } = await startWorld()));
afterAll(() => server.close());

const future = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
const past = (days: number) => future(-days);

describe('group discussion topics', () => {
  let r: Room;
  let G: string;
  beforeAll(async () => {
    r = await discussionWorld(world);
    G = groupPath(r.group.id);
  });

  it('lets a member create a topic, in Canvas DiscussionTopic JSON with sanitised HTML', async () => {
    const res = await r.student.api.post(`${G}/discussion_topics`, {
      title: 'Project plan',
      message: '<p onclick="evil()">Plan <b>here</b><script>alert(1)</script></p>',
      discussion_type: 'threaded',
      require_initial_post: 'false',
    });
    expect(res.status).toBe(200);
    const t = res.body;
    expect(t).toMatchObject({
      title: 'Project plan',
      message: '<p>Plan <b>here</b></p>',
      discussion_type: 'threaded',
      published: true,
      is_announcement: false,
      require_initial_post: false,
      user_name: 'Sam Student',
      read_state: 'read',
      unread_count: 0,
      discussion_subentry_count: 0,
      assignment_id: null,
      todo_date: null,
      pinned: false,
      locked: false,
      locked_for_user: false,
      subscribed: true,
      context_code: `group_${r.group.id}`,
      html_url: `${server.url}/groups/${r.group.id}/discussion_topics/${t.id}`,
      permissions: { attach: true, update: true, reply: true, delete: true },
      author: { id: r.student.id, display_name: 'Sam Student', html_url: `${server.url}/groups/${r.group.id}/users/${r.student.id}` },
      topic_children: [],
      attachments: [],
    });
    expect(typeof t.id).toBe('number');
    expect(t.posted_at).toMatch(ISO);
    expect(t.created_at).toMatch(ISO);
    // The other member sees it, unread, and may reply but not edit.
    const other = await r.student2.api.get(`${G}/discussion_topics/${t.id}`);
    expect(other.status).toBe(200);
    expect(other.body).toMatchObject({ id: t.id, read_state: 'unread', subscribed: false, permissions: { update: false, reply: true, delete: false } });
  });

  it('lets members post entries and replies, listed newest first with recent replies', async () => {
    const t = await topic(r.student.api, G, { title: 'Entries here' });
    const e1 = await r.student2.api.post(`${G}/discussion_topics/${t.id}/entries`, { message: '<em>first</em><iframe src="javascript:x"></iframe>' });
    expect(e1.status).toBe(201);
    expect(e1.body).toMatchObject({ user_id: r.student2.id, user_name: 'Sally Student', parent_id: null, message: '<em>first</em>', read_state: 'read' });
    expect(e1.body.recent_replies).toBeUndefined();
    const e2 = await entry(r.student.api, G, t.id, 'second');
    const reply = await r.student.api.post(`${G}/discussion_topics/${t.id}/entries/${e1.body.id}/replies`, { message: 'a reply' });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ parent_id: e1.body.id, message: 'a reply' });

    const list = await r.student.api.get(`${G}/discussion_topics/${t.id}/entries`);
    expect(list.status).toBe(200);
    expect(list.body.map((e: any) => e.id)).toEqual([e2.id, e1.body.id]);
    expect(list.body[0].recent_replies).toBeUndefined();
    expect(list.body[1]).toMatchObject({ has_more_replies: false, recent_replies: [{ id: reply.body.id, parent_id: e1.body.id, user_id: r.student.id }] });
    // Entries the caller has not read are unread until the topic is read through.
    expect(list.body[1].read_state).toBe('unread');
    expect((await r.student.api.put(`${G}/discussion_topics/${t.id}/read_all`)).status).toBe(204);
    const again = await r.student.api.get(`${G}/discussion_topics/${t.id}/entries`);
    expect(again.body.every((e: any) => e.read_state === 'read')).toBe(true);

    const replies = await r.student2.api.get(`${G}/discussion_topics/${t.id}/entries/${e1.body.id}/replies`);
    expect(replies.status).toBe(200);
    expect(replies.body).toEqual([expect.objectContaining({ id: reply.body.id, message: 'a reply' })]);

    const shown = (await r.student2.api.get(`${G}/discussion_topics/${t.id}`)).body;
    expect(shown).toMatchObject({ discussion_subentry_count: 3, unread_count: 2, subscribed: true });
    expect(shown.last_reply_at).toMatch(ISO);
  });

  it('makes announcements with is_announcement, listed only with only_announcements=true', async () => {
    const a = await topic(r.student.api, G, { title: 'Meeting moved', is_announcement: true });
    expect(a).toMatchObject({ is_announcement: true, published: true, locked: false });
    const topics = (await r.student2.api.get(`${G}/discussion_topics?per_page=50`)).body.map((t: any) => t.id);
    const announcements = (await r.student2.api.get(`${G}/discussion_topics?only_announcements=true`)).body.map((t: any) => t.id);
    expect(topics).not.toContain(a.id);
    expect(announcements).toContain(a.id);
    // Group announcements stay open for comments.
    expect((await r.student2.api.post(`${G}/discussion_topics/${a.id}/entries`, { message: 'ok' })).status).toBe(201);
  });

  it('refuses non-members of the group (403) and stores nothing', async () => {
    const t = await topic(r.student.api, G, { title: 'Members only' });
    const before = await discussionTables(server);
    for (const u of [r.classmate, r.outsider, r.observer]) {
      const create = await u.api.post(`${G}/discussion_topics`, { title: 'Intruder' });
      expect(create.status).toBe(403);
      expect(create.body).toEqual(FORBIDDEN);
      expect((await u.api.post(`${G}/discussion_topics/${t.id}/entries`, { message: 'hi' })).status).toBe(403);
      expect((await u.api.get(`${G}/discussion_topics`)).status).toBe(403);
      expect((await u.api.get(`${G}/discussion_topics/${t.id}`)).status).toBe(403);
      expect((await u.api.get(`${G}/discussion_topics/${t.id}/entries`)).status).toBe(403);
      expect((await u.api.put(`${G}/discussion_topics/${t.id}`, { title: 'mine now' })).status).toBe(403);
      expect((await u.api.delete(`${G}/discussion_topics/${t.id}`)).status).toBe(403);
      expect((await u.api.get(`${G}/activity_stream`)).status).toBe(403);
      expect((await u.api.get(`${G}/activity_stream/summary`)).status).toBe(403);
    }
    expect(await discussionTables(server)).toEqual(before);
    const anon = await server.as(null).post(`${G}/discussion_topics`, { title: 'x' });
    expect(anon.status).toBe(401);
    expect(await discussionTables(server)).toEqual(before);
  });

  it('lets the teacher (an admin of the group course) moderate: edit and delete a member topic', async () => {
    const t = await topic(r.student.api, G, { title: 'To moderate' });
    await entry(r.student2.api, G, t.id);
    // The author may not delete a topic others have replied to; a member may not edit someone else's.
    expect((await r.student.api.delete(`${G}/discussion_topics/${t.id}`)).status).toBe(403);
    expect((await r.student2.api.put(`${G}/discussion_topics/${t.id}`, { title: 'Hijack' })).status).toBe(403);
    const edit = await r.teacher.api.put(`${G}/discussion_topics/${t.id}`, { title: 'Moderated', pinned: true });
    expect(edit.status).toBe(200);
    expect(edit.body).toMatchObject({ title: 'Moderated', pinned: true, position: expect.any(Number) });
    const del = await r.teacher.api.delete(`${G}/discussion_topics/${t.id}`);
    expect(del.status).toBe(200);
    expect(del.body.id).toBe(t.id);
    expect((await r.student.api.get(`${G}/discussion_topics/${t.id}`)).status).toBe(404);
    expect((await r.teacher.api.get(`${G}/discussion_topics/${t.id}`)).body).toEqual(NOT_FOUND);
  });
});

describe('course discussion topics', () => {
  let r: Room;
  let C: string;
  beforeAll(async () => {
    r = await discussionWorld(world);
    C = coursePath(r.course.id);
  });

  it("makes a teacher's topic a draft unless published, hidden from students until published", async () => {
    const t = ok(await r.teacher.api.post(`${C}/discussion_topics`, { title: 'Draft' }));
    expect(t).toMatchObject({ published: false, posted_at: null, can_unpublish: true });
    expect((await r.student.api.get(`${C}/discussion_topics/${t.id}`)).status).toBe(404);
    expect((await r.student.api.get(`${C}/discussion_topics?per_page=100`)).body.map((x: any) => x.id)).not.toContain(t.id);
    expect((await r.student.api.post(`${C}/discussion_topics/${t.id}/entries`, { message: 'early' })).status).toBe(404);
    const pub = await r.teacher.api.put(`${C}/discussion_topics/${t.id}`, { published: true });
    expect(pub.status).toBe(200);
    expect(pub.body.published).toBe(true);
    expect(pub.body.posted_at).toMatch(ISO);
    expect((await r.student.api.get(`${C}/discussion_topics/${t.id}`)).status).toBe(200);
    // With an entry in it, it can no longer go back to draft (Canvas's model error, under published).
    await entry(r.student.api, C, t.id);
    const back = await r.teacher.api.put(`${C}/discussion_topics/${t.id}`, { published: false });
    expect(back.status).toBe(400);
    expect(back.body.errors.published[0]).toMatchObject({ type: 'invalid', message: 'This topic cannot be set to draft state because it contains posts.' });
  });

  it('lets a student start a topic and edit or delete it, but not make it a draft', async () => {
    const t = await topic(r.student.api, C, { title: 'Student topic', published: undefined });
    expect(t.published).toBe(true);
    expect((await r.student.api.put(`${C}/discussion_topics/${t.id}`, { title: 'Renamed', message: '<p>new</p>' })).body).toMatchObject({ title: 'Renamed', message: '<p>new</p>' });
    const before = await discussionTables(server);
    const draft = await r.student.api.put(`${C}/discussion_topics/${t.id}`, { published: false });
    expect(draft.status).toBe(400);
    expect(draft.body).toEqual({ errors: { published: 'You do not have permission to set this topic to draft state.' } });
    expect((await r.student2.api.put(`${C}/discussion_topics/${t.id}`, { title: 'Not yours' })).status).toBe(403);
    expect((await r.student2.api.delete(`${C}/discussion_topics/${t.id}`)).status).toBe(403);
    expect(await discussionTables(server)).toEqual(before);
    expect((await r.student.api.delete(`${C}/discussion_topics/${t.id}`)).status).toBe(200);
    expect(await count(server, 'discussion_topics', "id = ? AND workflow_state = 'deleted'", [t.id])).toBe(1);
  });

  it('refuses an announcement from a student (403) and from an outsider, storing nothing', async () => {
    const before = await discussionTables(server);
    const res = await r.student.api.post(`${C}/discussion_topics`, { title: 'Fake news', is_announcement: true });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    for (const u of [r.outsider, r.observer]) {
      expect((await u.api.post(`${C}/discussion_topics`, { title: 'Nope' })).status).toBe(403);
    }
    expect((await r.outsider.api.get(`${C}/discussion_topics`)).status).toBe(403);
    expect(await discussionTables(server)).toEqual(before);
  });

  it('closes course announcements for comments unless locked=false, and lists them newest first', async () => {
    const closed = await topic(r.teacher.api, C, { title: 'Closed', is_announcement: true, published: undefined });
    expect(closed).toMatchObject({ is_announcement: true, published: true, locked: true, locked_for_user: false });
    const open = await topic(r.teacher.api, C, { title: 'Open', is_announcement: true, locked: false });
    expect(open.locked).toBe(false);
    const refused = await r.student.api.post(`${C}/discussion_topics/${closed.id}/entries`, { message: 'can I?' });
    expect(refused.status).toBe(403);
    expect((await r.student.api.get(`${C}/discussion_topics/${closed.id}`)).body.permissions.reply).toBe(false);
    expect((await r.student.api.post(`${C}/discussion_topics/${open.id}/entries`, { message: 'yes' })).status).toBe(201);
    const list = (await r.student.api.get(`${C}/discussion_topics?only_announcements=true`)).body;
    expect(list.map((a: any) => a.id).slice(0, 2)).toEqual([open.id, closed.id]);
  });

  it('hides a delayed announcement from students until its date, and lists it for the teacher', async () => {
    const when = future(2);
    const later = await topic(r.teacher.api, C, { title: 'Later', is_announcement: true, delayed_post_at: `${when.slice(0, -1)}.600Z` });
    // Kept to the second, as Canvas renders times (and as both engines then store them alike).
    expect(later.delayed_post_at).toBe(when);
    expect(later.posted_at).toBe(when);
    expect((await r.teacher.api.get(`${C}/discussion_topics?only_announcements=true`)).body.map((a: any) => a.id)).toContain(later.id);
    expect((await r.student.api.get(`${C}/discussion_topics?only_announcements=true`)).body.map((a: any) => a.id)).not.toContain(later.id);
    expect((await r.student.api.get(`${C}/discussion_topics/${later.id}`)).status).toBe(404);
  });

  it('locks a topic for students after lock_at (lock_info, no replies) but not for the teacher', async () => {
    const lockAt = past(1);
    const t = await topic(r.teacher.api, C, { title: 'Was open', lock_at: lockAt });
    const seen = (await r.student.api.get(`${C}/discussion_topics/${t.id}`)).body;
    expect(seen).toMatchObject({ locked: true, locked_for_user: true, lock_info: { asset_string: `discussion_topic_${t.id}`, lock_at: lockAt, can_view: true } });
    expect(seen.lock_explanation).toContain('locked');
    expect((await r.student.api.post(`${C}/discussion_topics/${t.id}/entries`, { message: 'late' })).status).toBe(403);
    expect((await r.teacher.api.post(`${C}/discussion_topics/${t.id}/entries`, { message: 'still here' })).status).toBe(201);
  });

  it('keeps posts from students who have not posted when require_initial_post is set', async () => {
    const t = await topic(r.teacher.api, C, { title: 'Post first', require_initial_post: true });
    await entry(r.student.api, C, t.id, 'my answer');
    const blocked = await r.student2.api.get(`${C}/discussion_topics/${t.id}/entries`);
    expect(blocked.status).toBe(403);
    // Canvas renders the bare string, not JSON.
    expect(blocked.text).toBe('require_initial_post');
    expect((await r.student2.api.get(`${C}/discussion_topics/${t.id}`)).body.user_can_see_posts).toBe(false);
    await entry(r.student2.api, C, t.id, 'mine too');
    const seen = await r.student2.api.get(`${C}/discussion_topics/${t.id}/entries`);
    expect(seen.status).toBe(200);
    expect(seen.body).toHaveLength(2);
    expect((await r.teacher.api.get(`${C}/discussion_topics/${t.id}/entries`)).status).toBe(200);
  });

  it('refuses entries from an observer (no post_to_forum)', async () => {
    const t = await topic(r.teacher.api, C, { title: 'Observed' });
    expect((await r.observer.api.get(`${C}/discussion_topics/${t.id}`)).status).toBe(200);
    const before = await discussionTables(server);
    expect((await r.observer.api.post(`${C}/discussion_topics/${t.id}/entries`, { message: 'hello' })).status).toBe(403);
    expect(await discussionTables(server)).toEqual(before);
  });

  it('sets todo_date only for callers who manage content, and reports others as Canvas does', async () => {
    const t = await topic(r.teacher.api, C, { title: 'To do', todo_date: '2030-05-01T12:00:00Z' });
    expect(t.todo_date).toBe('2030-05-01T12:00:00Z');
    const before = await discussionTables(server);
    const res = await r.student.api.post(`${C}/discussion_topics`, { title: 'Mine', todo_date: '2030-05-01' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: { todo_date: 'You do not have permission to add this topic to the student to-do list.' } });
    expect(await discussionTables(server)).toEqual(before);
    const cleared = await r.teacher.api.put(`${C}/discussion_topics/${t.id}`, { todo_date: '' });
    expect(cleared.body.todo_date).toBeNull();
  });

  it('answers 404 for unknown topics and for a topic under another context', async () => {
    const t = await topic(r.teacher.api, C, { title: 'Here' });
    const other = await world.course({ name: 'Elsewhere' });
    await world.enroll(other.id, r.teacher.id, 'TeacherEnrollment');
    expect((await r.teacher.api.get(`${coursePath(other.id)}/discussion_topics/${t.id}`)).status).toBe(404);
    expect((await r.teacher.api.get(`${C}/discussion_topics/999999`)).status).toBe(404);
    expect((await r.teacher.api.get(`${C}/discussion_topics/abc`)).status).toBe(404);
    expect((await r.teacher.api.get(`/api/v1/courses/999999/discussion_topics`)).status).toBe(404);
    expect((await r.teacher.api.post(`${C}/discussion_topics/${t.id}/entries/999999/replies`, { message: 'x' })).status).toBe(404);
  });
});

describe('bad input', () => {
  let r: Room;
  let C: string;
  beforeAll(async () => {
    r = await discussionWorld(world);
    C = coursePath(r.course.id);
  });

  it.each([
    ['an over-long title', { title: 'x'.repeat(256) }, 'title', 'too_long'],
    ['a malformed delayed_post_at', { title: 'ok', delayed_post_at: 'next tuesday' }, 'delayed_post_at', 'invalid'],
    ['a malformed lock_at', { title: 'ok', lock_at: '2024-02-31' }, 'lock_at', 'invalid'],
    ['lock_at before delayed_post_at', { title: 'ok', delayed_post_at: future(5), lock_at: future(2) }, 'lock_at', 'invalid'],
    ['an unknown discussion_type', { title: 'ok', discussion_type: 'chaotic' }, 'discussion_type', 'inclusion'],
  ])('refuses %s with 400 and stores nothing', async (_what, body, attr, type) => {
    const before = await discussionTables(server);
    const res = await r.teacher.api.post(`${C}/discussion_topics`, body);
    expect(res.status).toBe(400);
    expect(res.body.errors[attr][0]).toMatchObject({ attribute: attr, type });
    expect(await discussionTables(server)).toEqual(before);
  });

  it('refuses a bad update with 400 and leaves the topic as it was', async () => {
    const t = await topic(r.teacher.api, C, { title: 'Stable' });
    const res = await r.teacher.api.put(`${C}/discussion_topics/${t.id}`, { title: 'y'.repeat(300), message: 'changed' });
    expect(res.status).toBe(400);
    expect((await r.teacher.api.get(`${C}/discussion_topics/${t.id}`)).body).toMatchObject({ title: 'Stable', message: '<p>Hello</p>' });
  });

  it('refuses a blank entry with 400 and stores nothing', async () => {
    const t = await topic(r.teacher.api, C, { title: 'Say something' });
    const before = await discussionTables(server);
    for (const message of ['', '   ', '<script>only()</script>']) {
      const res = await r.student.api.post(`${C}/discussion_topics/${t.id}/entries`, { message });
      expect(res.status).toBe(400);
      expect(res.body.errors.message[0]).toMatchObject({ attribute: 'message', type: 'blank' });
    }
    expect((await r.student.api.post(`${C}/discussion_topics/${t.id}/entries`, {})).status).toBe(400);
    expect(await discussionTables(server)).toEqual(before);
  });

  it('searches titles and messages with search_term, taking % and _ literally', async () => {
    const a = await topic(r.teacher.api, C, { title: 'Grade 100% guaranteed' });
    const b = await topic(r.teacher.api, C, { title: 'Plain', message: '<p>about snake_case names</p>' });
    await topic(r.teacher.api, C, { title: 'Grade 1000 points' });
    const find = async (term: string) => (await r.student.api.get(`${C}/discussion_topics?search_term=${encodeURIComponent(term)}`)).body.map((t: any) => t.id);
    expect(await find('100%')).toEqual([a.id]);
    expect(await find('SNAKE_CASE')).toEqual([b.id]);
    expect(await find('ke%ca')).toEqual([]);
  });

  it('names a blank title "No Title", and refuses an unknown order_by', async () => {
    expect((await topic(r.teacher.api, C, { title: '  ' })).title).toBe('No Title');
    expect((await r.teacher.api.get(`${C}/discussion_topics?order_by=random`)).status).toBe(400);
  });
});

describe('pagination', () => {
  it('pages topics with Canvas Link headers', async () => {
    const r = await discussionWorld(world);
    const C = coursePath(r.course.id);
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) ids.push((await topic(r.teacher.api, C, { title: `T${String(i).padStart(2, '0')}` })).id);
    const p1 = await r.student.api.get(`${C}/discussion_topics?per_page=5&order_by=title`);
    expect(p1.status).toBe(200);
    expect(p1.body.map((t: any) => t.title)).toEqual(['T00', 'T01', 'T02', 'T03', 'T04']);
    const links = parseLinks(p1.headers.get('link'));
    expect(links.next).toBe(`${server.url}${C}/discussion_topics?order_by=title&page=2&per_page=5`);
    expect(links.last).toContain('page=3');
    const p3 = await r.student.api.get(`${C}/discussion_topics?per_page=5&order_by=title&page=3`);
    expect(p3.body.map((t: any) => t.title)).toEqual(['T10', 'T11']);
    expect(parseLinks(p3.headers.get('link')).next).toBeUndefined();
    // Default order: newest first.
    expect((await r.student.api.get(`${C}/discussion_topics?per_page=3`)).body.map((t: any) => t.id)).toEqual(ids.slice(-3).reverse());
    expect((await r.student.api.get(`${C}/discussion_topics?page=x`)).status).toBe(400);
  });

  it('pages entries and the activity stream (21 items by default)', async () => {
    const r = await discussionWorld(world);
    const G = groupPath(r.group.id);
    const first = await topic(r.student.api, G, { title: 'Busy' });
    for (let i = 0; i < 4; i++) await entry(r.student2.api, G, first.id, `e${i}`);
    const page = await r.student.api.get(`${G}/discussion_topics/${first.id}/entries?per_page=3`);
    expect(page.body.map((e: any) => e.message)).toEqual(['e3', 'e2', 'e1']);
    expect(parseLinks(page.headers.get('link')).next).toContain('page=2');
    for (let i = 0; i < 22; i++) await topic(r.student2.api, G, { title: `S${i}` });
    const s1 = await r.student.api.get(`${G}/activity_stream`);
    expect(s1.body).toHaveLength(21);
    const next = parseLinks(s1.headers.get('link')).next;
    expect(next).toBe(`${server.url}${G}/activity_stream?page=2&per_page=21`);
    const s2 = await r.student.api.get(next.slice(server.url.length));
    expect(s2.body).toHaveLength(2);
    expect(s2.body[1].id).toBe(first.id);
  });
});

describe('activity streams', () => {
  let r: Room;
  let G: string;
  let C: string;
  beforeAll(async () => {
    r = await discussionWorld(world);
    G = groupPath(r.group.id);
    C = coursePath(r.course.id);
  });

  it('lists group topics and announcements in Canvas stream item shape, newest activity first', async () => {
    const a = await topic(r.student.api, G, { title: 'Topic A', message: '<p>A</p>' });
    const b = await topic(r.student2.api, G, { title: 'Topic B' });
    const ann = await topic(r.student.api, G, { title: 'News', is_announcement: true });
    await topic(r.teacher.api, G, { title: 'Draft by teacher', published: false });
    await topic(r.student.api, G, { title: 'Announce later', is_announcement: true, delayed_post_at: future(3) });
    const stream = await r.student2.api.get(`${G}/activity_stream`);
    expect(stream.status).toBe(200);
    expect(stream.body.map((s: any) => s.title)).toEqual(['News', 'Topic B', 'Topic A']);
    expect(stream.body[0]).toEqual({
      id: ann.id,
      title: 'News',
      message: '<p>Hello</p>',
      type: 'Announcement',
      read_state: false,
      context_type: 'Group',
      group_id: r.group.id,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
      html_url: `${server.url}/groups/${r.group.id}/announcements/${ann.id}`,
      announcement_id: ann.id,
      total_root_discussion_entries: 0,
      require_initial_post: false,
      user_has_posted: null,
      root_discussion_entries: [],
    });
    expect(stream.body[1]).toMatchObject({ type: 'DiscussionTopic', discussion_topic_id: b.id, read_state: true, html_url: `${server.url}/groups/${r.group.id}/discussion_topics/${b.id}` });

    // Four top-level entries on A: it moves to the top, carrying its latest three entries (oldest of them first).
    for (const m of ['one', 'two', 'three', 'four']) await entry(r.student.api, G, a.id, m);
    await r.student2.api.post(`${G}/discussion_topics/${a.id}/entries`, { message: 'not root' }).then(async () => undefined);
    const after = (await r.student2.api.get(`${G}/activity_stream`)).body;
    expect(after.map((s: any) => s.id)).toEqual([a.id, ann.id, b.id]);
    expect(after[0]).toMatchObject({
      total_root_discussion_entries: 5,
      root_discussion_entries: [
        { user: { user_id: r.student.id, user_name: 'Sam Student' }, message: 'three' },
        { user: { user_id: r.student.id, user_name: 'Sam Student' }, message: 'four' },
        { user: { user_id: r.student2.id, user_name: 'Sally Student' }, message: 'not root' },
      ],
    });
    // A change of content brings a topic back up, as Canvas regenerates its stream item; a reply does not.
    ok(await r.student2.api.put(`${G}/discussion_topics/${b.id}`, { message: '<p>B, revised</p>' }));
    const root = (await r.student.api.get(`${G}/discussion_topics/${a.id}/entries`)).body[0];
    ok(await r.student.api.post(`${G}/discussion_topics/${a.id}/entries/${root.id}/replies`, { message: 'a reply' }));
    const revised = (await r.student2.api.get(`${G}/activity_stream`)).body;
    expect(revised.map((s: any) => s.id)).toEqual([b.id, a.id, ann.id]);
    expect(revised[0].message).toBe('<p>B, revised</p>');
  });

  it('summarises the stream per type with unread counts, following read state', async () => {
    const fresh = await makeGroup(r.teacher.api, r.course.id, [r.student, r.classmate]);
    const F = groupPath(fresh.id);
    const t1 = await topic(r.student.api, F, { title: 'One' });
    await topic(r.student.api, F, { title: 'Two' });
    await topic(r.student.api, F, { title: 'Notice', is_announcement: true });
    const summary = await r.classmate.api.get(`${F}/activity_stream/summary`);
    expect(summary.status).toBe(200);
    expect(summary.body).toEqual([
      { type: 'Announcement', unread_count: 1, count: 1, notification_category: null },
      { type: 'DiscussionTopic', unread_count: 2, count: 2, notification_category: null },
    ]);
    // The author has read their own topics.
    expect((await r.student.api.get(`${F}/activity_stream/summary`)).body.map((s: any) => s.unread_count)).toEqual([0, 0]);
    expect((await r.classmate.api.put(`${F}/discussion_topics/${t1.id}/read`)).status).toBe(204);
    expect((await r.classmate.api.get(`${F}/activity_stream/summary`)).body[1]).toMatchObject({ unread_count: 1, count: 2 });
    expect((await r.classmate.api.get(`${F}/activity_stream`)).body.find((s: any) => s.id === t1.id).read_state).toBe(true);
    expect((await r.classmate.api.delete(`${F}/discussion_topics/${t1.id}/read`)).status).toBe(204);
    expect((await r.classmate.api.get(`${F}/activity_stream/summary`)).body[1].unread_count).toBe(2);
    // The teacher, an admin of the group's course, reads it too; a classmate outside it may not.
    expect((await r.teacher.api.get(`${F}/activity_stream/summary`)).status).toBe(200);
    expect((await r.student2.api.get(`${F}/activity_stream/summary`)).status).toBe(403);
  });

  it('hides root entries of require_initial_post topics from students who have not posted', async () => {
    const t = await topic(r.student.api, G, { title: 'Answer first', require_initial_post: true });
    await entry(r.student.api, G, t.id, 'my view');
    const item = (await r.student2.api.get(`${G}/activity_stream`)).body.find((s: any) => s.id === t.id);
    expect(item).toMatchObject({ require_initial_post: true, user_has_posted: false, root_discussion_entries: [], total_root_discussion_entries: 1 });
    const own = (await r.student.api.get(`${G}/activity_stream`)).body.find((s: any) => s.id === t.id);
    expect(own).toMatchObject({ user_has_posted: true, root_discussion_entries: [{ message: 'my view' }] });
  });

  it("gathers the caller's courses and groups in /users/self/activity_stream", async () => {
    const ct = await topic(r.teacher.api, C, { title: 'Course-wide' });
    const gt = await topic(r.student.api, G, { title: 'Group-only' });
    const elsewhere = await world.course({ name: 'Not mine' });
    const stranger = await world.user('Stranger Teacher');
    await world.enroll(elsewhere.id, stranger.id, 'TeacherEnrollment');
    const foreign = await topic(stranger.api, coursePath(elsewhere.id), { title: 'Foreign' });

    const mine = (await r.student2.api.get('/api/v1/users/self/activity_stream?per_page=100')).body;
    const ids = mine.map((s: any) => s.id);
    expect(ids).toEqual(expect.arrayContaining([ct.id, gt.id]));
    expect(ids).not.toContain(foreign.id);
    expect(mine.find((s: any) => s.id === ct.id)).toMatchObject({ context_type: 'Course', course_id: r.course.id });
    expect(ids.indexOf(gt.id)).toBeLessThan(ids.indexOf(ct.id));
    // The classmate is in the course but not the group.
    const theirs = (await r.classmate.api.get('/api/v1/users/activity_stream?per_page=100')).body.map((s: any) => s.id);
    expect(theirs).toContain(ct.id);
    expect(theirs).not.toContain(gt.id);
    const summary = (await r.student2.api.get('/api/v1/users/self/activity_stream/summary')).body;
    expect(summary.map((s: any) => s.type)).toEqual(['Announcement', 'DiscussionTopic']);
    expect((await server.as(null).get('/api/v1/users/self/activity_stream')).status).toBe(401);
  });

  it('serves a course stream to its members only', async () => {
    await topic(r.teacher.api, C, { title: 'For the course' });
    const s = await r.observer.api.get(`${C}/activity_stream`);
    expect(s.status).toBe(200);
    expect(s.body.map((x: any) => x.title)).toContain('For the course');
    expect((await r.outsider.api.get(`${C}/activity_stream`)).status).toBe(403);
    expect((await r.outsider.api.get(`${C}/activity_stream/summary`)).status).toBe(403);
  });
});

describe('SQL statements do not grow with the list', () => {
  async function groupWithTopics(n: number) {
    const r = await discussionWorld(world);
    const G = groupPath(r.group.id);
    // Each run of three: a plain topic by one member, an announcement and a require_initial_post topic by the other.
    // (Every list then holds the same kinds of rows whatever its length, so only the length differs.)
    for (let i = 0; i < n; i++) {
      const t = await topic(i % 3 === 0 ? r.student.api : r.student2.api, G, { title: `N${i}`, is_announcement: i % 3 === 1, require_initial_post: i % 3 === 2 });
      await entry(r.student.api, G, t.id, `a${i}`);
      await entry(r.student2.api, G, t.id, `b${i}`);
    }
    await r.student.api.get('/api/v1/users/self');
    return { r, G };
  }

  async function statements(fn: () => Promise<unknown>): Promise<number> {
    const before = server.queryCount();
    await fn();
    return server.queryCount() - before;
  }

  it('for topic lists, entries and activity streams, REST and GraphQL', async () => {
    const small = await groupWithTopics(3);
    const large = await groupWithTopics(12);
    const measure = async ({ r, G }: { r: Room; G: string }, n: number) => {
      const out: Record<string, number> = {};
      out.stream = await statements(async () => expect((await r.student.api.get(`${G}/activity_stream?per_page=50`)).body).toHaveLength(n));
      out.summary = await statements(async () => expect((await r.student.api.get(`${G}/activity_stream/summary`)).status).toBe(200));
      out.topics = await statements(async () => {
        const a = (await r.student.api.get(`${G}/discussion_topics?per_page=50`)).body.length;
        const b = (await r.student.api.get(`${G}/discussion_topics?per_page=50&only_announcements=true`)).body.length;
        expect(a + b).toBe(n);
      });
      // One root field per request: parallel root fields on a pooled engine may share batches or not, by timing.
      out.graphqlStream = await statements(async () => {
        const res = await r.student.api.graphql(
          `query($id: ID!) { groupActivityStream(groupId: $id, first: 50) { nodes { _id type readState totalRootDiscussionEntries userHasPosted
             rootDiscussionEntries { userName message } discussionTopic { title author { name } unreadCount permissions { reply } lockInfo { explanation } } } } }`,
          { id: String(r.group.id) },
        );
        expect(res.errors).toBeUndefined();
        expect(res.data.groupActivityStream.nodes).toHaveLength(n);
      });
      out.graphqlTopics = await statements(async () => {
        const res = await r.student.api.graphql(
          `query($id: ID!) { group(id: $id) { discussionsConnection(first: 50) { nodes { title userName readState discussionSubentryCount subscribed userCanSeePosts
             entriesConnection(first: 5) { nodes { message userName readState recentReplies { message } } } } } } }`,
          { id: String(r.group.id) },
        );
        expect(res.errors).toBeUndefined();
        expect(res.data.group.discussionsConnection.nodes).toHaveLength(n - Math.floor(n / 3));
      });
      return out;
    };
    const s = await measure(small, 3);
    const l = await measure(large, 12);
    expect(l).toEqual(s);
    expect(s.stream).toBeLessThan(25);
  });
});
