import { onDomainEvent } from '../src/events/domain-events';
import { makeGroup } from './discussions.support';
import { captureEvents, count } from './support/content';
import { FORBIDDEN, ModulesKit, NOT_FOUND, ok, startModulesWorld, UNAUTHENTICATED } from './support/modules';
import type { TestServer } from './support/server';
import type { WorldUser } from './support/world';
import type { World } from './support/world';

/**
 * Graded discussions (canvas-platform.md §2.11, §2.12): a course topic written with Canvas's
 * `assignment[...]` params is scored through a backing assignment (submission type discussion_topic);
 * a student's post turns it in, teachers grade it through the submissions API, module requirements and
 * the planner read it like any assignment, and deleting either side deletes both.
 */

let server: TestServer;
let world: World;
let kit: ModulesKit;
const sink = { events: [] as any[] };
onDomainEvent(async (_em, _ctx, e) => {
  sink.events.push(e);
});

beforeAll(async () => ({ server, world, kit } = await startModulesWorld()));
afterAll(() => server.close());

const topics = (suffix = '') => `/api/v1/courses/${kit.cid}/discussion_topics${suffix}`;
const assignments = (suffix = '') => `/api/v1/courses/${kit.cid}/assignments${suffix}`;
const submissionOf = (assignmentId: number, userId: number) => kit.teacher.get(assignments(`/${assignmentId}/submissions/${userId}`));

async function gradedTopic(fields: Record<string, unknown> = {}, assignment: Record<string, unknown> = {}): Promise<any> {
  return ok(await kit.teacher.post(topics(), { title: 'Graded talk', message: '<p>Argue</p>', published: true, ...fields, assignment: { points_possible: 10, ...assignment } }), 'create graded topic');
}

/** Row counts of what a topic write may touch, to show a refused or invalid one stored nothing. */
async function tables(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of ['discussion_topics', 'discussion_entries', 'assignments', 'submissions']) out[t] = await count(server, t);
  out.graded = await count(server, 'discussion_topics', 'assignment_id IS NOT NULL');
  return out;
}

describe('creating and updating a graded topic', () => {
  it('creates the backing assignment from assignment[...] (name from the title, published with the topic) and shows it in the topic JSON', async () => {
    const { result: res, events } = await captureEvents(sink, () =>
      kit.teacher.post(topics(), {
        title: 'Osmosis debate',
        message: '<p>Which way does water move?</p>',
        published: 'true',
        assignment: { points_possible: '12', due_at: '2031-05-10T17:00:00Z', unlock_at: '2031-05-01T00:00:00Z', lock_at: '2031-05-11T00:00:00Z', name: 'ignored', submission_types: ['online_url'] },
      }),
    );
    expect(res.status).toBe(200);
    const topic = res.body;
    expect(topic.assignment_id).toEqual(expect.any(Number));
    expect(topic.assignment).toMatchObject({
      id: topic.assignment_id,
      name: 'Osmosis debate',
      description: '<p>Which way does water move?</p>',
      course_id: kit.cid,
      points_possible: 12,
      due_at: '2031-05-10T17:00:00Z',
      unlock_at: '2031-05-01T00:00:00Z',
      lock_at: '2031-05-11T00:00:00Z',
      submission_types: ['discussion_topic'],
      published: true,
      workflow_state: 'published',
      grading_type: 'points',
      html_url: expect.stringMatching(new RegExp(`/courses/${kit.cid}/assignments/${topic.assignment_id}$`)),
    });
    expect(events.map((e) => `${e.type}:${e.contentType ?? ''}`)).toEqual(expect.arrayContaining(['content.changed:Assignment', 'content.changed:Discussion']));
    // The assignment is an assignment like any other; shows and lists carry it.
    expect(ok(await kit.teacher.get(assignments(`/${topic.assignment_id}`)))).toMatchObject({ name: 'Osmosis debate', submission_types: ['discussion_topic'] });
    expect(ok(await kit.room.student.api.get(topics(`/${topic.id}`))).assignment).toMatchObject({ id: topic.assignment_id, points_possible: 12 });
    const listed = (ok(await kit.teacher.get(`${topics()}?per_page=100`)) as any[]).find((t) => t.id === topic.id);
    expect(listed.assignment.id).toBe(topic.assignment_id);
    // Ungraded topics have no assignment key.
    const plain = await kit.discussion({ title: 'Chat' });
    expect(plain.assignment_id).toBeNull();
    expect(plain).not.toHaveProperty('assignment');
  });

  it('keeps a draft topic’s assignment unpublished, and publishes both together', async () => {
    const draft = ok(await kit.teacher.post(topics(), { title: 'Draft graded', assignment: { points_possible: 5 } }));
    expect(draft.published).toBe(false);
    expect(draft.assignment).toMatchObject({ published: false, workflow_state: 'unpublished' });
    // Students see neither.
    expect(await kit.room.student.api.get(assignments(`/${draft.assignment_id}`))).toMatchObject({ status: 404 });
    const published = ok(await kit.teacher.put(topics(`/${draft.id}`), { published: true, title: 'Published graded' }));
    expect(published.assignment).toMatchObject({ published: true, name: 'Published graded' });
    expect(ok(await kit.room.student.api.get(assignments(`/${draft.assignment_id}`)))).toMatchObject({ name: 'Published graded', published: true });
  });

  it('updates the assignment from assignment[...] on PUT; set_assignment=false deletes it and ungrades the topic', async () => {
    const topic = await gradedTopic({ title: 'Update me' });
    const updated = ok(await kit.teacher.put(topics(`/${topic.id}`), { assignment: { points_possible: 20, due_at: '2031-06-01T12:00:00Z', grading_type: 'pass_fail' } }));
    expect(updated.assignment_id).toBe(topic.assignment_id);
    expect(updated.assignment).toMatchObject({ points_possible: 20, due_at: '2031-06-01T12:00:00Z', grading_type: 'pass_fail' });
    // A plain update keeps the assignment and its points.
    expect(ok(await kit.teacher.put(topics(`/${topic.id}`), { message: '<p>New</p>' })).assignment).toMatchObject({ points_possible: 20, description: '<p>New</p>' });

    const ungraded = ok(await kit.teacher.put(topics(`/${topic.id}`), { assignment: { set_assignment: 'false' } }));
    expect(ungraded.assignment_id).toBeNull();
    expect(ungraded).not.toHaveProperty('assignment');
    expect(await kit.teacher.get(assignments(`/${topic.assignment_id}`))).toMatchObject({ status: 404 });
    // Graded again: a new assignment.
    const regraded = ok(await kit.teacher.put(topics(`/${topic.id}`), { assignment: { points_possible: 3 } }));
    expect(regraded.assignment_id).toEqual(expect.any(Number));
    expect(regraded.assignment_id).not.toBe(topic.assignment_id);
  });

  it('prefers the assignment’s availability dates: assignment[unlock_at] and [lock_at] replace the topic’s own', async () => {
    const topic = ok(await kit.teacher.post(topics(), { title: 'Dated', published: true, delayed_post_at: '2031-01-01T00:00:00Z', lock_at: '2031-12-01T00:00:00Z' }));
    const graded = ok(await kit.teacher.put(topics(`/${topic.id}`), { assignment: { points_possible: 4, unlock_at: '2031-02-01T00:00:00Z', lock_at: '2031-03-01T00:00:00Z' } }));
    expect(graded).toMatchObject({ delayed_post_at: null, lock_at: null });
    expect(graded.assignment).toMatchObject({ unlock_at: '2031-02-01T00:00:00Z', lock_at: '2031-03-01T00:00:00Z' });
  });

  it('follows Canvas’s to-do rules: becoming graded clears todo_date; a graded topic refuses one (400, nothing stored)', async () => {
    const topic = ok(await kit.teacher.post(topics(), { title: 'To do', published: true, todo_date: '2031-04-01T10:00:00Z' }));
    expect(topic.todo_date).toBe('2031-04-01T10:00:00Z');
    const graded = ok(await kit.teacher.put(topics(`/${topic.id}`), { assignment: { points_possible: 2 } }));
    expect(graded).toMatchObject({ todo_date: null, assignment_id: expect.any(Number) });

    const before = await tables();
    const refusedCreate = await kit.teacher.post(topics(), { title: 'Both', todo_date: '2031-04-01T10:00:00Z', assignment: { points_possible: 1 } });
    expect(refusedCreate).toMatchObject({ status: 400, body: { errors: { todo_date: 'Date cannot be added if discussion topic is graded' } } });
    const refusedUpdate = await kit.teacher.put(topics(`/${topic.id}`), { todo_date: '2031-04-02T10:00:00Z' });
    expect(refusedUpdate).toMatchObject({ status: 400, body: { errors: { todo_date: 'Date cannot be added if discussion topic is graded' } } });
    expect(await tables()).toEqual(before);
    // Ungrading in the same request allows it.
    const ungraded = ok(await kit.teacher.put(topics(`/${topic.id}`), { todo_date: '2031-04-02T10:00:00Z', assignment: { set_assignment: false } }));
    expect(ungraded).toMatchObject({ todo_date: '2031-04-02T10:00:00Z', assignment_id: null });
  });

  it('refuses bad assignment params with 400 naming the field, storing nothing', async () => {
    const topic = await gradedTopic({ title: 'Guarded' });
    const before = await tables();
    const bad = async (assignment: Record<string, unknown>, field: string) => {
      const created = await kit.teacher.post(topics(), { title: 'Bad', assignment });
      expect([field, created.status]).toEqual([field, 400]);
      expect(JSON.stringify(created.body)).toContain(field);
      const updated = await kit.teacher.put(topics(`/${topic.id}`), { title: 'Changed', assignment });
      expect([field, updated.status]).toEqual([field, 400]);
    };
    await bad({ points_possible: '-5' }, 'points_possible');
    await bad({ points_possible: 'lots' }, 'points_possible');
    await bad({ grading_type: 'vibes' }, 'grading_type');
    await bad({ due_at: '2031-05-20T00:00:00Z', lock_at: '2031-05-10T00:00:00Z' }, 'due_at');
    await bad({ due_at: 'next tuesday' }, 'due_at');
    expect(await tables()).toEqual(before);
    expect(ok(await kit.teacher.get(topics(`/${topic.id}`))).title).toBe('Guarded');
  });

  it('ignores assignment params from callers who may not manage assignments (as Canvas), and refuses what they may not write at all', async () => {
    // Students may start topics in a course; their assignment params are ignored.
    const mine = ok(await kit.room.student.api.post(topics(), { title: 'Student topic', message: 'hi', assignment: { points_possible: 50 } }));
    expect(mine.assignment_id).toBeNull();
    const graded = await gradedTopic({ title: 'Not yours' });
    const before = await tables();
    for (const who of [kit.room.student, kit.room.observer, kit.room.outsider]) {
      const res = await who.api.put(topics(`/${graded.id}`), { assignment: { set_assignment: false } });
      expect([who.name, res.status]).toEqual([who.name, 403]);
      expect(await who.api.delete(topics(`/${graded.id}`))).toMatchObject({ status: 403 });
    }
    expect(await server.as(null).put(topics(`/${graded.id}`), { assignment: { points_possible: 1 } })).toMatchObject({ status: 401, body: UNAUTHENTICATED });
    expect(await tables()).toEqual(before);
    expect(ok(await kit.teacher.get(assignments(`/${graded.assignment_id}`))).points_possible).toBe(10);
  });

  it('never grades announcements or group topics', async () => {
    const before = await count(server, 'assignments');
    const ann = ok(await kit.teacher.post(topics(), { title: 'News', message: 'x', is_announcement: true, assignment: { points_possible: 5 } }));
    expect(ann.assignment_id).toBeNull();
    const group = await makeGroup(kit.teacher, kit.cid, [kit.room.student]);
    const groupTopic = ok(await kit.room.student.api.post(`/api/v1/groups/${group.id}/discussion_topics`, { title: 'Group talk', message: 'x', assignment: { points_possible: 5 } }));
    expect(groupTopic.assignment_id).toBeNull();
    expect(await count(server, 'assignments')).toBe(before);
  });
});

describe('students turning in a graded discussion by posting', () => {
  it('a student’s first post is a new discussion_topic attempt (submission.submitted); later posts keep it; teachers grade it through the submissions API', async () => {
    const topic = await gradedTopic({ title: 'Post to submit' }, { points_possible: 8 });
    const s = kit.room.student;
    expect(ok(await submissionOf(topic.assignment_id, s.id))).toMatchObject({ workflow_state: 'unsubmitted', attempt: null, submission_type: null });

    const { events } = await captureEvents(sink, () => kit.post(s, topic.id, 'My first thought'));
    const submitted = events.filter((e) => e.type === 'submission.submitted');
    expect(submitted).toEqual([expect.objectContaining({ courseId: kit.cid, assignmentId: topic.assignment_id, userId: s.id, attempt: 1 })]);
    expect(events.map((e) => e.type)).toContain('content.contributed');
    const sub = ok(await submissionOf(topic.assignment_id, s.id));
    expect(sub).toMatchObject({ workflow_state: 'submitted', submission_type: 'discussion_topic', attempt: 1, submitted_at: expect.any(String) });

    const { events: again } = await captureEvents(sink, () => kit.post(s, topic.id, 'And another'));
    expect(again.filter((e) => e.type === 'submission.submitted')).toEqual([]);
    expect(ok(await submissionOf(topic.assignment_id, s.id))).toMatchObject({ attempt: 1, submitted_at: sub.submitted_at });

    // Teachers' and observers' posts are not submissions.
    await kit.post(kit.room.teacher, topic.id, 'Teacher reply');
    expect(await count(server, 'submissions', 'assignment_id = ? AND user_id = ?', [topic.assignment_id, kit.room.teacher.id])).toBe(0);

    const graded = ok(await kit.teacher.put(assignments(`/${topic.assignment_id}/submissions/${s.id}`), { submission: { posted_grade: '6' } }));
    expect(graded).toMatchObject({ score: 6, grade: '6', workflow_state: 'graded', submission_type: 'discussion_topic' });
    // Discussion posts are not submitted through the submissions API.
    expect(await kit.room.student2.api.post(assignments(`/${topic.assignment_id}/submissions`), { submission: { submission_type: 'discussion_topic' } })).toMatchObject({
      status: 400,
      body: { message: 'Invalid submission[submission_type] given' },
    });
  });

  it('credits students who posted before the topic became graded', async () => {
    const topic = await kit.discussion({ title: 'Graded later' });
    const early = await kit.post(kit.room.student2, topic.id, 'Early bird');
    const graded = ok(await kit.teacher.put(topics(`/${topic.id}`), { assignment: { points_possible: 5 } }));
    const sub = ok(await submissionOf(graded.assignment_id, kit.room.student2.id));
    expect(sub).toMatchObject({ workflow_state: 'submitted', submission_type: 'discussion_topic', attempt: 1, submitted_at: early.created_at });
    expect(ok(await submissionOf(graded.assignment_id, kit.room.student.id))).toMatchObject({ workflow_state: 'unsubmitted' });
  });

  it('is locked for students outside the assignment’s dates: lock_info says so and posts are refused (403)', async () => {
    const topic = await gradedTopic({ title: 'Not yet' }, { unlock_at: '2031-01-01T00:00:00Z' });
    const seen = ok(await kit.room.student.api.get(topics(`/${topic.id}`)));
    expect(seen).toMatchObject({
      locked_for_user: true,
      lock_info: { asset_string: `assignment_${topic.assignment_id}`, unlock_at: '2031-01-01T00:00:00Z' },
      permissions: { reply: false },
    });
    expect(seen.lock_explanation).toContain('locked until');
    const before = await tables();
    expect(await kit.room.student.api.post(topics(`/${topic.id}/entries`), { message: 'Too early' })).toMatchObject({ status: 403, body: FORBIDDEN });
    expect(await tables()).toEqual(before);
    // The teacher is not locked out.
    expect(ok(await kit.teacher.get(topics(`/${topic.id}`)))).toMatchObject({ locked_for_user: false, permissions: { reply: true } });
  });
});

describe('graded discussions in modules and the planner', () => {
  it('must_submit and min_score on a Discussion item are met by posting and by the grade (the adapter reports the assignment)', async () => {
    const topic = await gradedTopic({ title: 'Module graded talk' }, { points_possible: 10 });
    const m = await kit.module({ name: 'Graded discussion module' });
    const submitItem = await kit.addItem(m.id, { type: 'Discussion', content_id: topic.id, completion_requirement: { type: 'must_submit' } });
    const m2 = await kit.module({ name: 'Scored discussion module' });
    const scoreItem = await kit.addItem(m2.id, { type: 'Discussion', content_id: topic.id, completion_requirement: { type: 'min_score', min_score: 7 } });
    expect(scoreItem.completion_requirement).toEqual({ type: 'min_score', min_score: 7 });
    await kit.publish(m.id);
    await kit.publish(m2.id);
    const s = kit.room.student.api;
    expect(await kit.completed(s, m.id, submitItem.id)).toBe(false);
    await kit.post(kit.room.student, topic.id);
    expect(await kit.completed(s, m.id, submitItem.id)).toBe(true);
    expect(await kit.stateOf(s, m.id)).toBe('completed');
    expect(await kit.stateOf(s, m2.id)).toBe('started');
    await kit.grade(topic.assignment_id, kit.room.student.id, 6);
    expect(await kit.completed(s, m2.id, scoreItem.id)).toBe(false);
    await kit.grade(topic.assignment_id, kit.room.student.id, 7);
    expect(await kit.completed(s, m2.id, scoreItem.id)).toBe(true);
    expect(await kit.stateOf(s, m2.id)).toBe('completed');
    // Content details show the assignment's points.
    const item = ok(await kit.teacher.get(`${kit.item(m2.id, scoreItem.id)}?include[]=content_details`));
    expect(item.content_details).toMatchObject({ points_possible: 10 });
  });

  it('shows the graded topic on the planner with its submission status', async () => {
    const topic = await gradedTopic({ title: 'Planner graded talk' }, { points_possible: 4, due_at: '2031-08-15T12:00:00Z' });
    const planner = async (who: WorldUser) =>
      (ok(await who.api.get('/api/v1/planner/items?start_date=2031-08-14&end_date=2031-08-16&per_page=50')) as any[]).find((i) => i.plannable_id === String(topic.id));
    const before = await planner(kit.room.student);
    expect(before).toMatchObject({ plannable_type: 'discussion_topic', plannable: { assignment_id: topic.assignment_id, points_possible: 4 }, submissions: { submitted: false } });
    await kit.post(kit.room.student, topic.id);
    expect((await planner(kit.room.student)).submissions).toMatchObject({ submitted: true, graded: false, needs_grading: true });
    await kit.grade(topic.assignment_id, kit.room.student.id, 4);
    expect((await planner(kit.room.student)).submissions).toMatchObject({ submitted: true, graded: true });
  });
});

describe('deleting and editing either side', () => {
  it('deleting the topic deletes its assignment; deleting the assignment deletes its topic', async () => {
    const a = await gradedTopic({ title: 'Delete topic' });
    ok(await kit.teacher.delete(topics(`/${a.id}`)));
    expect(await kit.teacher.get(assignments(`/${a.assignment_id}`))).toMatchObject({ status: 404, body: NOT_FOUND });

    const b = await gradedTopic({ title: 'Delete assignment' });
    ok(await kit.teacher.delete(assignments(`/${b.assignment_id}`)));
    expect(await kit.teacher.get(topics(`/${b.id}`))).toMatchObject({ status: 404 });
  });

  it('an edit of the assignment through the assignments API carries its name and published state to the topic, and keeps its submission type', async () => {
    const topic = await gradedTopic({ title: 'Before rename' });
    const a = ok(await kit.teacher.put(assignments(`/${topic.assignment_id}`), { assignment: { name: 'After rename', points_possible: 15, submission_types: ['online_url'] } }));
    expect(a).toMatchObject({ name: 'After rename', points_possible: 15, submission_types: ['discussion_topic'] });
    expect(ok(await kit.teacher.get(topics(`/${topic.id}`)))).toMatchObject({ title: 'After rename', assignment: { points_possible: 15 } });
    ok(await kit.teacher.put(assignments(`/${topic.assignment_id}`), { assignment: { published: false } }));
    expect(ok(await kit.teacher.get(topics(`/${topic.id}`))).published).toBe(false);
    expect(await kit.room.student.api.get(topics(`/${topic.id}`))).toMatchObject({ status: 404 });
    // A topic with posts stays published, so its assignment does too.
    const talked = await gradedTopic({ title: 'Has posts' });
    await kit.post(kit.room.teacher, talked.id, 'Welcome');
    const refused = await kit.teacher.put(assignments(`/${talked.assignment_id}`), { assignment: { published: false } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('published');
    expect(ok(await kit.teacher.get(topics(`/${talked.id}`)))).toMatchObject({ published: true, assignment: { published: true } });
  });

  it('renaming or publishing the Discussion module item carries over to the assignment', async () => {
    const topic = ok(await kit.teacher.post(topics(), { title: 'Item graded', assignment: { points_possible: 2 } }));
    const m = await kit.module({ name: 'Rename module' });
    const item = await kit.addItem(m.id, { type: 'Discussion', content_id: topic.id });
    ok(await kit.teacher.put(kit.item(m.id, item.id), { module_item: { title: 'Item renamed', published: true } }));
    expect(ok(await kit.teacher.get(assignments(`/${topic.assignment_id}`)))).toMatchObject({ name: 'Item renamed', published: true });
    expect(ok(await kit.teacher.get(topics(`/${topic.id}`)))).toMatchObject({ title: 'Item renamed', published: true });
  });
});

describe('GraphQL', () => {
  it('createDiscussionTopic and updateDiscussionTopic take an assignment input; Discussion.assignment is the assignment', async () => {
    const CREATE = `mutation($input: CreateDiscussionTopicInput!) { createDiscussionTopic(input: $input) {
      discussionTopic { _id assignmentId todoDate assignment { _id name pointsPossible submissionTypes published dueAt } } errors { attribute message } } }`;
    const res = await kit.teacher.graphql(CREATE, {
      input: { contextType: 'Course', contextId: String(kit.cid), title: 'GraphQL graded', published: true, assignment: { pointsPossible: 9, dueAt: '2031-09-01T00:00:00Z' } },
    });
    const created = res.data.createDiscussionTopic;
    expect(created.errors).toBeNull();
    expect(created.discussionTopic.assignment).toEqual({
      _id: created.discussionTopic.assignmentId,
      name: 'GraphQL graded',
      pointsPossible: 9,
      submissionTypes: ['discussion_topic'],
      published: true,
      dueAt: '2031-09-01T00:00:00Z',
    });
    const UPDATE = `mutation($input: UpdateDiscussionTopicInput!) { updateDiscussionTopic(input: $input) {
      discussionTopic { assignmentId assignment { _id } } errors { attribute message } } }`;
    const bad = await kit.teacher.graphql(UPDATE, { input: { id: created.discussionTopic._id, assignment: { pointsPossible: -1 } } });
    expect(bad.data.updateDiscussionTopic.errors).toEqual([expect.objectContaining({ attribute: 'points_possible' })]);
    const removed = await kit.teacher.graphql(UPDATE, { input: { id: created.discussionTopic._id, assignment: { setAssignment: false } } });
    expect(removed.data.updateDiscussionTopic).toEqual({ discussionTopic: { assignmentId: null, assignment: null }, errors: null });
  });
});

describe('SQL statements do not grow with the list', () => {
  it('for graded topics with their assignments, as teacher and student', async () => {
    const seed = async (n: number) => {
      const k = await kit.sibling(world, `Graded list ${n}`);
      for (let i = 0; i < n; i++) {
        // Alternately open and locked (assignment not yet available), each with a student's post.
        const t = ok(await k.teacher.post(`/api/v1/courses/${k.cid}/discussion_topics`, { title: `G${i}`, published: true, assignment: { points_possible: i + 1, ...(i % 2 ? { unlock_at: '2031-01-01T00:00:00Z' } : {}) } }));
        if (i % 2 === 0) await k.post(k.room.student, t.id);
      }
      await k.room.student.api.get('/api/v1/users/self');
      return k;
    };
    const statements = async (fn: () => Promise<unknown>) => {
      const before = server.queryCount();
      await fn();
      return server.queryCount() - before;
    };
    const measure = async (k: ModulesKit, n: number) => {
      const out: Record<string, number> = {};
      for (const [who, api] of [['teacher', k.teacher], ['student', k.room.student.api]] as const) {
        out[who] = await statements(async () => {
          const list = ok(await api.get(`/api/v1/courses/${k.cid}/discussion_topics?per_page=50`)) as any[];
          expect(list).toHaveLength(n);
          expect(list.every((t) => t.assignment?.id === t.assignment_id)).toBe(true);
        });
      }
      return out;
    };
    const [small, large] = [await seed(2), await seed(8)];
    expect(await measure(large, 8)).toEqual(await measure(small, 2));
  });
});
