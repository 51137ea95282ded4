import { contentRoom, ContentRoom } from './support/content';
import { startTestServer, TestServer } from './support/server';
import { wsClient } from './support/ws';
import { World } from './support/world';
import { at, day } from './planner.support';

let server: TestServer;
let world: World;
let room: ContentRoom;

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
  room = await contentRoom(world);
});
afterAll(() => server.close());

const FIELDS = 'id _id title startAt endAt contextCode effectiveContextCode contextName allContextCodes workflowState hidden allDay allDayDate url htmlUrl childEventsCount';
const CREATE = `mutation($input: CreateCalendarEventInput!) { createCalendarEvent(input: $input) { calendarEvent { ${FIELDS} } errors { attribute type message } } }`;
const UPDATE = `mutation($input: UpdateCalendarEventInput!) { updateCalendarEvent(input: $input) { calendarEvent { ${FIELDS} } errors { attribute type message } } }`;
const DELETE = `mutation($input: DeleteCalendarEventInput!) { deleteCalendarEvent(input: $input) { calendarEvent { _id workflowState } errors { attribute } } }`;
const LIST = `query($c: [String!], $s: String, $e: String) { calendarEvents(contextCodes: $c, startDate: $s, endDate: $e) { nodes { _id title } totalCount pageInfo { hasNextPage } } }`;
const course = () => `course_${room.course.id}`;

describe('calendar events through GraphQL', () => {
  it('create, read (query, list, node), update and delete', async () => {
    const made = await room.teacher.api.graphql(CREATE, { input: { contextCode: course(), title: 'Seminar', startAt: at(6, 9), endAt: at(6, 10), description: '<b>Bring</b><script>x</script>' } });
    expect(made.errors).toBeUndefined();
    const ev = made.data.createCalendarEvent.calendarEvent;
    expect(made.data.createCalendarEvent.errors).toBeNull();
    expect(ev).toMatchObject({ title: 'Seminar', startAt: at(6, 9), endAt: at(6, 10), contextCode: course(), effectiveContextCode: course(), contextName: room.course.name, allContextCodes: [course()], workflowState: 'active', hidden: false, allDay: false, childEventsCount: 0 });
    expect(Buffer.from(ev.id, 'base64').toString()).toBe(`CalendarEvent-${ev._id}`);

    const one = await room.student.api.graphql(`query($id: ID!) { calendarEvent(id: $id) { title description } }`, { id: ev._id });
    expect(one.data.calendarEvent.title).toBe('Seminar');
    expect(one.data.calendarEvent.description).not.toContain('script');
    const node = await room.student.api.graphql(`query($id: ID!) { node(id: $id) { ... on CalendarEvent { _id title } } }`, { id: ev.id });
    expect(node.data.node).toEqual({ _id: ev._id, title: 'Seminar' });
    const list = await room.student.api.graphql(LIST, { c: [course()], s: day(6), e: day(6) });
    expect(list.data.calendarEvents).toEqual({ nodes: [{ _id: ev._id, title: 'Seminar' }], totalCount: 1, pageInfo: { hasNextPage: false } });

    const upd = await room.teacher.api.graphql(UPDATE, { input: { id: ev.id, title: 'Seminar (room 4)', allDay: true } });
    expect(upd.data.updateCalendarEvent.calendarEvent).toMatchObject({ title: 'Seminar (room 4)', allDay: true, allDayDate: day(6), startAt: `${day(6)}T00:00:00Z` });
    const del = await room.teacher.api.graphql(DELETE, { input: { id: ev._id } });
    expect(del.data.deleteCalendarEvent.calendarEvent).toEqual({ _id: ev._id, workflowState: 'deleted' });
    const gone = await room.student.api.graphql(`query($id: ID!) { calendarEvent(id: $id) { title } }`, { id: ev._id });
    expect(gone.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('refuses a student a course event and an outsider the course calendar; bad input is a payload error', async () => {
    const student = await room.student.api.graphql(CREATE, { input: { contextCode: course(), title: 'Nope', startAt: at(1) } });
    expect(student.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const bad = await room.teacher.api.graphql(CREATE, { input: { contextCode: course(), title: 'x', startAt: 'tomorrow-ish' } });
    expect(bad.data.createCalendarEvent.calendarEvent).toBeNull();
    expect(bad.data.createCalendarEvent.errors[0]).toMatchObject({ attribute: 'calendar_event[start_at]', type: 'invalid' });
    const noCode = await room.teacher.api.graphql(CREATE, { input: { contextCode: 'nowhere', title: 'x' } });
    expect(noCode.data.createCalendarEvent.errors[0]).toMatchObject({ attribute: 'calendar_event[context_code]' });
    const made = await room.teacher.api.graphql(CREATE, { input: { contextCode: course(), title: 'Private to the course', startAt: at(7, 9) } });
    const outsider = await room.outsider.api.graphql(LIST, { c: [course()], s: day(7), e: day(7) });
    expect(outsider.data.calendarEvents.nodes).toEqual([]);
    const node = await room.outsider.api.graphql(`query($id: ID!) { node(id: $id) { id } }`, { id: made.data.createCalendarEvent.calendarEvent.id });
    expect(node.data.node).toBeNull();
  });

  it('puts events in plannerItems and tells plannerChanged subscribers', async () => {
    const ws = wsClient(server.url, room.student.token);
    const received: any[] = [];
    const subscribed = new Promise<void>((resolve) => {
      ws.client.subscribe({ query: 'subscription { plannerChanged { change plannableType plannableId courseId } }' }, { next: (r) => received.push(r.data), error: () => undefined, complete: () => undefined });
      // The subscription is live once the server has answered the socket's first operation.
      setTimeout(resolve, 300);
    });
    await subscribed;
    try {
      const made = await room.teacher.api.graphql(CREATE, { input: { contextCode: course(), title: 'Planner seminar', startAt: at(3, 9) } });
      const id = made.data.createCalendarEvent.calendarEvent._id;
      const deadline = Date.now() + 5000;
      while (!received.some((r) => r?.plannerChanged?.plannableId === id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      expect(received.find((r) => r?.plannerChanged?.plannableId === id)).toEqual({ plannerChanged: { change: 'created', plannableType: 'calendar_event', plannableId: id, courseId: String(room.course.id) } });
      const items = await room.student.api.graphql(
        `query($s: String, $e: String) { plannerItems(startDate: $s, endDate: $e) { nodes { plannableType plannableId plannable { title startAt } } } }`,
        { s: day(3), e: day(4) },
      );
      expect(items.data.plannerItems.nodes).toContainEqual({ plannableType: 'calendar_event', plannableId: id, plannable: { title: 'Planner seminar', startAt: at(3, 9) } });
    } finally {
      await ws.client.dispose();
    }
  });
});
