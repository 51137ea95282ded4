import { parseLinks } from './support/api';
import { captureEvents, count, FORBIDDEN, ISO, NOT_FOUND, UNAUTHENTICATED, useContentRoom } from './support/content';

const env = useContentRoom();
const { sink } = env;

const base = () => `/api/v1/courses/${env.room.course.id}/assignments`;

async function create(fields: Record<string, unknown>) {
  const res = await env.room.teacher.api.post(base(), { assignment: fields });
  expect(res.status).toBe(201);
  return res.body;
}

describe('POST /api/v1/courses/:course_id/assignments', () => {
  it('creates an assignment with Canvas Assignment JSON (201), unpublished by default', async () => {
    const { result: res, events } = await captureEvents(sink, () =>
      env.room.teacher.api.post(base(), {
        assignment: {
          name: 'Essay 1',
          description: '<p>Write <b>well</b></p><script>alert(1)</script>',
          points_possible: '12.5',
          due_at: '2031-03-01T17:00:00Z',
          unlock_at: '2031-02-01T00:00:00Z',
          lock_at: '2031-03-02T00:00:00Z',
          submission_types: ['online_text_entry', 'online_url'],
          grading_type: 'points',
        },
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.any(Number),
      name: 'Essay 1',
      description: '<p>Write <b>well</b></p>',
      course_id: env.room.course.id,
      points_possible: 12.5,
      due_at: '2031-03-01T17:00:00Z',
      unlock_at: '2031-02-01T00:00:00Z',
      lock_at: '2031-03-02T00:00:00Z',
      submission_types: ['online_text_entry', 'online_url'],
      grading_type: 'points',
      published: false,
      workflow_state: 'unpublished',
      unpublishable: true,
      has_submitted_submissions: false,
      is_quiz_assignment: false,
      locked_for_user: false,
      position: expect.any(Number),
      created_at: expect.stringMatching(ISO),
      html_url: `${env.server.url}/courses/${env.room.course.id}/assignments/${res.body.id}`,
    });
    expect(res.body).not.toHaveProperty('quiz_id');
    expect(res.body).not.toHaveProperty('lock_info');
    expect(events).toEqual([{ type: 'content.changed', courseId: env.room.course.id, contentType: 'Assignment', contentId: res.body.id, change: 'created' }]);
  });

  it('accepts JSON bodies and published=true; TAs and designers may create too', async () => {
    const ta = await env.room.ta.api.post(base(), { assignment: { name: 'By TA', published: true, points_possible: 10 } }, { json: true });
    expect(ta.status).toBe(201);
    expect(ta.body).toMatchObject({ name: 'By TA', published: true, workflow_state: 'published', points_possible: 10, submission_types: ['none'] });
    const designer = await env.room.designer.api.post(base(), { assignment: { name: 'By Designer' } });
    expect(designer.status).toBe(201);
  });

  it.each([
    ['a student', () => env.room.student],
    ['an observer', () => env.room.observer],
    ['an outsider', () => env.room.outsider],
  ])('refuses %s with 403 and stores nothing', async (_label, who) => {
    const before = await count(env.server, 'assignments');
    const res = await who().api.post(base(), { assignment: { name: 'Nope' } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    expect(await count(env.server, 'assignments')).toBe(before);
  });

  it('refuses an anonymous caller with 401', async () => {
    const res = await env.server.as(null).post(base(), { assignment: { name: 'Nope' } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHENTICATED);
  });

  it.each([
    ['a missing name', {}, 'name'],
    ['a blank name', { name: '  ' }, 'name'],
    ['negative points', { name: 'X', points_possible: '-1' }, 'points_possible'],
    ['non-numeric points', { name: 'X', points_possible: 'lots' }, 'points_possible'],
    ['an unknown grading type', { name: 'X', grading_type: 'vibes' }, 'grading_type'],
    ['an unknown submission type', { name: 'X', submission_types: ['carrier_pigeon'] }, 'submission_types'],
    ['a malformed date', { name: 'X', due_at: 'next tuesday' }, 'due_at'],
    ['a due date after the lock date', { name: 'X', due_at: '2031-05-01T00:00:00Z', lock_at: '2031-04-01T00:00:00Z' }, 'due_at'],
  ])('answers 400 for %s and stores nothing', async (_label, fields, attr) => {
    const before = await count(env.server, 'assignments');
    const res = await env.room.teacher.api.post(base(), { assignment: fields });
    expect(res.status).toBe(400);
    expect(res.body.errors[attr][0]).toMatchObject({ attribute: attr, type: expect.any(String), message: expect.any(String) });
    expect(await count(env.server, 'assignments')).toBe(before);
  });

  it('answers 404 for an unknown course', async () => {
    expect((await env.room.teacher.api.post('/api/v1/courses/99999999/assignments', { assignment: { name: 'X' } })).status).toBe(404);
  });
});

describe('GET /api/v1/courses/:course_id/assignments[/:id]', () => {
  let published: any;
  let draft: any;
  beforeAll(async () => {
    published = await create({ name: 'Visible', published: true, points_possible: 5 });
    draft = await create({ name: 'Draft' });
  });

  it('shows everything to staff, only published assignments to students and observers', async () => {
    const all = await env.room.teacher.api.get(`${base()}?per_page=100`);
    expect(all.status).toBe(200);
    const ids = all.body.map((a: any) => a.id);
    expect(ids).toEqual(expect.arrayContaining([published.id, draft.id]));
    for (const who of [env.room.student, env.room.observer]) {
      const res = await who.api.get(`${base()}?per_page=100`);
      expect(res.status).toBe(200);
      expect(res.body.every((a: any) => a.published)).toBe(true);
      expect(res.body.map((a: any) => a.id)).toContain(published.id);
      expect(res.body.map((a: any) => a.id)).not.toContain(draft.id);
    }
    const designer = await env.room.designer.api.get(`${base()}?per_page=100`);
    expect(designer.body.map((a: any) => a.id)).toContain(draft.id);
  });

  it('paginates with a Link header, by position', async () => {
    const res = await env.room.teacher.api.get(`${base()}?per_page=2`);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    const links = parseLinks(res.headers.get('link'));
    expect(links.next).toContain('page=2&per_page=2');
    const positions = (await env.room.teacher.api.get(`${base()}?per_page=100`)).body.map((a: any) => a.position);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('answers 404 to a student for an unpublished assignment, which the teacher sees', async () => {
    const s = await env.room.student.api.get(`${base()}/${draft.id}`);
    expect(s.status).toBe(404);
    expect(s.body).toEqual(NOT_FOUND);
    const t = await env.room.teacher.api.get(`${base()}/${draft.id}`);
    expect(t.status).toBe(200);
    expect(t.body).toMatchObject({ id: draft.id, published: false });
  });

  it("records a student's view as content.viewed; teachers' views raise nothing", async () => {
    const { result: s, events } = await captureEvents(sink, () => env.room.student.api.get(`${base()}/${published.id}`));
    expect(s.status).toBe(200);
    expect(events).toEqual([{ type: 'content.viewed', courseId: env.room.course.id, userId: env.room.student.id, contentType: 'Assignment', contentId: published.id }]);
    const { events: none } = await captureEvents(sink, () => env.room.teacher.api.get(`${base()}/${published.id}`));
    expect(none).toEqual([]);
    const { events: observed } = await captureEvents(sink, () => env.room.observer.api.get(`${base()}/${published.id}`));
    expect(observed).toEqual([]);
  });

  it('refuses an outsider with 403 and an anonymous caller with 401', async () => {
    expect((await env.room.outsider.api.get(`${base()}/${published.id}`)).status).toBe(403);
    expect((await env.room.outsider.api.get(base())).status).toBe(403);
    expect((await env.server.as(null).get(base())).status).toBe(401);
  });

  it('answers 404 for an assignment of another course, and for malformed ids', async () => {
    const other = await env.world.course({ name: 'Other' });
    await env.world.enroll(other.id, env.room.teacher.id, 'TeacherEnrollment');
    expect((await env.room.teacher.api.get(`/api/v1/courses/${other.id}/assignments/${published.id}`)).status).toBe(404);
    expect((await env.room.teacher.api.get(`${base()}/abc`)).status).toBe(404);
  });

  it('shows lock info to a student before the unlock date', async () => {
    const later = await create({ name: 'Later', published: true, unlock_at: '2040-01-01T00:00:00Z' });
    const s = await env.room.student.api.get(`${base()}/${later.id}`);
    expect(s.body).toMatchObject({
      locked_for_user: true,
      lock_info: { asset_string: `assignment_${later.id}`, unlock_at: '2040-01-01T00:00:00Z' },
      lock_explanation: expect.stringContaining('locked until'),
    });
    expect((await env.room.teacher.api.get(`${base()}/${later.id}`)).body.locked_for_user).toBe(false);
  });
});

describe('PUT and DELETE /api/v1/courses/:course_id/assignments/:id', () => {
  it('updates the given fields only and raises content.changed', async () => {
    const a = await create({ name: 'Before', points_possible: 3, due_at: '2031-01-01T00:00:00Z' });
    const { result: res, events } = await captureEvents(sink, () => env.room.teacher.api.put(`${base()}/${a.id}`, { assignment: { name: 'After', published: 'true' } }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: a.id, name: 'After', points_possible: 3, due_at: '2031-01-01T00:00:00Z', published: true });
    expect(events).toEqual([{ type: 'content.changed', courseId: env.room.course.id, contentType: 'Assignment', contentId: a.id, change: 'updated' }]);
    // An empty date clears it.
    const cleared = await env.room.teacher.api.put(`${base()}/${a.id}`, { assignment: { due_at: '' } });
    expect(cleared.body.due_at).toBeNull();
  });

  it('refuses students (403) and bad input (400) without changing anything', async () => {
    const a = await create({ name: 'Stable', published: true });
    const s = await env.room.student.api.put(`${base()}/${a.id}`, { assignment: { name: 'Hacked' } });
    expect(s.status).toBe(403);
    const bad = await env.room.teacher.api.put(`${base()}/${a.id}`, { assignment: { name: '' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.name[0].type).toBe('blank');
    expect((await env.room.teacher.api.get(`${base()}/${a.id}`)).body.name).toBe('Stable');
  });

  it('cannot unpublish once a student has submitted', async () => {
    const a = await create({ name: 'Taken', published: true, submission_types: ['online_text_entry'] });
    expect((await env.room.student.api.post(`${base()}/${a.id}/submissions`, { submission: { submission_type: 'online_text_entry', body: 'hi' } })).status).toBe(201);
    const res = await env.room.teacher.api.put(`${base()}/${a.id}`, { assignment: { published: false } });
    expect(res.status).toBe(400);
    expect(res.body.errors.published[0].message).toMatch(/unpublish/);
    const shown = await env.room.teacher.api.get(`${base()}/${a.id}`);
    expect(shown.body).toMatchObject({ published: true, unpublishable: false, has_submitted_submissions: true });
  });

  it('deletes (soft) and then answers 404; students may not delete', async () => {
    const a = await create({ name: 'Doomed', published: true });
    expect((await env.room.student.api.delete(`${base()}/${a.id}`)).status).toBe(403);
    const { result: res, events } = await captureEvents(sink, () => env.room.teacher.api.delete(`${base()}/${a.id}`));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: a.id, workflow_state: 'deleted' });
    expect(events).toEqual([{ type: 'content.changed', courseId: env.room.course.id, contentType: 'Assignment', contentId: a.id, change: 'deleted' }]);
    expect((await env.room.teacher.api.get(`${base()}/${a.id}`)).status).toBe(404);
    expect((await env.room.teacher.api.delete(`${base()}/${a.id}`)).status).toBe(404);
  });
});

describe('GraphQL', () => {
  it('creates, reads through the course connection and node, and reports validation errors in the payload', async () => {
    const created = await env.room.teacher.api.graphql(
      `mutation($input: CreateAssignmentInput!) { createAssignment(input: $input) { assignment { _id id name pointsPossible published } errors { attribute type } } }`,
      { input: { courseId: String(env.room.course.id), name: 'GQL', pointsPossible: 7.5, published: true } },
    );
    expect(created.errors).toBeUndefined();
    const a = created.data.createAssignment.assignment;
    expect(a).toMatchObject({ name: 'GQL', pointsPossible: 7.5, published: true });
    const node = await env.room.student.api.graphql(`query($id: ID!) { node(id: $id) { ... on Assignment { _id name } } }`, { id: a.id });
    expect(node.data.node).toEqual({ _id: a._id, name: 'GQL' });
    const legacy = await env.room.student.api.graphql(`query($id: ID!) { legacyNode(type: Assignment, _id: $id) { ... on Assignment { name } } }`, { id: a._id });
    expect(legacy.data.legacyNode).toEqual({ name: 'GQL' });
    const list = await env.room.student.api.graphql(`query($id: ID!) { course(id: $id) { assignmentsConnection(first: 100) { nodes { _id published } } } }`, { id: String(env.room.course.id) });
    expect(list.data.course.assignmentsConnection.nodes.every((n: any) => n.published)).toBe(true);
    const bad = await env.room.teacher.api.graphql(
      `mutation($input: CreateAssignmentInput!) { createAssignment(input: $input) { assignment { _id } errors { attribute type } } }`,
      { input: { courseId: String(env.room.course.id), name: '' } },
    );
    expect(bad.data.createAssignment).toEqual({ assignment: null, errors: [{ attribute: 'name', type: 'blank' }] });
    const refused = await env.room.student.api.graphql(
      `mutation($input: UpdateAssignmentInput!) { updateAssignment(input: $input) { assignment { _id } } }`,
      { input: { id: a._id, name: 'x' } },
    );
    expect(refused.errors?.[0].extensions.code).toBe('FORBIDDEN');
  });

  it('lists assignments with their submissions in a fixed number of statements (3 vs 12)', async () => {
    async function measure(n: number): Promise<number> {
      const course = await env.world.course({ name: `Batch ${n}` });
      await env.world.enroll(course.id, env.room.teacher.id, 'TeacherEnrollment');
      await env.world.enroll(course.id, env.room.student.id, 'StudentEnrollment');
      await env.world.enroll(course.id, env.room.student2.id, 'StudentEnrollment');
      for (let i = 0; i < n; i++) {
        const res = await env.room.teacher.api.post(`/api/v1/courses/${course.id}/assignments`, { assignment: { name: `A${i}`, published: true, submission_types: ['online_text_entry'] } });
        await env.room.student.api.post(`/api/v1/courses/${course.id}/assignments/${res.body.id}/submissions`, { submission: { submission_type: 'online_text_entry', body: 'x' } });
      }
      const query = `query($id: ID!) { course(id: $id) { assignmentsConnection(first: 50) { nodes {
        _id name hasSubmittedSubmissions unpublishable quizId isQuizAssignment lockedForUser
        submissionsConnection(first: 50) { nodes { _id workflowState score late missing user { name } assignment { name } } } } } } }`;
      // The first read creates the placeholder submissions of students who have none; measure the second.
      const warm = await env.room.teacher.api.graphql(query, { id: String(course.id) });
      expect(warm.errors).toBeUndefined();
      const before = env.server.queryCount();
      const res = await env.room.teacher.api.graphql(query, { id: String(course.id) });
      const used = env.server.queryCount() - before;
      expect(res.errors).toBeUndefined();
      const nodes = res.data.course.assignmentsConnection.nodes;
      expect(nodes).toHaveLength(n);
      for (const node of nodes) expect(node.submissionsConnection.nodes).toHaveLength(2);
      return used;
    }
    const three = await measure(3);
    const twelve = await measure(12);
    expect(twelve).toBe(three);
  });
});
