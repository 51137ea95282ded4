import { ExplainHarness } from './support/explain';
import { captureStatements } from './support/paging';
import type { PagingWorld } from './support/paging';
import type { TestServer } from './support/server';

/**
 * Calendar event and assignment event lists read their pages from an index (the checks and how the tables
 * are grown: test/support/explain.ts); so does each collection of the planner's items.
 */
const h = new ExplainHarness(['calendar_events', 'assignments']);
let server: TestServer;
let w: PagingWorld;
const { mysql, grow, explainPages, clean, firstAndNext } = h;

beforeAll(async () => {
  ({ server, w } = await h.start());
}, 600_000);
afterAll(() => h.close());

describe('calendar lists', () => {
  const base = '/api/v1/calendar_events?per_page=10';
  const course = () => `context_codes[]=course_${w.course.id}`;

  /** Copies of the course's events under other contexts (codes and ids), as grow() does by a number. */
  async function growEvents(times: number): Promise<void> {
    const ds = server.app.ds;
    const cols = ds.getMetadata('calendar_events').columns.map((c) => c.databaseName).filter((c) => c !== 'id');
    const cat = (c: string, k: number) => (mysql() ? `CONCAT(${c}, '_${k}')` : `${c} || '_${k}'`);
    const select = (k: number) =>
      cols.map((c) => (c === 'context_id' ? `context_id + ${k * 1_000_000}` : c === 'context_code' || c === 'effective_context_code' ? cat(c, k) : ds.driver.escape(c))).join(', ');
    for (let k = 1; k <= times; k++) {
      await ds.query(`INSERT INTO calendar_events (${cols.map((c) => ds.driver.escape(c)).join(', ')}) SELECT ${select(k)} FROM calendar_events WHERE context_id < 1000000`);
    }
  }

  beforeAll(async () => {
    const api = w.teacher.api;
    const at = (i: number) => (i % 7 === 3 ? undefined : `2026-0${1 + (i % 6)}-1${i % 10}T10:00:00Z`);
    for (let i = 0; i < 60; i += 6) {
      await Promise.all(
        Array.from({ length: 6 }, async (_, j) => {
          const start = at(i + j);
          const event = await api.post('/api/v1/calendar_events', { calendar_event: { context_code: `course_${w.course.id}`, title: `E${i + j}`, ...(start ? { start_at: start, end_at: start } : {}) } });
          const mine = await api.post('/api/v1/calendar_events', { calendar_event: { context_code: `user_${w.teacher.id}`, title: `U${i + j}`, ...(start ? { start_at: start } : {}) } });
          const assignment = await api.post(`/api/v1/courses/${w.course.id}/assignments`, { assignment: { name: `A${i + j}`, due_at: start, published: (i + j) % 3 !== 0, submission_types: ['online_text_entry'] } });
          if (event.status !== 201 || mine.status !== 201 || assignment.status >= 300) throw new Error(`seed: ${event.status} ${mine.status} ${assignment.status}`);
        }),
      );
    }
    await growEvents(40);
    await grow('assignments', 'course_id', 40);
    if (mysql()) await server.app.ds.query('ANALYZE TABLE calendar_events, assignments');
    else await server.app.ds.query('ANALYZE');
  }, 600_000);

  it.each([
    ['calendar_events', "a course's events (all sections: by effective context)", () => `${base}&${course()}&all_events=1`],
    ['calendar_events', "a course's and a user's events (a union of index reads)", () => `${base}&${course()}&context_codes[]=user_${w.teacher.id}&all_events=1`],
    ['calendar_events', "a user's undated events", () => `/api/v1/calendar_events?per_page=3&context_codes[]=user_${w.teacher.id}&undated=1`],
    ['calendar_events', "a course's events in a date window", () => `${base}&${course()}&start_date=2026-01-01&end_date=2026-12-31`],
    ['assignments', "a course's assignment events (numbered pages)", () => `${base}&type=assignment&${course()}&all_events=1`],
    ['assignments', "a course's assignment events in a date window", () => `${base}&type=assignment&${course()}&start_date=2026-01-01&end_date=2026-12-31`],
  ])('%s: %s reads its pages from an index', async (table, _label, path) => {
    for (const request of await firstAndNext(path())) clean(await explainPages(table, request));
  });

  it('GraphQL assignment events by a deep key cursor read from the index', async () => {
    const q = `query($c: [String!], $after: String) { assignmentEvents(contextCodes: $c, allEvents: true, first: 10, after: $after) { nodes { id } pageInfo { endCursor } } }`;
    const vars = { c: [`course_${w.course.id}`] };
    const first = await w.teacher.api.graphql(q, vars);
    const second = await w.teacher.api.graphql(q, { ...vars, after: first.data.assignmentEvents.pageInfo.endCursor });
    const after = second.data.assignmentEvents.pageInfo.endCursor;
    clean(await explainPages('assignments', () => w.teacher.api.graphql(q, { ...vars, after })));
  });
});

describe('planner items', () => {
  // The teacher's notes (pagingWorld) grown under other users; calendar events are grown above.
  beforeAll(async () => {
    h.big.push('planner_notes');
    await grow('planner_notes', 'user_id', 40);
    await h.analyze();
  }, 600_000);

  /** The planner's page statement (the union of the collections' reads) that `request` runs. */
  async function plan(request: () => Promise<unknown>): Promise<{ sql: string; params: readonly unknown[] }> {
    const seen = await captureStatements(server, request);
    const pages = seen.filter((s) => /\bplanner_notes\b/.test(s.sql) && /\bcalendar_events\b/.test(s.sql) && /\bLIMIT\b/.test(s.sql));
    expect(pages).toHaveLength(1);
    return pages[0];
  }

  /**
   * The notes' read, in its own derived table: on SQLite the CO-ROUTINE (or MATERIALIZE) upN that
   * searches `n`, with no sort directly under it; on MariaDB the row of `n`, with no filesort.
   */
  async function notesRead(sql: string, params: readonly unknown[]): Promise<string[]> {
    const ds = server.app.ds;
    if (mysql()) {
      const rows: { table: string; type: string; Extra: string | null }[] = await ds.query(`EXPLAIN ${sql}`, [...params]);
      const n = rows.filter((r) => r.table === 'n');
      expect(n).toHaveLength(1);
      return /filesort|temporary/i.test(n[0].Extra ?? '') ? [`n: ${n[0].Extra}`] : [];
    }
    const rows: { id: number; parent: number; detail: string }[] = await ds.query(`EXPLAIN QUERY PLAN ${sql}`, [...params]);
    const search = rows.find((r) => /^SEARCH n\b/.test(r.detail));
    const read = rows.find((r) => r.id === search?.parent);
    expect(read?.detail).toMatch(/^(CO-ROUTINE|MATERIALIZE) up\d+$/);
    return rows.filter((r) => r.parent === read!.id && /TEMP B-TREE/.test(r.detail)).map((r) => r.detail);
  }

  it('the first page and the page after its bookmark: each collection is read from its own index range (no scan of the notes or events), the notes in order with no sort', async () => {
    for (const request of await firstAndNext('/api/v1/planner/items?start_date=2026-01-01&end_date=2026-12-31&per_page=10')) {
      const { sql, params } = await plan(request);
      const problems = await h.problems(sql, params);
      // Merging the reads sorts at most reads × (per_page + 1) rows; a read of one collection may sort
      // only its own window of the user's contexts (announcements by their posted date). Scans are refused.
      expect(problems.filter((p) => /scan/.test(p))).toEqual([]);
      expect(await notesRead(sql, params)).toEqual([]);
    }
  });

  it("a student's planner finds their section events from the course's effective context, not by a scan of the calendar", async () => {
    // A student of the course: their events read matches section events (the teacher's has no courses
    // of a student, so no section part).
    const token = await server.admin.post(`/api/v1/users/${w.students[0]}/tokens`, { token: { purpose: 'explain' } });
    const api = server.as(token.body.visible_token);
    const { sql, params } = await plan(() => api.get('/api/v1/planner/items?start_date=2026-01-01&end_date=2026-12-31&per_page=10'));
    expect(sql).toMatch(/CourseSection/);
    expect((await h.problems(sql, params)).filter((p) => /scan/.test(p))).toEqual([]);
  });
});
