import { cursorForOffset } from '../src/common/relay';
import { parseLinks } from './support/api';
import { captureStatements, walkGraphql, walkRest } from './support/paging';
import { startTestServer, TestServer } from './support/server';
import { World, WorldUser } from './support/world';
import { allPages, at, Content } from './planner.support';

/**
 * The calendar lists page by key (start_at or due_at, then id) in SQL: deep pages over REST (Link
 * next) and GraphQL (cursors) list every row once in order, with ties in the date and undated rows,
 * whatever is inserted or deleted between pages; events merge a course, its sections and a user's
 * own calendar; totals are counted only when asked.
 */
let server: TestServer;
let world: World;
let course: { id: number };
let teacher: WorldUser;
let student: WorldUser;
let section: { id: number };
const EVENTS = '/api/v1/calendar_events';

interface Row {
  id: number;
  start: string | null;
}
/** Undated first, then by date, then by id: the lists' order. */
const order = (rows: Row[]) => [...rows].sort((a, b) => (a.start === b.start ? a.id - b.id : a.start == null ? -1 : b.start == null ? 1 : a.start < b.start ? -1 : 1)).map((r) => r.id);

async function inBatches<T>(n: number, fn: (i: number) => Promise<T>, size = 6): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i += size) out.push(...(await Promise.all(Array.from({ length: Math.min(size, n - i) }, (_, j) => fn(i + j)))));
  return out;
}

async function event(who: WorldUser, code: string, start: string | null, title = 'E'): Promise<Row> {
  const res = await who.api.post(EVENTS, { calendar_event: { context_code: code, title, ...(start ? { start_at: start, end_at: start } : {}) } });
  if (res.status !== 201) throw new Error(`create event: ${res.status} ${res.text}`);
  return { id: res.body.id, start };
}

/** Three events at each of a few instants (ties), and some undated. */
const startOf = (i: number) => (i % 5 === 4 ? null : at(2 + Math.floor(i / 3), 10));

let courseEvents: Row[];
let studentEvents: Row[];
let sectionEvent: Row;

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
  course = await world.course({ name: 'Calendar Paging' });
  [teacher, student] = await Promise.all([world.user('Cal Teacher'), world.user('Cal Student')]);
  section = await world.section(course.id, 'Section A');
  const other = await world.section(course.id, 'Section B');
  await world.enroll(course.id, teacher.id, 'TeacherEnrollment');
  await world.enroll(course.id, student.id, 'StudentEnrollment', { sectionId: section.id });
  courseEvents = await inBatches(26, (i) => event(teacher, `course_${course.id}`, startOf(i)));
  studentEvents = await inBatches(7, (i) => event(student, `user_${student.id}`, startOf(i + 2)));
  // A section-limited event: the student sees their section's child only; the teacher sees both.
  const res = await teacher.api.post(EVENTS, {
    calendar_event: {
      context_code: `course_${course.id}`,
      title: 'Lab',
      child_event_data: { 0: { start_at: at(4, 10), end_at: at(4, 11), context_code: `course_section_${section.id}` }, 1: { start_at: at(5, 10), end_at: at(5, 11), context_code: `course_section_${other.id}` } },
    },
  });
  expect(res.status).toBe(201);
  const child = res.body.child_events.find((c: any) => c.context_code === `course_section_${section.id}`);
  sectionEvent = { id: child.id, start: at(4, 10) };
}, 300_000);
afterAll(() => server.close());

const studentView = () => order([...courseEvents, ...studentEvents, sectionEvent]);
const studentPath = (perPage: number) => `${EVENTS}?context_codes[]=course_${course.id}&context_codes[]=user_${student.id}&all_events=1&per_page=${perPage}`;
const LIST = `query($c: [String!], $after: String, $first: Int, $undated: Boolean) { calendarEvents(contextCodes: $c, allEvents: true, undated: $undated, first: $first, after: $after) { nodes { _id } pageInfo { hasNextPage endCursor } } }`;

describe('calendar events', () => {
  it('REST: Link next walks every event once, in (start_at, id) order, undated first and ties by id, by bookmark with no last', async () => {
    const { ids, links } = await walkRest(student.api, server, studentPath(4));
    expect(ids).toEqual(studentView());
    expect(links.length).toBeGreaterThan(5);
    for (const l of links.slice(0, -1)) {
      expect(l.next).toMatch(/page=bookmark(:|%3A)/i);
      expect(l.last).toBeUndefined();
    }
    expect(links[links.length - 1].next).toBeUndefined();
  });

  it('GraphQL: key cursors walk the same list; the teacher sees every section event', async () => {
    const ids = await walkGraphql(student.api, LIST, { c: [`course_${course.id}`, `user_${student.id}`], first: 3 }, 'calendarEvents');
    expect(ids.map(Number)).toEqual(studentView());
    const all = await walkGraphql(teacher.api, LIST, { c: [`course_${course.id}`], first: 5 }, 'calendarEvents');
    const full = (await teacher.api.get(`${EVENTS}?context_codes[]=course_${course.id}&all_events=1&per_page=100`)).body as { id: number; start_at: string | null }[];
    expect(all.map(Number)).toEqual(order(full.map((e) => ({ id: e.id, start: e.start_at }))));
    expect(all).toHaveLength(courseEvents.length + 2);
    const first = await student.api.graphql(LIST, { c: [`course_${course.id}`], first: 2 });
    expect(Buffer.from(first.data.calendarEvents.pageInfo.endCursor, 'base64url').toString()).toMatch(/^key:/);
  });

  it('an undated list walks by key too', async () => {
    const ids = await walkGraphql(teacher.api, LIST, { c: [`course_${course.id}`], first: 2, undated: true }, 'calendarEvents');
    expect(ids.map(Number)).toEqual(order(courseEvents.filter((e) => e.start == null)));
  });

  it('totalCount is counted only when selected, and then is the whole list', async () => {
    const vars = { c: [`course_${course.id}`, `user_${student.id}`], first: 3 };
    const without = await captureStatements(server, () => student.api.graphql(LIST, vars));
    expect(without.filter((s) => /COUNT\(/i.test(s.sql) && /calendar_events/.test(s.sql))).toEqual([]);
    const q = `query($c: [String!], $first: Int) { calendarEvents(contextCodes: $c, allEvents: true, first: $first) { nodes { _id } totalCount } }`;
    const res = await student.api.graphql(q, vars);
    expect(res.data.calendarEvents.totalCount).toBe(studentView().length);
    expect(res.data.calendarEvents.nodes).toHaveLength(3);
  });

  it('an old offset cursor still reads the page after it', async () => {
    const res = await student.api.graphql(LIST, { c: [`course_${course.id}`, `user_${student.id}`], first: 4, after: cursorForOffset(5) });
    expect(res.data.calendarEvents.nodes.map((n: any) => Number(n._id))).toEqual(studentView().slice(6, 10));
    const junk = await student.api.graphql(LIST, { c: [`course_${course.id}`], first: 2, after: 'not a cursor' });
    expect(junk.errors).toBeUndefined();
    expect(junk.data.calendarEvents.nodes).toHaveLength(2);
  });

  it('a row inserted or deleted between pages: no row repeated or skipped', async () => {
    const pat = await world.user('Pat Planner');
    const mine = await inBatches(12, (i) => event(pat, `user_${pat.id}`, startOf(i)));
    const expected = order(mine);
    const gone = expected[9];
    let early: Row | undefined;
    let late: Row | undefined;
    const { ids } = await walkRest(pat.api, server, `${EVENTS}?context_codes[]=user_${pat.id}&all_events=1&per_page=3`, async (page) => {
      if (page !== 2) return;
      early = await event(pat, `user_${pat.id}`, null, 'early');
      late = await event(pat, `user_${pat.id}`, at(60, 10), 'late');
      expect((await pat.api.delete(`${EVENTS}/${gone}`)).status).toBe(200);
    });
    // The undated one sorts before the pages already read; the late one after them.
    expect(ids).toEqual([...expected.filter((id) => id !== gone), late!.id]);
    expect(ids).not.toContain(early!.id);
    // A tie inserted at the key of the page's last row comes after it by id.
    const gql = await walkGraphql(pat.api, LIST, { c: [`user_${pat.id}`], first: 4 }, 'calendarEvents', async (page) => {
      if (page === 1) await event(pat, `user_${pat.id}`, startOf(2));
    });
    expect(new Set(gql).size).toBe(gql.length);
    expect(gql).toHaveLength(ids.length + 2);
  });
});

describe('assignment events', () => {
  let assignments: Row[];
  const A_LIST = `query($c: [String!], $after: String, $first: Int, $undated: Boolean) { assignmentEvents(contextCodes: $c, allEvents: true, undated: $undated, first: $first, after: $after) { nodes { _id: id } pageInfo { hasNextPage endCursor } } }`;
  const num = (ids: string[]) => ids.map((s) => Number(s.replace('assignment_', '')));

  beforeAll(async () => {
    const content = new Content(teacher.api, course.id);
    // Drafts interleave with published ones: the teacher's list merges both states.
    assignments = await inBatches(22, async (i) => {
      const due = startOf(i);
      return { id: (await content.assignment(`A${i}`, due, { published: i % 4 !== 1 })).id, start: due, published: i % 4 !== 1 } as Row;
    });
  }, 300_000);

  it('GraphQL: key cursors walk every assignment once by (due_at, id), drafts for the teacher only', async () => {
    const teacherIds = await walkGraphql(teacher.api, A_LIST, { c: [`course_${course.id}`], first: 3 }, 'assignmentEvents');
    expect(num(teacherIds)).toEqual(order(assignments));
    const studentIds = await walkGraphql(student.api, A_LIST, { c: [`course_${course.id}`], first: 4 }, 'assignmentEvents');
    expect(num(studentIds)).toEqual(order(assignments.filter((a: any) => a.published)));
    const undated = await walkGraphql(teacher.api, A_LIST, { c: [`course_${course.id}`], first: 2, undated: true }, 'assignmentEvents');
    expect(num(undated)).toEqual(order(assignments.filter((a) => a.start == null)));
  });

  it('REST: numbered pages with a last link, as Canvas', async () => {
    const { ids, links } = await walkRest(teacher.api, server, `${EVENTS}?type=assignment&context_codes[]=course_${course.id}&all_events=1&per_page=5`);
    expect(ids.map((s: any) => Number(String(s).replace('assignment_', '')))).toEqual(order(assignments));
    expect(links[0].next).toContain('page=2');
    expect(links[0].last).toContain(`page=${Math.ceil(assignments.length / 5)}`);
  });

  it('totalCount only when selected; inserted and deleted rows between pages', async () => {
    const without = await captureStatements(server, () => teacher.api.graphql(A_LIST, { c: [`course_${course.id}`], first: 3 }));
    expect(without.filter((s) => /COUNT\(/i.test(s.sql) && /assignments/.test(s.sql))).toEqual([]);
    const counted = await teacher.api.graphql(`query($c: [String!]) { assignmentEvents(contextCodes: $c, allEvents: true, first: 2) { totalCount } }`, { c: [`course_${course.id}`] });
    expect(counted.data.assignmentEvents.totalCount).toBe(assignments.length);

    const content = new Content(teacher.api, course.id);
    const expected = order(assignments);
    const gone = expected[15];
    let late: { id: number } | undefined;
    const ids = await walkGraphql(teacher.api, A_LIST, { c: [`course_${course.id}`], first: 4 }, 'assignmentEvents', async (page) => {
      if (page !== 2) return;
      late = await content.assignment('late', at(90, 10));
      await content.assignment('early', null);
      expect((await teacher.api.delete(`/api/v1/courses/${course.id}/assignments/${gone}`)).status).toBe(200);
    });
    expect(num(ids)).toEqual([...expected.filter((id) => id !== gone), late!.id]);
  });
});

describe('both lists answer links that work', () => {
  it('a bookmark from one page serves the next over REST', async () => {
    const first = await student.api.get(studentPath(5));
    const next = parseLinks(first.headers.get('link')).next!.replace(server.url, '');
    const second = await student.api.get(next);
    expect([...first.body, ...second.body].map((e: any) => e.id)).toEqual(studentView().slice(0, 10));
  });
});

describe('planner items', () => {
  // The planner reads each collection's own first rows after the bookmark and merges them; events come
  // from the course, the user's own calendar and the user's sections (found by their course's code).
  // Earlier tests of this file add and delete rows, so the events expected are the calendar's own list.
  const from = at(-1);
  const to = at(30);
  const planner = (query: string) => `/api/v1/planner/items?start_date=${encodeURIComponent(from)}&end_date=${encodeURIComponent(to)}&per_page=4${query}`;
  const key = (i: { plannable_type: string; plannable_id: number }) => `${i.plannable_type}:${i.plannable_id}`;
  async function calendar(): Promise<string[]> {
    const res = await student.api.get(studentPath(100));
    const rows = (res.body as { id: number; start_at: string | null }[]).filter((e) => e.start_at != null && e.start_at >= from && e.start_at <= to);
    expect(rows.map((e) => e.id)).toContain(sectionEvent.id);
    return order(rows.map((e) => ({ id: e.id, start: e.start_at }))).map((id) => `calendar_event:${id}`);
  }

  it("walks the course's events, the student's own and their section's (not the other section's, nor the parent), in (date, id) order by bookmark", async () => {
    const { items, links } = await allPages(student.api, planner(''));
    const keys = items.map(key);
    expect(keys.filter((k) => k.startsWith('calendar_event:'))).toEqual(await calendar());
    expect(new Set(keys).size).toBe(keys.length);
    const dates = items.map((i) => Date.parse(i.plannable_date));
    expect(dates).toEqual([...dates].sort((a, b) => a - b));
    expect(links.length).toBeGreaterThan(3);
    expect(links.every((l) => l.last === undefined)).toBe(true);
  });

  it('walks them backwards with order=desc', async () => {
    const asc = (await allPages(student.api, planner(''))).items.map(key);
    const { items } = await allPages(student.api, planner('&order=desc'));
    expect(items.map(key)).toEqual(asc.reverse());
  });
});
