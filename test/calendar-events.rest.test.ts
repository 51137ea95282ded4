import fs from 'node:fs';
import { parseLinks } from './support/api';
import { contentRoom, ContentRoom, count, FORBIDDEN, ISO, NOT_FOUND } from './support/content';
import { startTestServer, TestServer } from './support/server';
import { fastDeliveryEnv, HttpsReceiver, subscription, testCertificate, toolProxy, waitFor } from './support/webhooks';
import { World, WorldUser } from './support/world';
import { at, day } from './planner.support';

let server: TestServer;
let world: World;
let room: ContentRoom;
let receiver: HttpsReceiver;
let caFile: string;

beforeAll(async () => {
  const tls = await testCertificate();
  caFile = tls.caFile;
  receiver = await new HttpsReceiver(tls).up();
  server = await startTestServer(fastDeliveryEnv(caFile));
  world = new World(server);
  room = await contentRoom(world);
});
afterAll(async () => {
  await server.close();
  await receiver.down();
  fs.rmSync(caFile, { force: true });
});

const EVENTS = '/api/v1/calendar_events';
const course = () => `course_${room.course.id}`;

async function create(who: WorldUser, fields: Record<string, unknown>) {
  return who.api.post(EVENTS, { calendar_event: fields });
}

describe('POST /api/v1/calendar_events', () => {
  it("creates a course event (201) in Canvas's JSON, with its description sanitised", async () => {
    const res = await create(room.teacher, {
      context_code: course(),
      title: 'Lecture',
      description: '<p onclick="x()">Read <script>alert(1)</script>chapter 2</p>',
      start_at: at(1, 10),
      end_at: at(1, 11),
      location_name: 'Hall 1',
      location_address: '1 Main St',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.any(Number),
      title: 'Lecture',
      start_at: at(1, 10),
      end_at: at(1, 11),
      location_name: 'Hall 1',
      location_address: '1 Main St',
      context_code: course(),
      effective_context_code: course(),
      context_name: room.course.name,
      all_context_codes: course(),
      workflow_state: 'active',
      hidden: false,
      parent_event_id: null,
      child_events_count: 0,
      child_events: [],
      all_day: false,
      all_day_date: null,
      type: 'event',
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    expect(res.body.all_context_codes).toBe(course());
    expect(res.body.url).toMatch(new RegExp(`/api/v1/calendar_events/${res.body.id}$`));
    expect(res.body.html_url).toMatch(new RegExp(`/calendar\\?event_id=${res.body.id}&include_contexts=${course()}$`));
    expect(res.body.description).toContain('chapter 2');
    expect(res.body.description).not.toMatch(/script|onclick/);
  });

  it('makes a zero-length event at midnight, or one with all_day, an all-day event', async () => {
    const res = await create(room.teacher, { context_code: course(), title: 'Holiday', start_at: `${day(3)}T15:00:00Z`, all_day: true });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ all_day: true, all_day_date: day(3), start_at: `${day(3)}T00:00:00Z`, end_at: `${day(3)}T00:00:00Z` });
  });

  it('refuses students (401, nothing stored), outsiders, and bad input (400)', async () => {
    const before = await count(server, 'calendar_events');
    const student = await create(room.student, { context_code: course(), title: 'Party', start_at: at(1) });
    expect(student.status).toBe(401);
    expect(student.body).toEqual(FORBIDDEN);
    expect((await create(room.outsider, { context_code: course(), title: 'x', start_at: at(1) })).status).toBe(401);
    for (const bad of [{ title: 'no context' }, { context_code: 'classroom_1', title: 'x' }, { context_code: course(), start_at: 'next tuesday' }, { context_code: course(), title: 'x'.repeat(300) }]) {
      const res = await create(room.teacher, bad);
      expect(res.status).toBe(400);
      expect(res.body.errors).toBeDefined();
    }
    expect((await create(room.teacher, { context_code: 'course_987654321', title: 'x' })).status).toBe(404);
    expect(await count(server, 'calendar_events')).toBe(before);
  });

  it("lets a user keep their own calendar, and nobody else's", async () => {
    const own = await create(room.student, { context_code: `user_${room.student.id}`, title: 'Dentist', start_at: at(2, 9) });
    expect(own.status).toBe(201);
    expect(own.body).toMatchObject({ context_code: `user_${room.student.id}`, context_name: room.student.name });
    expect((await create(room.student, { context_code: `user_${room.student2.id}`, title: 'x' })).status).toBe(401);
    expect((await room.student2.api.get(`${EVENTS}/${own.body.id}`)).status).toBe(401);
    expect((await room.student.api.get(`${EVENTS}/${own.body.id}`)).body.title).toBe('Dentist');
  });

  it('lets group members create and see group events; others are refused', async () => {
    const group = await room.student.api.post('/api/v1/groups', { name: `Study ${Date.now()}`, join_level: 'invitation_only' });
    expect(group.status).toBeLessThan(300);
    const made = await create(room.student, { context_code: `group_${group.body.id}`, title: 'Group study', start_at: at(1, 15) });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ context_code: `group_${group.body.id}`, effective_context_code: `group_${group.body.id}` });
    expect((await create(room.student2, { context_code: `group_${group.body.id}`, title: 'x' })).status).toBe(401);
    expect((await room.student2.api.get(`${EVENTS}/${made.body.id}`)).status).toBe(401);
  });
});

describe('GET /api/v1/calendar_events', () => {
  let inWindow: number;
  let later: number;
  let undated: number;
  beforeAll(async () => {
    inWindow = (await create(room.teacher, { context_code: course(), title: 'Window A', start_at: at(20, 10), end_at: at(20, 11) })).body.id;
    later = (await create(room.teacher, { context_code: course(), title: 'Window B', start_at: at(25, 10) })).body.id;
    undated = (await create(room.teacher, { context_code: course(), title: 'Someday' })).body.id;
  });

  const ids = (body: any[]) => body.map((e) => e.id);

  it("defaults to the caller's own calendar only, today", async () => {
    const res = await room.teacher.api.get(EVENTS);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('filters by context_codes and the date window (a date-only end_date runs to the end of that day)', async () => {
    const one = await room.student.api.get(`${EVENTS}?context_codes[]=${course()}&start_date=${day(20)}&end_date=${day(20)}`);
    expect(one.status).toBe(200);
    expect(ids(one.body)).toEqual([inWindow]);
    const both = await room.student.api.get(`${EVENTS}?context_codes[]=${course()}&start_date=${day(19)}&end_date=${day(26)}`);
    expect(ids(both.body)).toEqual([inWindow, later]);
    const mine = await room.student.api.get(`${EVENTS}?context_codes[]=user_${room.student.id}&start_date=${day(19)}&end_date=${day(26)}`);
    expect(mine.body).toEqual([]);
  });

  it('undated, all_events and excludes[]', async () => {
    const u = await room.student.api.get(`${EVENTS}?context_codes[]=${course()}&undated=1`);
    expect(ids(u.body)).toEqual([undated]);
    const all = await room.student.api.get(`${EVENTS}?context_codes[]=${course()}&all_events=true&per_page=100`);
    expect(ids(all.body)).toEqual(expect.arrayContaining([inWindow, later, undated]));
    const ex = await room.student.api.get(`${EVENTS}?context_codes[]=${course()}&undated=1&excludes[]=description&excludes[]=child_events`);
    expect(ex.body[0]).not.toHaveProperty('description');
    expect(ex.body[0]).not.toHaveProperty('child_events');
  });

  it("pages with Canvas's Link header", async () => {
    const first = await room.student.api.get(`${EVENTS}?context_codes[]=${course()}&all_events=1&per_page=2`);
    expect(first.body).toHaveLength(2);
    const links = parseLinks(first.headers.get('link'));
    // Canvas pages a user's events by bookmark (start_at, id), with no rel="last".
    expect(links.next).toMatch(/page=bookmark(:|%3A)/i);
    expect(links.last).toBeUndefined();
    const second = await room.student.api.get(links.next!.replace(/^https?:\/\/[^/]+/, ''));
    expect(second.status).toBe(200);
    expect(ids(second.body).some((id: number) => ids(first.body).includes(id))).toBe(false);
  });

  it("drops codes the caller cannot read (an outsider sees nothing of the course)", async () => {
    const outsider = await room.outsider.api.get(`${EVENTS}?context_codes[]=${course()}&all_events=1`);
    expect(outsider.status).toBe(200);
    expect(outsider.body).toEqual([]);
    expect((await room.outsider.api.get(`${EVENTS}/${inWindow}`)).status).toBe(401);
    expect((await room.student.api.get(`${EVENTS}?type=meeting`)).status).toBe(400);
    expect((await room.student.api.get(`${EVENTS}?start_date=yesterday`)).status).toBe(400);
  });
});

describe('GET /api/v1/calendar_events?type=assignment', () => {
  const A = () => `/api/v1/courses/${room.course.id}/assignments`;
  let due: number;
  let dueAllDay: number;
  let undatedA: number;
  let draft: number;
  beforeAll(async () => {
    const make = async (assignment: Record<string, unknown>) => {
      const res = await room.teacher.api.post(A(), { assignment });
      expect(res.status).toBe(201);
      return res.body.id as number;
    };
    due = await make({ name: 'Essay on the calendar', due_at: at(30, 15), published: true, submission_types: ['online_text_entry', 'online_upload'] });
    dueAllDay = await make({ name: 'Due all day', due_at: at(31, 23, 59), published: true, description: '<p>Read <b>this</b></p>' });
    undatedA = await make({ name: 'No due date', published: true });
    draft = await make({ name: 'Draft on the calendar', due_at: at(30, 16), published: false });
  });
  const ids = (body: any[]) => body.map((e) => e.id);

  it("lists the course's assignments due in the window as Canvas's assignment events", async () => {
    const res = await room.student.api.get(`${EVENTS}?type=assignment&context_codes[]=${course()}&start_date=${day(29)}&end_date=${day(31)}`);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([`assignment_${due}`, `assignment_${dueAllDay}`]);
    expect(res.body[0]).toMatchObject({
      id: `assignment_${due}`, type: 'assignment', title: 'Essay on the calendar', start_at: at(30, 15), end_at: at(30, 15), all_day: false,
      all_day_date: null, workflow_state: 'published', submission_types: 'online_text_entry,online_upload', context_code: course(),
      context_name: room.course.name, important_dates: false,
    });
    expect(res.body[0].url).toMatch(new RegExp(`/api/v1/calendar_events/assignment_${due}$`));
    expect(res.body[0].html_url).toMatch(new RegExp(`/courses/${room.course.id}/assignments/${due}$`));
    expect(res.body[0].assignment).toMatchObject({ id: due, name: 'Essay on the calendar', course_id: room.course.id, due_at: at(30, 15) });
    expect(res.body[1]).toMatchObject({ all_day: true, all_day_date: day(31), description: '<p>Read <b>this</b></p>' });
    // excludes[] drops the description and the nested assignment, as Canvas does.
    const lean = await room.student.api.get(`${EVENTS}?type=assignment&context_codes[]=${course()}&all_events=1&excludes[]=assignment&excludes[]=description`);
    expect(lean.body.length).toBeGreaterThan(0);
    for (const e of lean.body) {
      expect(e).not.toHaveProperty('assignment');
      expect(e).not.toHaveProperty('description');
    }
  });

  it('undated, all_events; drafts only for those who see unpublished content; other calendars hold no assignments', async () => {
    const u = await room.student.api.get(`${EVENTS}?type=assignment&context_codes[]=${course()}&undated=1`);
    expect(ids(u.body)).toContain(`assignment_${undatedA}`);
    expect(u.body.every((e: any) => e.start_at === null)).toBe(true);
    const student = await room.student.api.get(`${EVENTS}?type=assignment&context_codes[]=${course()}&all_events=1&per_page=100`);
    expect(ids(student.body)).toEqual(expect.arrayContaining([`assignment_${due}`, `assignment_${dueAllDay}`, `assignment_${undatedA}`]));
    expect(ids(student.body)).not.toContain(`assignment_${draft}`);
    const teacher = await room.teacher.api.get(`${EVENTS}?type=assignment&context_codes[]=${course()}&all_events=1&per_page=100`);
    expect(teacher.body.find((e: any) => e.id === `assignment_${draft}`)).toMatchObject({ workflow_state: 'unpublished' });
    // Default (the caller's own calendar) and user codes: no assignments; an outsider's course code is dropped.
    expect((await room.student.api.get(`${EVENTS}?type=assignment&all_events=1`)).body).toEqual([]);
    expect((await room.student.api.get(`${EVENTS}?type=assignment&context_codes[]=user_${room.student.id}&all_events=1`)).body).toEqual([]);
    expect((await room.outsider.api.get(`${EVENTS}?type=assignment&context_codes[]=${course()}&all_events=1`)).body).toEqual([]);
    expect((await room.student.api.get(`${EVENTS}?type=assignment&context_codes[]=${course()}&start_date=soon`)).status).toBe(400);
  });

  it('pages by due date with a Link header', async () => {
    const first = await room.student.api.get(`${EVENTS}?type=assignment&context_codes[]=${course()}&all_events=1&per_page=1`);
    expect(first.body).toHaveLength(1);
    const next = parseLinks(first.headers.get('link')).next!;
    expect(next).toContain('type=assignment');
    const second = await room.student.api.get(next.replace(/^https?:\/\/[^/]+/, ''));
    expect(second.body).toHaveLength(1);
    expect(second.body[0].id).not.toBe(first.body[0].id);
  });

  it('GET /calendar_events/assignment_<id> shows one; drafts and outsiders are refused', async () => {
    const one = await room.student.api.get(`${EVENTS}/assignment_${due}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: `assignment_${due}`, type: 'assignment', assignment: { id: due } });
    expect((await room.student.api.get(`${EVENTS}/assignment_${draft}`)).status).toBe(404);
    expect((await room.teacher.api.get(`${EVENTS}/assignment_${draft}`)).status).toBe(200);
    expect((await room.outsider.api.get(`${EVENTS}/assignment_${due}`)).status).toBe(401);
    expect((await room.student.api.get(`${EVENTS}/assignment_99999999`)).status).toBe(404);
    expect((await room.student.api.get(`${EVENTS}/assignment_x`)).status).toBe(404);
  });

  it('GraphQL: assignmentEvents and assignmentEvent, with the assignment nested', async () => {
    const q = `query($codes: [String!]) { assignmentEvents(contextCodes: $codes, allEvents: true, first: 50) { totalCount nodes { id title startAt allDay contextCode assignment { _id name published } } } }`;
    const res = await room.student.api.graphql(q, { codes: [course()] });
    expect(res.errors).toBeUndefined();
    const nodes = res.data.assignmentEvents.nodes;
    expect(nodes.map((n: any) => n.id)).toEqual(expect.arrayContaining([`assignment_${due}`]));
    expect(nodes.map((n: any) => n.id)).not.toContain(`assignment_${draft}`);
    expect(nodes.find((n: any) => n.id === `assignment_${due}`)).toMatchObject({ title: 'Essay on the calendar', contextCode: course(), assignment: { _id: String(due), published: true } });
    const one = await room.student.api.graphql(`query($id: ID!) { assignmentEvent(id: $id) { id title } }`, { id: `assignment_${due}` });
    expect(one.data.assignmentEvent).toEqual({ id: `assignment_${due}`, title: 'Essay on the calendar' });
    const hidden = await room.student.api.graphql(`query($id: ID!) { assignmentEvent(id: $id) { id } }`, { id: `assignment_${draft}` });
    expect(hidden.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});

describe('GET/PUT/DELETE /api/v1/calendar_events/:id', () => {
  it('shows, updates and deletes (students may read but not change)', async () => {
    const made = (await create(room.teacher, { context_code: course(), title: 'Quiz review', start_at: at(5, 14), end_at: at(5, 15) })).body;
    const shown = await room.student.api.get(`${EVENTS}/${made.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ id: made.id, title: 'Quiz review' });
    expect((await room.student.api.put(`${EVENTS}/${made.id}`, { calendar_event: { title: 'Mine' } })).status).toBe(401);
    const upd = await room.ta.api.put(`${EVENTS}/${made.id}`, { calendar_event: { title: 'Review session', end_at: at(5, 16), location_name: 'Room 2' } });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ title: 'Review session', start_at: at(5, 14), end_at: at(5, 16), location_name: 'Room 2' });
    expect((await room.teacher.api.put(`${EVENTS}/${made.id}`, { calendar_event: { end_at: 'soon' } })).status).toBe(400);
    expect((await room.student.api.delete(`${EVENTS}/${made.id}`)).status).toBe(401);
    const del = await room.teacher.api.delete(`${EVENTS}/${made.id}`, { cancel_reason: 'moved' });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ id: made.id, workflow_state: 'deleted' });
    expect((await room.student.api.get(`${EVENTS}/${made.id}`)).body).toEqual(NOT_FOUND);
    expect((await room.teacher.api.get(`${EVENTS}/987654321`)).status).toBe(404);
  });

  it('section events: a hidden parent; each student sees their own section\'s child', async () => {
    const s1 = await world.section(room.course.id, 'Lab A');
    const s2 = await world.section(room.course.id, 'Lab B');
    const [a, b] = await Promise.all([world.user('Lab Student A'), world.user('Lab Student B')]);
    await world.enroll(room.course.id, a.id, 'StudentEnrollment', { sectionId: s1.id });
    await world.enroll(room.course.id, b.id, 'StudentEnrollment', { sectionId: s2.id });
    const res = await room.teacher.api.post(EVENTS, {
      calendar_event: {
        context_code: course(),
        title: 'Lab',
        child_event_data: {
          0: { start_at: at(30, 9), end_at: at(30, 11), context_code: `course_section_${s1.id}` },
          1: { start_at: at(31, 9), end_at: at(31, 11), context_code: `course_section_${s2.id}` },
        },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ hidden: true, start_at: at(30, 9), end_at: at(31, 11), child_events_count: 2 });
    expect(res.body.child_events.map((c: any) => c.context_code).sort()).toEqual([`course_section_${s1.id}`, `course_section_${s2.id}`].sort());
    expect(res.body.child_events[0]).toMatchObject({ effective_context_code: course(), parent_event_id: res.body.id, all_context_codes: `${course()},course_section_${res.body.child_events[0].context_code.split('_').pop()}` });
    const listA = await a.api.get(`${EVENTS}?context_codes[]=${course()}&start_date=${day(29)}&end_date=${day(32)}`);
    expect(listA.body.map((e: any) => [e.title, e.context_code])).toEqual([['Lab', `course_section_${s1.id}`]]);
    const teacher = await room.teacher.api.get(`${EVENTS}?context_codes[]=${course()}&start_date=${day(29)}&end_date=${day(32)}`);
    expect(teacher.body.map((e: any) => e.context_code)).toEqual([`course_section_${s1.id}`, `course_section_${s2.id}`]);
    expect((await b.api.get(`${EVENTS}/${res.body.child_events.find((c: any) => c.context_code === `course_section_${s1.id}`).id}`)).status).toBe(401);
    // The children follow their parent's title.
    const renamed = await room.teacher.api.put(`${EVENTS}/${res.body.id}`, { calendar_event: { title: 'Lab (bring goggles)' } });
    expect(renamed.body.child_events.map((c: any) => c.title)).toEqual(['Lab (bring goggles)', 'Lab (bring goggles)']);
    // child_event_data replaces the children: one section left.
    const one = await room.teacher.api.put(`${EVENTS}/${res.body.id}`, { calendar_event: { child_event_data: { 0: { start_at: at(33, 9), end_at: at(33, 10), context_code: `course_section_${s2.id}` } } } });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ child_events_count: 1, start_at: at(33, 9), end_at: at(33, 10) });
    expect((await a.api.get(`${EVENTS}?context_codes[]=${course()}&start_date=${day(29)}&end_date=${day(34)}`)).body).toEqual([]);
    const bad = await room.teacher.api.post(EVENTS, { calendar_event: { context_code: course(), title: 'x', child_event_data: { 0: { start_at: at(1), end_at: at(1), context_code: 'course_section_987654' } } } });
    expect(bad.status).toBe(400);
  });
});

describe('planner and live events', () => {
  it('a course event is a planner item (plannable_type calendar_event) that follows overrides', async () => {
    const made = (await create(room.teacher, { context_code: course(), title: 'Planner event', start_at: at(2, 13), end_at: at(2, 14), location_name: 'Lab' })).body;
    const items = await room.student.api.get(`/api/v1/planner/items?start_date=${day(2)}&end_date=${day(3)}&per_page=100`);
    expect(items.status).toBe(200);
    const item = items.body.find((i: any) => i.plannable_type === 'calendar_event' && i.plannable_id == made.id);
    expect(item).toMatchObject({
      context_type: 'Course',
      course_id: room.course.id,
      plannable_date: at(2, 13),
      planner_override: null,
      submissions: false,
      plannable: { id: made.id, title: 'Planner event', course_id: room.course.id, location_name: 'Lab', start_at: at(2, 13), end_at: at(2, 14), all_day: false },
    });
    expect(item.html_url).toContain(`/calendar?event_id=${made.id}`);
    const o = await room.student.api.post('/api/v1/planner/overrides', { plannable_type: 'calendar_event', plannable_id: made.id, marked_complete: true });
    expect(o.status).toBeLessThan(300);
    const done = await room.student.api.get(`/api/v1/planner/items?start_date=${day(2)}&end_date=${day(3)}&filter=incomplete_items&per_page=100`);
    expect(done.body.some((i: any) => i.plannable_type === 'calendar_event' && i.plannable_id == made.id)).toBe(false);
    const again = await room.student.api.get(`/api/v1/planner/items?start_date=${day(2)}&end_date=${day(3)}&per_page=100`);
    expect(again.body.find((i: any) => i.plannable_id == made.id && i.plannable_type === 'calendar_event').planner_override).toMatchObject({ marked_complete: true, plannable_type: 'calendar_event' });
    // The outsider's planner does not have it.
    const outsider = await room.outsider.api.get(`/api/v1/planner/items?start_date=${day(2)}&end_date=${day(3)}`);
    expect(outsider.body.some((i: any) => i.plannable_type === 'calendar_event')).toBe(false);
  });

  it("is one of the students' upcoming events (type event), not an outsider's", async () => {
    const made = (await create(room.teacher, { context_code: course(), title: 'Upcoming lab', start_at: at(3, 9), end_at: at(3, 10) })).body;
    const mine = (await create(room.student, { context_code: `user_${room.student.id}`, title: 'My own reminder', start_at: at(4, 9) })).body;
    const res = await room.student.api.get('/api/v1/users/self/upcoming_events');
    expect(res.status).toBe(200);
    const entry = res.body.find((e: any) => e.type === 'event' && e.id === made.id);
    expect(entry).toMatchObject({ title: 'Upcoming lab', start_at: at(3, 9), end_at: at(3, 10), context_code: course(), url: `${server.url}/api/v1/calendar_events/${made.id}` });
    expect(res.body.some((e: any) => e.type === 'event' && e.id === mine.id)).toBe(true);
    // Soonest first, whichever kind.
    const starts = res.body.map((e: any) => e.start_at).filter(Boolean);
    expect([...starts].sort()).toEqual(starts);
    const outsider = await room.outsider.api.get('/api/v1/users/self/upcoming_events');
    expect(outsider.body.some((e: any) => e.id === made.id || e.id === mine.id)).toBe(false);
  });

  it('writes calendar_event_created and calendar_event_updated to entitled subscribers', async () => {
    const tool = await toolProxy(server, 'Calendar Tool');
    await subscription(server, { tool, context: { type: 'course', id: room.course.id }, eventTypes: ['calendar_event_created', 'calendar_event_updated'], url: receiver.url('/calendar') });
    const made = (await create(room.teacher, { context_code: course(), title: 'Webhook event', start_at: at(4, 10) })).body;
    await room.teacher.api.put(`${EVENTS}/${made.id}`, { calendar_event: { title: 'Webhook event (moved)' } });
    const got = await waitFor('both calendar live events', () => {
      const r = receiver.at('/calendar').filter((m) => m.json.body.calendar_event_id === String(made.id));
      return r.length >= 2 ? r : null;
    });
    expect(got.map((m) => m.json.metadata.event_name).sort()).toEqual(['calendar_event_created', 'calendar_event_updated']);
    const created = got.find((m) => m.json.metadata.event_name === 'calendar_event_created')!.json;
    expect(created.metadata).toMatchObject({ context_type: 'Course', context_id: String(room.course.id), user_id: String(room.teacher.id) });
    expect(created.body).toMatchObject({ calendar_event_id: String(made.id), title: 'Webhook event', context_type: 'Course', context_id: String(room.course.id), workflow_state: 'active', start_at: at(4, 10) });
    expect(await count(server, 'outbox_messages', "event_name = 'calendar_event_created'")).toBeGreaterThanOrEqual(1);
  });
});
