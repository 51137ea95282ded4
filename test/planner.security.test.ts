/**
 * Issue 10, findings 1 and 2: whose planner a caller may read. Another user's planner needs a real
 * observer link, whatever context codes are sent; an observer link is course-scoped, so it never opens
 * the student's notes without a course; and a teacher cannot give themself an observer link.
 */
import type { Client } from 'graphql-ws';
import { count, contentRoom, ContentRoom, FORBIDDEN } from './support/content';
import { startTestServer, TestServer } from './support/server';
import { World, WorldUser } from './support/world';
import { wsClient } from './support/ws';
import { at, keyOf } from './planner.support';

let server: TestServer;
let world: World;
let room: ContentRoom;
/** A course of the student that the observer does not observe. */
let other: { id: number };
const ids: Record<string, number> = {};
const PRIVATE_TITLE = 'Private diary entry';

const items = (api: WorldUser['api'], query: string) => api.get(`/api/v1/planner/items${query}`);
const keys = (body: any[]) => body.map(keyOf);

const ITEMS = `query($codes: [String!], $userId: ID, $observed: ID) {
  plannerItems(contextCodes: $codes, userId: $userId, observedUserId: $observed) { nodes { plannableType plannableId plannable { title } } }
}`;
const gqlKeys = (nodes: any[]) => nodes.map((n) => `${n.plannableType}:${n.plannableId}`);

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
  room = await contentRoom(world);
  other = await world.course({ name: 'Chemistry' });
  await world.enroll(other.id, room.student.id, 'StudentEnrollment');
  const post = async (body: Record<string, unknown>) => {
    const res = await room.student.api.post('/api/v1/planner_notes', body);
    if (res.status >= 300) throw new Error(`note: ${res.status} ${res.text}`);
    return res.body.id as number;
  };
  ids.private = await post({ title: PRIVATE_TITLE, details: 'nobody else reads this', todo_date: at(1, 15) });
  ids.courseNote = await post({ title: 'Ask about essay', todo_date: at(2, 10), course_id: room.course.id });
  ids.otherNote = await post({ title: 'Lab goggles', todo_date: at(2, 11), course_id: other.id });
});
afterAll(() => server.close());

describe('finding 1: observed_user_id needs a real observer link, whatever codes are sent', () => {
  const hostile = () => [
    `?observed_user_id=${room.student.id}&context_codes[]=user_${room.student.id}`,
    `?observed_user_id=${room.student.id}&context_codes[]=group_987654`,
    `?observed_user_id=${room.student.id}&context_codes[]=account_1`,
    `?observed_user_id=${room.student.id}&context_codes[]=not_a_code`,
    `?observed_user_id=sis_login_id:${encodeURIComponent(room.student.login)}&context_codes[]=user_${room.student.id}`,
  ];

  it('refuses (403) an outsider, another student and a teacher over REST, and shows nothing of the notes', async () => {
    for (const who of [room.outsider, room.student2, room.teacher]) {
      for (const q of hostile()) {
        const res = await items(who.api, q);
        // A SIS id of someone the caller may not see answers as a missing login does (issue 19 item 9).
        const unseen = who === room.outsider && q.includes('sis_login_id:');
        expect({ who: who.name, q, status: res.status }).toEqual({ who: who.name, q, status: unseen ? 404 : 403 });
        if (!unseen) expect(res.body).toEqual(FORBIDDEN);
        expect(res.text).not.toContain(PRIVATE_TITLE);
      }
    }
  });

  it('refuses the same through GraphQL plannerItems(observedUserId:, contextCodes:)', async () => {
    for (const who of [room.outsider, room.student2, room.teacher]) {
      for (const observed of [String(room.student.id), `sis_login_id:${room.student.login}`]) {
        for (const codes of [[`user_${room.student.id}`], ['group_987654'], ['account_1'], ['junk']]) {
          const res = await who.api.graphql(ITEMS, { observed, codes });
          const unseen = who === room.outsider && observed.startsWith('sis_login_id:');
          expect(res.errors?.[0].extensions.code).toBe(unseen ? 'NOT_FOUND' : 'FORBIDDEN');
          expect(res.data?.plannerItems ?? null).toBeNull();
          expect(JSON.stringify(res)).not.toContain(PRIVATE_TITLE);
        }
      }
    }
  });

  it('refuses a real observer whose codes name no observed course (nothing to scope the link to)', async () => {
    for (const codes of [`context_codes[]=user_${room.student.id}`, 'context_codes[]=account_1', 'context_codes[]=junk']) {
      const res = await items(room.observer.api, `?observed_user_id=${room.student.id}&${codes}`);
      expect(res.status).toBe(403);
      expect(res.text).not.toContain(PRIVATE_TITLE);
    }
    const gql = await room.observer.api.graphql(ITEMS, { observed: String(room.student.id), codes: [`user_${room.student.id}`] });
    expect(gql.errors?.[0].extensions.code).toBe('FORBIDDEN');
  });

  it('still lets a user name themself, with their own notes', async () => {
    const res = await items(room.student.api, `?observed_user_id=${room.student.id}&context_codes[]=user_${room.student.id}`);
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual([`planner_note:${ids.private}`]);
  });
});

describe('finding 2: an observer sees the student’s course items only', () => {
  it('leaves out the student’s notes without a course on the user_id path (REST and GraphQL)', async () => {
    for (const q of ['', `?context_codes[]=user_${room.student.id}`, `?context_codes[]=user_${room.student.id}&context_codes[]=course_${room.course.id}`]) {
      const res = await room.observer.api.get(`/api/v1/users/${room.student.id}/planner/items${q}`);
      expect(res.status).toBe(200);
      const k = keys(res.body);
      expect(k).not.toContain(`planner_note:${ids.private}`);
      expect(k).not.toContain(`planner_note:${ids.otherNote}`);
      expect(res.text).not.toContain(PRIVATE_TITLE);
    }
    const full = keys((await room.observer.api.get(`/api/v1/users/${room.student.id}/planner/items`)).body);
    expect(full).toEqual([`planner_note:${ids.courseNote}`]);
    const gql = await room.observer.api.graphql(ITEMS, { userId: String(room.student.id) });
    expect(gql.errors).toBeUndefined();
    expect(gqlKeys(gql.data.plannerItems.nodes)).toEqual([`planner_note:${ids.courseNote}`]);
    const withUserCode = await room.observer.api.graphql(ITEMS, { userId: String(room.student.id), codes: [`user_${room.student.id}`] });
    expect(withUserCode.data.plannerItems.nodes).toEqual([]);
  });

  it('leaves them out with observed_user_id too, even when user_<student> is listed next to an observed course', async () => {
    const res = await items(room.observer.api, `?observed_user_id=${room.student.id}&context_codes[]=course_${room.course.id}&context_codes[]=user_${room.student.id}`);
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual([`planner_note:${ids.courseNote}`]);
    const gql = await room.observer.api.graphql(ITEMS, { observed: String(room.student.id), codes: [`course_${room.course.id}`, `user_${room.student.id}`] });
    expect(gql.errors).toBeUndefined();
    expect(gqlKeys(gql.data.plannerItems.nodes)).toEqual([`planner_note:${ids.courseNote}`]);
  });

  it('gives an observer nothing of the student through the notes and overrides lists, lookups or subscriptions', async () => {
    for (const q of [`?user_id=${room.student.id}`, `?observed_user_id=${room.student.id}&context_codes[]=user_${room.student.id}`, `?student_id=${room.student.id}`]) {
      const notes = await room.observer.api.get(`/api/v1/planner_notes${q}`);
      expect(notes.status).toBe(200);
      expect(notes.body).toEqual([]);
      const overrides = await room.observer.api.get(`/api/v1/planner/overrides${q}`);
      expect(overrides.status).toBe(200);
      expect(overrides.body).toEqual([]);
    }
    expect((await room.observer.api.get(`/api/v1/planner_notes/${ids.private}`)).status).toBe(404);
    const one = await room.observer.api.graphql('query($id: ID!) { plannerNote(id: $id) { title } }', { id: String(ids.private) });
    expect(one.errors?.[0].extensions.code).toBe('NOT_FOUND');

    const { client } = wsClient(server.url, room.observer.token);
    try {
      const outcome = await new Promise<unknown[]>((resolve) => {
        (client as Client).subscribe(
          { query: 'subscription($id: ID!) { plannerNoteChanged(id: $id) { plannerNote { title } } }', variables: { id: String(ids.private) } },
          { next: (r) => resolve((r.errors as unknown[]) ?? [r.data]), error: (e) => resolve(Array.isArray(e) ? e : [e]), complete: () => resolve([]) },
        );
      });
      expect(JSON.stringify(outcome)).toContain('NOT_FOUND');
      expect(JSON.stringify(outcome)).not.toContain(PRIVATE_TITLE);
    } finally {
      await client.dispose();
    }
  });
});

describe('finding 2: staff cannot give themselves an observer link', () => {
  let course: { id: number };
  let teacher: WorldUser;
  let student: WorldUser;
  let helper: WorldUser;
  const observerRows = (userId: number) => count(server, 'enrollments', "user_id = ? AND type = 'ObserverEnrollment'", [userId]);

  beforeAll(async () => {
    course = await world.course({ name: 'Physics' });
    [teacher, student, helper] = await Promise.all([world.user('Theo Teacher'), world.user('Stu Student'), world.user('Hal Helper')]);
    await world.enroll(course.id, teacher.id, 'TeacherEnrollment');
    await world.enroll(course.id, student.id, 'StudentEnrollment');
    const note = await student.api.post('/api/v1/planner_notes', { title: PRIVATE_TITLE, todo_date: at(1, 9) });
    expect(note.status).toBeLessThan(300);
  });

  it('refuses a teacher enrolling themself as an observer over REST (by id and as self), storing nothing', async () => {
    for (const userId of [teacher.id, 'self']) {
      const res = await teacher.api.post(`/api/v1/courses/${course.id}/enrollments`, {
        enrollment: { user_id: userId, type: 'ObserverEnrollment', associated_user_id: student.id, enrollment_state: 'active' },
      });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    }
    expect(await observerRows(teacher.id)).toBe(0);
    const read = await teacher.api.get(`/api/v1/users/${student.id}/planner/items`);
    expect(read.status).toBe(403);
    expect(read.text).not.toContain(PRIVATE_TITLE);
  });

  it('refuses the same through GraphQL createEnrollment', async () => {
    const res = await teacher.api.graphql(
      'mutation($input: CreateEnrollmentInput!) { createEnrollment(input: $input) { enrollment { _id } errors { message } } }',
      { input: { courseId: String(course.id), userId: 'self', type: 'ObserverEnrollment', associatedUserId: String(student.id), enrollmentState: 'active' } },
    );
    expect(res.errors?.[0].extensions.code).toBe('FORBIDDEN');
    expect(await observerRows(teacher.id)).toBe(0);
  });

  it('still lets a teacher add an observer for someone else, and an account admin link themself', async () => {
    const forOther = await teacher.api.post(`/api/v1/courses/${course.id}/enrollments`, {
      enrollment: { user_id: helper.id, type: 'ObserverEnrollment', associated_user_id: student.id, enrollment_state: 'active' },
    });
    expect(forOther.status).toBe(200);
    expect(forOther.body).toMatchObject({ user_id: helper.id, associated_user_id: student.id, type: 'ObserverEnrollment' });
    const admin = await server.admin.post(`/api/v1/courses/${course.id}/enrollments`, {
      enrollment: { user_id: 'self', type: 'ObserverEnrollment', associated_user_id: student.id, enrollment_state: 'active' },
    });
    expect(admin.status).toBe(200);
    // Even a legitimate observer link stops at the course: no private note.
    const seen = await helper.api.get(`/api/v1/users/${student.id}/planner/items`);
    expect(seen.status).toBe(200);
    expect(seen.text).not.toContain(PRIVATE_TITLE);
  });
});
