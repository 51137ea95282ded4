import { blackoutDateRoutes } from '../src/blackout-dates/blackout-date.routes';
import { assignmentRoutes } from '../src/content/assignments/assignment.routes';
import { externalToolRoutes } from '../src/content/external-tools/external-tool.routes';
import { pageRoutes } from '../src/content/pages/page.routes';
import { quizRoutes } from '../src/content/quizzes/quiz.routes';
import { submissionRoutes } from '../src/content/submissions/submission.routes';
import { quizExtensionRoutes } from '../src/quiz-extensions/quiz-extension.routes';
import type { Api } from './support/api';
import { useContentRoom } from './support/content';

/*
 * Declared input of the content routes (assignments, pages, quizzes, submissions, external tools),
 * blackout dates and quiz extensions: every row refuses a hostile shape (an object or a list where a
 * scalar belongs, a word where a boolean belongs, an over-long value, a word outside an enumeration)
 * with 400 naming the field, and a malformed path id with 404, before anything is read or stored.
 */

const env = useContentRoom();

/** Every row of the tables these routes write, and the events they raise: proof that nothing changed. */
const TABLES = ['assignments', 'wiki_pages', 'quizzes', 'quiz_submissions', 'submissions', 'context_external_tools', 'blackout_dates', 'outbox_messages'];
async function fingerprint(): Promise<string> {
  const out: unknown[] = [];
  for (const t of TABLES) out.push(await env.server.app.ds.query(`SELECT * FROM ${t} ORDER BY id`));
  return JSON.stringify(out);
}

interface Fixtures {
  assignment: number;
  page: string;
  quiz: number;
  quizSubmission: number;
  tool: number;
  blackout: number;
}
const f = {} as Fixtures;

beforeAll(async () => {
  const { teacher, student } = env.room;
  const c = `/api/v1/courses/${env.room.course.id}`;
  const ok = <T>(res: { status: number; body: T }): T => {
    expect([200, 201]).toContain(res.status);
    return res.body;
  };
  f.assignment = ok(await teacher.api.post(`${c}/assignments`, { assignment: { name: 'Declared', published: true, submission_types: ['online_text_entry'] } })).id;
  ok(await student.api.post(`${c}/assignments/${f.assignment}/submissions`, { submission: { submission_type: 'online_text_entry', body: 'mine' } }));
  f.page = ok(await teacher.api.post(`${c}/pages`, { wiki_page: { title: 'Declared page', published: true } })).url;
  f.quiz = ok(await teacher.api.post(`${c}/quizzes`, { quiz: { title: 'Declared quiz', published: true } })).id;
  f.quizSubmission = ok(await student.api.post(`${c}/quizzes/${f.quiz}/submissions`, {})).quiz_submissions[0].id;
  f.tool = ok(await teacher.api.post(`${c}/external_tools`, { name: 'Declared tool', url: 'https://tool.example.com' })).id;
  f.blackout = ok(await teacher.api.post(`${c}/blackout_dates`, { blackout_date: { start_date: '2031-01-01', end_date: '2031-01-02', event_title: 'Declared' } })).blackout_date.id;
});

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
interface Case {
  /** The route, as its row's method and path. */
  route: string;
  label: string;
  method: Method;
  path: () => string;
  body?: Record<string, unknown>;
  json?: boolean;
  /** The field the 400 names; absent for a 404 (malformed path id). */
  field?: string;
  type?: string;
  /** The caller; the course's teacher unless given. */
  who?: () => Api;
}

const course = () => `/api/v1/courses/${env.room.course.id}`;
const long = (n: number) => 'x'.repeat(n);

const cases: Case[] = [
  // ---- assignments ----
  { route: 'POST /assignments', label: 'an object for the name', method: 'POST', path: () => `${course()}/assignments`, body: { assignment: { name: { first: 'a' } } }, field: 'assignment[name]' },
  { route: 'POST /assignments', label: 'a word for published', method: 'POST', path: () => `${course()}/assignments`, body: { assignment: { name: 'X', published: 'maybe' } }, field: 'assignment[published]' },
  { route: 'POST /assignments', label: 'a scalar for the assignment hash', method: 'POST', path: () => `${course()}/assignments`, body: { assignment: 'Essay' }, field: 'assignment' },
  { route: 'POST /assignments', label: 'an over-long description', method: 'POST', path: () => `${course()}/assignments`, body: { assignment: { name: 'X', description: long(65_536) } }, json: true, field: 'assignment[description]', type: 'too_long' },
  { route: 'POST /assignments', label: 'an object in submission_types', method: 'POST', path: () => `${course()}/assignments`, body: { assignment: { name: 'X', submission_types: [{ t: 'online_url' }] } }, json: true, field: 'assignment[submission_types][]' },
  { route: 'GET /assignments', label: 'an object for per_page', method: 'GET', path: () => `${course()}/assignments?per_page[x]=1`, field: 'per_page' },
  { route: 'GET /assignments', label: 'a malformed course id', method: 'GET', path: () => '/api/v1/courses/1x/assignments' },
  { route: 'GET /assignments', label: 'an SIS id that is not percent-decodable', method: 'GET', path: () => '/api/v1/courses/sis_course_id:100%25/assignments' },
  { route: 'GET /assignments/:id', label: 'a malformed id', method: 'GET', path: () => `${course()}/assignments/1.5` },
  { route: 'PUT /assignments/:id', label: 'a word for published', method: 'PUT', path: () => `${course()}/assignments/${f.assignment}`, body: { assignment: { published: 'sometimes' } }, field: 'assignment[published]' },
  { route: 'PUT /assignments/:id', label: 'a list for the name', method: 'PUT', path: () => `${course()}/assignments/${f.assignment}`, body: { assignment: { name: ['a', 'b'] } }, field: 'assignment[name]' },
  { route: 'DELETE /assignments/:id', label: 'a malformed id', method: 'DELETE', path: () => `${course()}/assignments/${f.assignment}x` },

  // ---- pages ----
  { route: 'POST /pages', label: 'a list for the title', method: 'POST', path: () => `${course()}/pages`, body: { wiki_page: { title: ['a', 'b'] } }, field: 'wiki_page[title]' },
  { route: 'POST /pages', label: 'a word for front_page', method: 'POST', path: () => `${course()}/pages`, body: { wiki_page: { title: 'X', front_page: 'perhaps' } }, field: 'wiki_page[front_page]' },
  { route: 'POST /pages', label: 'an over-long body', method: 'POST', path: () => `${course()}/pages`, body: { wiki_page: { title: 'X', body: long(65_536) } }, json: true, field: 'wiki_page[body]', type: 'too_long' },
  { route: 'GET /pages', label: 'an unknown sort', method: 'GET', path: () => `${course()}/pages?sort=random`, field: 'sort', type: 'inclusion' },
  { route: 'GET /pages', label: 'a word for published', method: 'GET', path: () => `${course()}/pages?published=perhaps`, field: 'published' },
  { route: 'GET /pages', label: 'a list for search_term', method: 'GET', path: () => `${course()}/pages?search_term[]=ab`, field: 'search_term' },
  { route: 'GET /pages/:url_or_id', label: 'a malformed percent-escape', method: 'GET', path: () => `${course()}/pages/100%25` },
  { route: 'PUT /pages/:url_or_id', label: 'a word for published', method: 'PUT', path: () => `${course()}/pages/${f.page}`, body: { wiki_page: { published: 'later' } }, field: 'wiki_page[published]' },
  { route: 'PUT /pages/:url_or_id', label: 'an object for editing_roles', method: 'PUT', path: () => `${course()}/pages/${f.page}`, body: { wiki_page: { editing_roles: { teachers: 1 } } }, field: 'wiki_page[editing_roles]' },
  { route: 'DELETE /pages/:url_or_id', label: 'a malformed percent-escape', method: 'DELETE', path: () => `${course()}/pages/%25E0%25A4%25A` },

  // ---- quizzes ----
  { route: 'POST /quizzes', label: 'a word for shuffle_answers', method: 'POST', path: () => `${course()}/quizzes`, body: { quiz: { title: 'Q', shuffle_answers: 'kinda' } }, field: 'quiz[shuffle_answers]' },
  { route: 'POST /quizzes', label: 'an object for the title', method: 'POST', path: () => `${course()}/quizzes`, body: { quiz: { title: { a: 'b' } } }, field: 'quiz[title]' },
  { route: 'POST /quizzes', label: 'an over-long access code', method: 'POST', path: () => `${course()}/quizzes`, body: { quiz: { title: 'Q', access_code: long(256) } }, field: 'quiz[access_code]', type: 'too_long' },
  { route: 'GET /quizzes', label: 'a malformed course id', method: 'GET', path: () => '/api/v1/courses/abc/quizzes' },
  { route: 'GET /quizzes/:id', label: 'a malformed id', method: 'GET', path: () => `${course()}/quizzes/-1` },
  { route: 'PUT /quizzes/:id', label: 'a word for published', method: 'PUT', path: () => `${course()}/quizzes/${f.quiz}`, body: { quiz: { published: 'soon' } }, field: 'quiz[published]' },
  { route: 'PUT /quizzes/:id', label: 'a list for the time limit', method: 'PUT', path: () => `${course()}/quizzes/${f.quiz}`, body: { quiz: { time_limit: [10, 20] } }, json: true, field: 'quiz[time_limit]' },
  { route: 'DELETE /quizzes/:id', label: 'a malformed id', method: 'DELETE', path: () => `${course()}/quizzes/${f.quiz}.0` },
  { route: 'POST /quizzes/:quiz_id/submissions', label: 'a word for preview', method: 'POST', path: () => `${course()}/quizzes/${f.quiz}/submissions`, body: { preview: 'maybe' }, field: 'preview', who: () => env.room.student2.api },
  { route: 'POST /quizzes/:quiz_id/submissions', label: 'an object for the access code', method: 'POST', path: () => `${course()}/quizzes/${f.quiz}/submissions`, body: { access_code: { a: 1 } }, field: 'access_code', who: () => env.room.student2.api },
  { route: 'GET /quizzes/:quiz_id/submissions', label: 'a malformed quiz id', method: 'GET', path: () => `${course()}/quizzes/q${f.quiz}/submissions` },
  { route: 'GET /quizzes/:quiz_id/submissions/:id', label: 'a malformed id', method: 'GET', path: () => `${course()}/quizzes/${f.quiz}/submissions/self` },
  { route: 'POST …/submissions/:id/complete', label: 'a list for the validation token', method: 'POST', path: () => `${course()}/quizzes/${f.quiz}/submissions/${f.quizSubmission}/complete`, body: { attempt: 1, validation_token: ['a', 'b'] }, field: 'validation_token', who: () => env.room.student.api },
  { route: 'POST …/submissions/:id/complete', label: 'an object for the attempt', method: 'POST', path: () => `${course()}/quizzes/${f.quiz}/submissions/${f.quizSubmission}/complete`, body: { attempt: { n: 1 } }, field: 'attempt', who: () => env.room.student.api },
  { route: 'PUT /quizzes/:quiz_id/submissions/:id', label: 'a list for fudge points', method: 'PUT', path: () => `${course()}/quizzes/${f.quiz}/submissions/${f.quizSubmission}`, body: { quiz_submissions: [{ attempt: 1, fudge_points: [1, 2] }] }, json: true, field: 'quiz_submissions[][fudge_points]' },
  { route: 'PUT /quizzes/:quiz_id/submissions/:id', label: 'an object for a question score', method: 'PUT', path: () => `${course()}/quizzes/${f.quiz}/submissions/${f.quizSubmission}`, body: { quiz_submissions: [{ attempt: 1, questions: { '7': { score: { x: 1 } } } }] }, json: true, field: 'quiz_submissions[][questions][][score]' },

  // ---- submissions ----
  { route: 'POST /assignments/:assignment_id/submissions', label: 'an object for the body', method: 'POST', path: () => `${course()}/assignments/${f.assignment}/submissions`, body: { submission: { submission_type: 'online_text_entry', body: { html: 'x' } } }, field: 'submission[body]', who: () => env.room.student2.api },
  { route: 'POST /assignments/:assignment_id/submissions', label: 'a word among the file ids', method: 'POST', path: () => `${course()}/assignments/${f.assignment}/submissions`, body: { submission: { submission_type: 'online_upload', file_ids: ['abc'] } }, field: 'submission[file_ids][]', who: () => env.room.student2.api },
  { route: 'POST /assignments/:assignment_id/submissions', label: 'an over-long url', method: 'POST', path: () => `${course()}/assignments/${f.assignment}/submissions`, body: { submission: { submission_type: 'online_url', url: `https://example.com/${long(2048)}` } }, field: 'submission[url]', type: 'too_long', who: () => env.room.student2.api },
  { route: 'GET /assignments/:assignment_id/submissions', label: 'an unknown workflow state', method: 'GET', path: () => `${course()}/assignments/${f.assignment}/submissions?workflow_state=lost`, field: 'workflow_state', type: 'inclusion' },
  { route: 'GET /assignments/:assignment_id/submissions/:user_id', label: 'a malformed user id', method: 'GET', path: () => `${course()}/assignments/${f.assignment}/submissions/nobody` },
  { route: 'PUT /assignments/:assignment_id/submissions/:user_id', label: 'a word for excuse', method: 'PUT', path: () => `${course()}/assignments/${f.assignment}/submissions/${env.room.student.id}`, body: { submission: { excuse: 'perhaps' } }, field: 'submission[excuse]' },
  { route: 'PUT /assignments/:assignment_id/submissions/:user_id', label: 'a list for the grade', method: 'PUT', path: () => `${course()}/assignments/${f.assignment}/submissions/${env.room.student.id}`, body: { submission: { posted_grade: ['A', 'B'] } }, field: 'submission[posted_grade]' },

  // ---- external tools ----
  { route: 'POST /external_tools', label: 'an unknown privacy level', method: 'POST', path: () => `${course()}/external_tools`, body: { name: 'T', url: 'https://t.example.com', privacy_level: 'everyone' }, field: 'privacy_level', type: 'inclusion' },
  { route: 'POST /external_tools', label: 'a scalar for custom_fields', method: 'POST', path: () => `${course()}/external_tools`, body: { name: 'T', url: 'https://t.example.com', custom_fields: 'a=b' }, field: 'custom_fields' },
  { route: 'POST /external_tools', label: 'an over-long consumer key', method: 'POST', path: () => `${course()}/external_tools`, body: { name: 'T', url: 'https://t.example.com', consumer_key: long(256) }, field: 'consumer_key', type: 'too_long' },
  { route: 'GET /external_tools', label: 'an object for per_page', method: 'GET', path: () => `${course()}/external_tools?per_page[a]=1`, field: 'per_page' },
  { route: 'GET /external_tools/:id', label: 'a malformed id', method: 'GET', path: () => `${course()}/external_tools/tool` },
  { route: 'PUT /external_tools/:id', label: 'a nested custom field', method: 'PUT', path: () => `${course()}/external_tools/${f.tool}`, body: { custom_fields: { a: { b: 'c' } } }, field: 'custom_fields[a]' },
  { route: 'PUT /external_tools/:id', label: 'an object for the name', method: 'PUT', path: () => `${course()}/external_tools/${f.tool}`, body: { name: { n: 1 } }, field: 'name' },
  { route: 'DELETE /external_tools/:id', label: 'a malformed id', method: 'DELETE', path: () => `${course()}/external_tools/${f.tool}e0` },

  // ---- blackout dates (course and account prefixes) ----
  { route: 'GET /courses/:course_id/blackout_dates', label: 'a malformed course id', method: 'GET', path: () => '/api/v1/courses/x1/blackout_dates' },
  { route: 'GET /accounts/:account_id/blackout_dates', label: 'a malformed account id', method: 'GET', path: () => '/api/v1/accounts/root/blackout_dates' },
  { route: 'GET /courses/:course_id/blackout_dates/new', label: 'a malformed course id', method: 'GET', path: () => '/api/v1/courses/one/blackout_dates/new' },
  { route: 'GET /accounts/:account_id/blackout_dates/new', label: 'an object for per_page', method: 'GET', path: () => '/api/v1/accounts/self/blackout_dates/new?per_page[x]=1', field: 'per_page' },
  { route: 'GET /courses/:course_id/blackout_dates/:id', label: 'a malformed id', method: 'GET', path: () => `${course()}/blackout_dates/${f.blackout}z` },
  { route: 'GET /accounts/:account_id/blackout_dates/:id', label: 'a malformed id', method: 'GET', path: () => '/api/v1/accounts/self/blackout_dates/-5' },
  { route: 'POST /courses/:course_id/blackout_dates', label: 'an object for the title', method: 'POST', path: () => `${course()}/blackout_dates`, body: { blackout_date: { start_date: '2031-02-01', end_date: '2031-02-01', event_title: { x: 1 } } }, field: 'blackout_date[event_title]' },
  { route: 'POST /courses/:course_id/blackout_dates', label: 'a scalar for the blackout_date hash', method: 'POST', path: () => `${course()}/blackout_dates`, body: { blackout_date: '2031-02-01' }, field: 'blackout_date' },
  { route: 'POST /courses/:course_id/blackout_dates', label: 'a list for a top-level date', method: 'POST', path: () => `${course()}/blackout_dates`, body: { start_date: ['2031-02-01'], end_date: '2031-02-01', event_title: 'X' }, field: 'start_date' },
  { route: 'POST /accounts/:account_id/blackout_dates', label: 'an over-long title', method: 'POST', path: () => '/api/v1/accounts/self/blackout_dates', body: { start_date: '2031-02-01', end_date: '2031-02-01', event_title: long(4097) }, field: 'event_title', type: 'too_long', who: () => env.server.admin },
  { route: 'PUT /courses/:course_id/blackout_dates/:id', label: 'a list for the end date', method: 'PUT', path: () => `${course()}/blackout_dates/${f.blackout}`, body: { blackout_date: { end_date: ['2031-03-01', '2031-03-02'] } }, field: 'blackout_date[end_date]' },
  { route: 'PUT /accounts/:account_id/blackout_dates/:id', label: 'a malformed id', method: 'PUT', path: () => '/api/v1/accounts/self/blackout_dates/1e3', body: { event_title: 'X' } },
  { route: 'DELETE /courses/:course_id/blackout_dates/:id', label: 'a malformed id', method: 'DELETE', path: () => `${course()}/blackout_dates/${f.blackout}.5` },
  { route: 'DELETE /accounts/:account_id/blackout_dates/:id', label: 'a malformed account id', method: 'DELETE', path: () => '/api/v1/accounts/-1/blackout_dates/1' },
  { route: 'PUT /courses/:course_id/blackout_dates', label: 'an object for an entry title', method: 'PUT', path: () => `${course()}/blackout_dates`, body: { blackout_dates: [{ start_date: '2031-04-01', end_date: '2031-04-01', event_title: { x: 1 } }] }, json: true, field: 'blackout_dates[][event_title]' },
  { route: 'PUT /courses/:course_id/blackout_dates', label: 'a list for an entry id', method: 'PUT', path: () => `${course()}/blackout_dates`, body: { blackout_dates: [{ id: [1, 2], start_date: '2031-04-01', end_date: '2031-04-01', event_title: 'X' }] }, json: true, field: 'blackout_dates[][id]' },

  // ---- course quiz extensions ----
  { route: 'POST /quiz_extensions', label: 'a list for extra_time', method: 'POST', path: () => `${course()}/quiz_extensions`, body: { quiz_extensions: [{ user_id: 1, extra_time: [5] }] }, json: true, field: 'quiz_extensions[][extra_time]' },
  { route: 'POST /quiz_extensions', label: 'an over-long value', method: 'POST', path: () => `${course()}/quiz_extensions`, body: { quiz_extensions: [{ user_id: 1, extra_attempts: '1'.repeat(65) }] }, json: true, field: 'quiz_extensions[][extra_attempts]', type: 'too_long' },
  { route: 'POST /quiz_extensions', label: 'a malformed course id', method: 'POST', path: () => '/api/v1/courses/sis:1/quiz_extensions', body: { quiz_extensions: [] }, json: true },
];

describe('declared input of the content, blackout-date and quiz-extension routes', () => {
  it.each(cases.map((c) => [`${c.route}: ${c.label}`, c] as const))('%s', async (_name, c) => {
    const before = await fingerprint();
    const api = c.who ? c.who() : env.room.teacher.api;
    const res = await api.request(c.method, c.path(), c.body, { json: c.json });
    expect(res.headers.get('content-type')).toContain('application/json');
    if (c.field) {
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors)).toEqual([c.field]);
      expect(res.body.errors[c.field][0]).toMatchObject({ attribute: c.field, type: c.type ?? expect.any(String), message: expect.stringContaining(c.field) });
    } else {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ errors: [{ message: 'The specified resource does not exist.' }] });
    }
    expect(await fingerprint()).toBe(before);
  });

  it('covers every row of these route files', () => {
    const rows = [...assignmentRoutes, ...pageRoutes, ...quizRoutes, ...submissionRoutes, ...externalToolRoutes, ...blackoutDateRoutes, ...quizExtensionRoutes];
    expect(rows.filter((r) => !r.accepts).map((r) => `${r.method} ${r.path}`)).toEqual([]);
    expect(new Set(cases.map((c) => c.route)).size).toBe(rows.length);
  });

  // Within the declared characters, what is stored can still outgrow a TEXT column (65,535 bytes on
  // MySQL): escaping lengthens HTML and an emoji is four bytes. The services answer 400, not a 500.
  const escapes = '<'.repeat(60_000);
  const emoji = '😀'.repeat(20_000);
  it.each([
    ['an assignment description that grows when escaped', 'POST', () => `${course()}/assignments`, { assignment: { name: 'Long', description: escapes } }, 'description'],
    ['a quiz description of four-byte characters', 'POST', () => `${course()}/quizzes`, { quiz: { title: 'Long', description: emoji } }, 'description'],
    ['a tool description of four-byte characters', 'PUT', () => `${course()}/external_tools/${f.tool}`, { description: emoji }, 'description'],
    ['custom fields whose JSON outgrows the column', 'PUT', () => `${course()}/external_tools/${f.tool}`, { custom_fields: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, '€'.repeat(1_000)])) }, 'custom_fields'],
    ['a page body that grows when escaped', 'PUT', () => `${course()}/pages/${f.page}`, { wiki_page: { body: escapes } }, 'body'],
  ] as const)('refuses %s with 400 too_long, storing nothing', async (_label, method, path, body, attr) => {
    const before = await fingerprint();
    const res = await env.room.teacher.api.request(method, path(), body, { json: true });
    expect(res.status).toBe(400);
    expect(res.body.errors[attr][0]).toMatchObject({ attribute: attr, type: 'too_long' });
    expect(await fingerprint()).toBe(before);
  });

  it("refuses a submission body that would outgrow its column with 400, storing nothing", async () => {
    const before = await fingerprint();
    const res = await env.room.student2.api.post(`${course()}/assignments/${f.assignment}/submissions`, { submission: { submission_type: 'online_text_entry', body: escapes } }, { json: true });
    expect(res.status).toBe(400);
    expect(res.body.errors.body[0]).toMatchObject({ attribute: 'body', type: 'too_long' });
    expect(await fingerprint()).toBe(before);
  });

  it('answers NOT_FOUND through GraphQL too for ids and page urls whose percent-escapes are malformed', async () => {
    const course = await env.room.teacher.api.graphql(`query { course(id: "sis_course_id:100%") { _id } }`);
    expect(course.errors?.[0].extensions.code).toBe('NOT_FOUND');
    const page = await env.room.teacher.api.graphql(`query($c: ID!) { page(courseId: $c, urlOrId: "%E0%A4%A") { _id } }`, { c: String(env.room.course.id) });
    expect(page.errors?.[0].extensions.code).toBe('NOT_FOUND');
  });

  it('still takes legitimate Canvas input: JSON nulls clear, booleans as words, lists as x[]', async () => {
    const a = `${course()}/assignments/${f.assignment}`;
    const cleared = await env.room.teacher.api.put(a, { assignment: { due_at: null, points_possible: null, description: null, published: 'on' } }, { json: true });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ due_at: null, points_possible: null, description: null, published: true });
    const listed = await env.room.teacher.api.get(`${course()}/assignments/${f.assignment}/submissions?workflow_state[]=submitted&workflow_state[]=graded`);
    expect(listed.status).toBe(200);
    const pages = await env.room.teacher.api.get(`${course()}/pages?sort=created_at&order=desc&published=true&include[]=body`);
    expect(pages.status).toBe(200);
  });
});
