/**
 * SQL statements per request for list endpoints at several list lengths, to show that a list costs
 * a fixed number of statements whatever its length. Prints figures only; a count that grows with
 * the list length is reported as a WARNING line, but the exit code stays 0.
 *
 *   npm run build && node dist/bench/query-counts.js
 *
 * Knobs: BENCH_LENGTHS ("5,20,80"), BENCH_SQL=1 (print the statements of every measured request),
 * DATABASE_URL (mysql://… to count on MariaDB/MySQL on a throwaway database; in-memory SQLite otherwise).
 */
import { performance } from 'node:perf_hooks';
import { BenchServer, BenchUser, Client, ClientResponse, fmt, mapLimit, printTable, runBench, World } from './support';

const LENGTHS = (process.env.BENCH_LENGTHS || '5,20,80')
  .split(',')
  .map((s) => parseInt(s.trim(), 10))
  .filter((n) => n > 0)
  .sort((a, b) => a - b);
const MAX = LENGTHS[LENGTHS.length - 1];
const PRINT_SQL = process.env.BENCH_SQL === '1';

if (MAX > 100) throw new Error('BENCH_LENGTHS: Canvas caps per_page at 100');

const ROSTER_QUERY = `query($id: ID!, $first: Int) { course(id: $id) { enrollmentsConnection(first: $first) {
  nodes { _id userId type role state courseSectionId user { _id name sortableName shortName loginId } } totalCount } } }`;

const MODULES_GRAPH_QUERY = `query($id: ID!) { course(id: $id) { modulesConnection(first: 100) { nodes { _id name prerequisites { id }
  moduleItems { _id title type module { _id } next { _id } previous { _id } content { __typename ... on Assignment { _id name } ... on Page { _id title } ... on Quiz { _id title } } } } } } }`;

const GROUPS_GRAPH_QUERY = `query($id: ID!) { course(id: $id) { groupSetsConnection(first: 5) { nodes { _id groupsConnection(first: 100) { nodes { _id name
  membersConnection(first: 5) { totalCount nodes { _id user { _id name } } } } } } } } }`;

interface Case {
  endpoint: string;
  viewer: string;
  /** The request at list length n. */
  request(n: number): Promise<ClientResponse>;
  /** Rows in the response. */
  rows(res: ClientResponse): number | undefined;
}

interface Measured {
  count: number;
  rows: number | undefined;
  status: number;
  statements: string[];
}

/** Records the text of each statement while `recording` is set (bench-side wrapper; src is untouched). */
function statementRecorder(server: BenchServer) {
  const logger = server.logger;
  const original = logger.logQuery.bind(logger);
  const state: { recording: string[] | null } = { recording: null };
  logger.logQuery = (query, parameters, queryRunner) => {
    state.recording?.push(query);
    original(query, parameters, queryRunner);
  };
  return state;
}

const normalize = (sql: string) =>
  sql
    .replace(/\s+/g, ' ')
    .replace(/\((\s*\?\s*,)+\s*\?\s*\)/g, '(?, …)')
    .replace(/IN \(\?\)/g, 'IN (?, …)')
    // TypeORM inlines numeric ids and page sizes; fold them so the same statement groups together.
    .replace(/IN \(\d+(\s*,\s*\d+)*\)/g, 'IN (…)')
    .replace(/(=|LIMIT|OFFSET) \d+/g, '$1 ?')
    // The column list says nothing about the cost; keep what is read from where.
    .replace(/^SELECT (DISTINCT )?(.*?) FROM /, (m, d: string | undefined, cols: string) =>
      /^COUNT\(/i.test(cols) ? m : `SELECT ${d ?? ''}… FROM `,
    )
    .trim();

function summarize(statements: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const s of statements) {
    const k = normalize(s);
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}

/**
 * Fan-out across parents (issue 12): a viewer's (or the account's) first n courses, each with its
 * modules, items of several content types and their content, sections, enrollments, group sets with
 * groups and members, assignments with submissions, and blackout dates.
 */
const FANOUT_COURSE = `_id modulesConnection(first: 2) { nodes { _id prerequisites { id } progressionsConnection(first: 3) { nodes { userId } }
    moduleItems { _id content { __typename ... on Assignment { _id name } ... on Page { _id } ... on Quiz { _id } ... on Discussion { _id } } } } }
  sectionsConnection(first: 3) { totalCount nodes { _id } } enrollmentsConnection(first: 3) { totalCount nodes { _id } }
  groupSetsConnection(first: 2) { nodes { groupsConnection(first: 2) { nodes { membersConnection(first: 3) { nodes { _id } } } } } }
  assignmentsConnection(first: 3) { totalCount nodes { _id submissionsConnection(first: 3) { nodes { userId } } } }
  quizzesConnection(first: 3) { nodes { _id } } pagesConnection(first: 3) { nodes { _id } } discussionsConnection(first: 3) { nodes { _id } }
  blackoutDates { _id }`;
/** Observers may not read the roster (non-null lists, refused): their query leaves those out. */
const FANOUT_VIEWER = (roster: boolean) => `{ viewer { coursesConnection(first: 100) { nodes { ${roster ? FANOUT_COURSE : FANOUT_COURSE.replace(/sectionsConnection.*\n/, '')} } }
  groups { _id membersConnection(first: 3) { nodes { _id } } } } }`;
const FANOUT_ACCOUNT = `query($n: Int) { account(id: "self") { coursesConnection(first: $n) { nodes { ${FANOUT_COURSE} } } } }`;

void runBench(async (server) => {
  const world = new World(server);
  const recorder = statementRecorder(server);
  const seedStart = performance.now();

  // Fan-out courses first, so they are also the account's first MAX courses (its list is by id).
  const fanTeacher = await world.user('Fan Teacher', { token: true });
  const fanCourses = await mapLimit(Array.from({ length: MAX }, (_, i) => `Fan ${String(i + 1).padStart(3, '0')}`), 4, (n) => world.course(n));
  const fanOwner = fanTeacher.api as Client;
  const ensure = async (res: Promise<ClientResponse>, what: string) => {
    const r = await res;
    if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 200)}`);
    return r.body;
  };
  const fanStudents = await world.users('Fan Student', 2, { token: true });
  await mapLimit(fanCourses, 4, async (c) => {
    const base = `/api/v1/courses/${c.id}`;
    await world.enroll(c.id, fanTeacher.id, 'TeacherEnrollment');
    for (const s of fanStudents) await world.enroll(c.id, s.id, 'StudentEnrollment');
    const a = await ensure(fanOwner.post(`${base}/assignments`, { assignment: { name: 'Essay', points_possible: 10, submission_types: ['online_text_entry'], published: true } }), 'assignment');
    const page = await ensure(fanOwner.post(`${base}/pages`, { wiki_page: { title: 'Reading', body: '<p>Read</p>', published: true } }), 'page');
    const topic = await ensure(fanOwner.post(`${base}/discussion_topics`, { title: 'Talk', message: '<p>Talk</p>', published: true }), 'topic');
    const mod = await ensure(fanOwner.post(`${base}/modules`, { module: { name: 'Week 1' } }), 'module');
    for (const item of [{ type: 'Assignment', content_id: a.id }, { type: 'Page', page_url: page.url }, { type: 'Discussion', content_id: topic.id }, { type: 'SubHeader', title: 'Heading' }]) {
      await ensure(fanOwner.post(`${base}/modules/${mod.id}/items`, { module_item: item }), 'item');
    }
    await ensure(fanOwner.request('PUT', `${base}/modules/${mod.id}`, { module: { published: true } }), 'publish');
    await world.section(c.id, 'Section B');
    const cat = await ensure(fanOwner.post(`${base}/group_categories`, { name: 'Projects' }), 'group set');
    const g = await ensure(fanOwner.post(`/api/v1/group_categories/${cat.id}/groups`, { name: 'Team' }), 'group');
    await ensure(fanOwner.post(`/api/v1/groups/${g.id}/memberships`, { user_id: fanStudents[0].id }), 'member');
    await ensure(fanOwner.post(`${base}/blackout_dates`, { blackout_date: { start_date: '2035-01-02', end_date: '2035-01-03', event_title: 'Break' } }), 'blackout');
  });
  // Per list length n, a teacher, a student and an observer enrolled in exactly the first n fan-out courses.
  const fanViewers = new Map<number, Record<'teacher' | 'student' | 'observer', BenchUser>>();
  for (const n of LENGTHS) {
    const [t, s, o] = [await world.user(`Fan T${n}`, { token: true }), await world.user(`Fan S${n}`, { token: true }), await world.user(`Fan O${n}`, { token: true })];
    await mapLimit(fanCourses.slice(0, n), 4, async (c) => {
      await world.enroll(c.id, t.id, 'TeacherEnrollment');
      await world.enroll(c.id, s.id, 'StudentEnrollment');
      await ensure(server.admin.post(`/api/v1/courses/${c.id}/enrollments`, { enrollment: { user_id: o.id, type: 'ObserverEnrollment', enrollment_state: 'active', associated_user_id: s.id } }), 'observer');
    });
    fanViewers.set(n, { teacher: t, student: s, observer: o });
  }

  // One big course: a teacher, MAX+5 students spread over MAX extra sections, and a student viewer.
  const big = await world.course('Big Course');
  const sections = await mapLimit(
    Array.from({ length: MAX }, (_, i) => `Section ${i + 1}`),
    8,
    (n) => world.section(big.id, n),
  );
  const teacher = await world.user('Tina Teacher', { token: true });
  await world.enroll(big.id, teacher.id, 'TeacherEnrollment');
  const students = await world.users('Student', MAX + 5);
  for (const [i, s] of students.entries()) await world.enroll(big.id, s.id, 'StudentEnrollment', { sectionId: sections[i % sections.length].id });
  const rosterStudent = await world.user('Rita Roster', { token: true });
  await world.enroll(big.id, rosterStudent.id, 'StudentEnrollment', { sectionId: sections[0].id });

  // MAX small courses, and one student per list length enrolled in exactly that many of them.
  const smallCourses = await mapLimit(
    Array.from({ length: MAX }, (_, i) => `Course ${String(i + 1).padStart(3, '0')}`),
    8,
    (n) => world.course(n),
  );
  const byLength = new Map<number, BenchUser>();
  for (const n of LENGTHS) {
    const s = await world.user(`Enrolled In ${n}`, { token: true });
    await mapLimit(smallCourses.slice(0, n), 8, (c) => world.enroll(c.id, s.id, 'StudentEnrollment'));
    byLength.set(n, s);
  }
  // The navigable graph (issue 12): per list length n, a course of n modules with ITEMS_PER_MODULE
  // items each (assignment, page, quiz, sub-header), and a course with one group set of n groups.
  const ITEMS_PER_MODULE = 5;
  const t0 = teacher.api as Client;
  const must = async (res: Promise<ClientResponse>, what: string) => {
    const r = await res;
    if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 200)}`);
    return r.body;
  };
  const graphCourses = new Map<number, { modules: number; groups: number }>();
  for (const n of LENGTHS) {
    const modulesCourse = await world.course(`Modules ${n}`);
    const groupsCourse = await world.course(`Groups ${n}`);
    for (const c of [modulesCourse, groupsCourse]) {
      await world.enroll(c.id, teacher.id, 'TeacherEnrollment');
      await world.enroll(c.id, rosterStudent.id, 'StudentEnrollment');
    }
    const base = `/api/v1/courses/${modulesCourse.id}`;
    const assignment = await must(t0.post(`${base}/assignments`, { assignment: { name: 'Essay', points_possible: 10, submission_types: ['online_text_entry'], published: true } }), 'assignment');
    const page = await must(t0.post(`${base}/pages`, { wiki_page: { title: 'Reading', body: '<p>Read</p>', published: true } }), 'page');
    const quiz = await must(t0.post(`${base}/quizzes`, { quiz: { title: 'Quiz', quiz_type: 'assignment', points_possible: 5, published: true } }), 'quiz');
    const kinds = [
      { type: 'Assignment', content_id: assignment.id },
      { type: 'Page', page_url: page.url },
      { type: 'Quiz', content_id: quiz.id },
      { type: 'SubHeader', title: 'Heading' },
    ];
    await mapLimit(Array.from({ length: n }, (_, i) => i), 4, async (i) => {
      const mod = await must(t0.post(`${base}/modules`, { module: { name: `Module ${i + 1}`, position: i + 1 } }), 'module');
      for (let p = 0; p < ITEMS_PER_MODULE; p++) await must(t0.post(`${base}/modules/${mod.id}/items`, { module_item: kinds[p % kinds.length] }), 'item');
      await must(t0.request('PUT', `${base}/modules/${mod.id}`, { module: { published: true } }), 'publish');
    });
    const cat = await must(t0.post(`/api/v1/courses/${groupsCourse.id}/group_categories`, { name: 'Projects' }), 'group set');
    // One at a time: concurrent joins of one user to groups of one set deadlock on MariaDB (a 500 from joinGroup).
    await mapLimit(Array.from({ length: n }, (_, i) => i), 1, async (i) => {
      const g = await must(t0.post(`/api/v1/group_categories/${cat.id}/groups`, { name: `Group ${i + 1}` }), 'group');
      await must(t0.post(`/api/v1/groups/${g.id}/memberships`, { user_id: rosterStudent.id }), 'member');
    });
    graphCourses.set(n, { modules: modulesCourse.id, groups: groupsCourse.id });
  }
  const seedMs = performance.now() - seedStart;

  const admin = server.admin;
  const t = teacher.api as Client;
  const st = rosterStudent.api as Client;
  const arr = (res: ClientResponse) => (Array.isArray(res.body) ? res.body.length : undefined);
  const cases: Case[] = [
    { endpoint: 'GET /api/v1/courses/:id/enrollments', viewer: 'teacher', request: (n) => t.get(`/api/v1/courses/${big.id}/enrollments?per_page=${n}`), rows: arr },
    { endpoint: 'GET /api/v1/courses/:id/enrollments', viewer: 'site admin', request: (n) => admin.get(`/api/v1/courses/${big.id}/enrollments?per_page=${n}`), rows: arr },
    { endpoint: 'GET /api/v1/courses/:id/enrollments', viewer: 'student', request: (n) => st.get(`/api/v1/courses/${big.id}/enrollments?per_page=${n}`), rows: arr },
    { endpoint: 'GET /api/v1/courses/:id/sections', viewer: 'teacher', request: (n) => t.get(`/api/v1/courses/${big.id}/sections?per_page=${n}`), rows: arr },
    {
      endpoint: 'GET /api/v1/courses',
      viewer: 'student in N courses',
      request: (n) => (byLength.get(n)!.api as Client).get('/api/v1/courses?per_page=100'),
      rows: arr,
    },
    { endpoint: 'GET /api/v1/accounts/self/users', viewer: 'site admin', request: (n) => admin.get(`/api/v1/accounts/self/users?per_page=${n}`), rows: arr },
    ...(['teacher', 'student'] as const).map((who) => ({
      endpoint: `POST /graphql course -> modulesConnection -> moduleItems (${ITEMS_PER_MODULE} each) -> content, next, module`,
      viewer: who,
      request: (n: number) => (who === 'teacher' ? t : st).graphql(MODULES_GRAPH_QUERY, { id: String(graphCourses.get(n)!.modules) }),
      rows: (res: ClientResponse) => res.body?.data?.course?.modulesConnection?.nodes?.length,
    })),
    {
      endpoint: 'POST /graphql course -> groupSetsConnection -> groupsConnection -> membersConnection',
      viewer: 'teacher',
      request: (n) => t.graphql(GROUPS_GRAPH_QUERY, { id: String(graphCourses.get(n)!.groups) }),
      rows: (res) => res.body?.data?.course?.groupSetsConnection?.nodes?.[0]?.groupsConnection?.nodes?.length,
    },
    ...(['teacher', 'student', 'observer'] as const).map((who) => ({
      endpoint: 'POST /graphql viewer -> N courses -> modules/items/content, sections, enrollments, group sets, assignments, …',
      viewer: `${who} in N courses`,
      request: (n: number) => (fanViewers.get(n)![who].api as Client).graphql(FANOUT_VIEWER(who !== 'observer')),
      rows: (res: ClientResponse) => res.body?.data?.viewer?.coursesConnection?.nodes?.length,
    })),
    {
      endpoint: 'POST /graphql account -> coursesConnection(first: N) -> the same nested lists',
      viewer: 'site admin',
      request: (n) => (server.admin as Client).graphql(FANOUT_ACCOUNT, { n }),
      rows: (res) => res.body?.data?.account?.coursesConnection?.nodes?.length,
    },
    {
      endpoint: 'POST /graphql enrollmentsConnection',
      viewer: 'teacher',
      request: (n) => t.graphql(ROSTER_QUERY, { id: String(big.id), first: n }),
      rows: (res) => res.body?.data?.course?.enrollmentsConnection?.nodes?.length,
    },
  ];

  /** One request on its own: the CountingLogger `total` delta around it (requests are sequential). */
  const measure = async (c: Case, n: number): Promise<Measured> => {
    // Warm-up: the first use of a token writes its last_used_at, which is not the list's cost.
    await c.request(n);
    await new Promise((r) => setImmediate(r));
    recorder.recording = [];
    const before = server.logger.total;
    const res = await c.request(n);
    await new Promise((r) => setImmediate(r));
    const count = server.logger.total - before;
    const statements = recorder.recording;
    recorder.recording = null;
    if (res.status !== 200 || (res.body as { errors?: unknown[] } | undefined)?.errors) {
      console.log(`  note: ${c.endpoint} as ${c.viewer} at n=${n}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
    }
    return { count, rows: c.rows(res), status: res.status, statements };
  };

  console.log('SQL statements per request, by list length');
  console.log(`  database: ${server.db.label}; node ${process.version}; seeded in ${fmt(seedMs / 1000, 1)} s`);
  console.log(
    `  world: 1 course with 1 teacher + ${students.length + 1} students over ${sections.length + 1} sections; ${smallCourses.length} more courses; one student enrolled in each of ${LENGTHS.join(', ')} of them`,
  );
  console.log(`  graph cases: per n, a course of n modules with ${ITEMS_PER_MODULE} items each, and a course with one group set of n groups`);
  console.log('  fan-out cases: per n, a teacher, a student and an observer in n courses (each: a module of 4 items, 2 sections, a group set, 2 assignments, a page, a topic, a blackout date)');
  console.log('  each figure: CountingLogger.total delta around one request, after one warm-up request of the same kind');
  console.log('');

  const warnings: string[] = [];
  const details: string[] = [];
  const rows: (string | number)[][] = [];
  for (const c of cases) {
    const results: Measured[] = [];
    for (const n of LENGTHS) results.push(await measure(c, n));
    const cells = results.map((r, i) => (r.rows === LENGTHS[i] ? String(r.count) : `${r.count} (${r.rows ?? '?'} rows)`));
    const first = results[0].count;
    const last = results[results.length - 1].count;
    const grows = results.some((r, i) => i > 0 && r.count > results[i - 1].count) && last > first;
    const flat = results.every((r) => r.count === first);
    rows.push([c.endpoint, c.viewer, ...cells, flat ? 'flat' : grows ? 'GROWS' : 'varies']);
    if (!flat) {
      const label = `${c.endpoint} (as ${c.viewer})`;
      const counts = results.map((r, i) => `${r.count} at ${LENGTHS[i]}`).join(', ');
      warnings.push(`WARNING: statement count ${grows ? 'grows with list length' : 'varies with list length'}: ${label}: ${counts}`);
      // Which statements account for the difference between the shortest and the longest list.
      const a = summarize(results[0].statements);
      const b = summarize(results[results.length - 1].statements);
      details.push(`  ${label}: statements whose count changes between n=${LENGTHS[0]} and n=${MAX}:`);
      for (const k of new Set([...a.keys(), ...b.keys()])) {
        const x = a.get(k) ?? 0;
        const y = b.get(k) ?? 0;
        if (x !== y) details.push(`    ${String(x).padStart(3)} -> ${String(y).padEnd(3)} ${k.length > 260 ? `${k.slice(0, 260)}…` : k}`);
      }
    }
    if (PRINT_SQL) {
      for (const [i, r] of results.entries()) {
        console.log(`-- ${c.endpoint} as ${c.viewer}, n=${LENGTHS[i]}: ${r.count} statements`);
        for (const [k, v] of summarize(r.statements)) console.log(`   ${v}x ${k}`);
      }
    }
  }
  if (PRINT_SQL) console.log('');

  printTable(['endpoint', 'viewer', ...LENGTHS.map((n) => `n=${n}`), 'trend'], rows);
  console.log('');
  if (warnings.length) {
    for (const w of warnings) console.log(w);
    console.log('');
    for (const d of details) console.log(d);
  } else {
    console.log(`OK: every statement count is the same at list lengths ${LENGTHS.join(', ')}.`);
  }
});
