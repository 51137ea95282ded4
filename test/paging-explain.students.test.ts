import { QuizSubmission } from '../src/content/quizzes/quiz-submission.entity';
import { ExplainHarness } from './support/explain';
import type { PagingWorld } from './support/paging';
import type { TestServer } from './support/server';

/**
 * Lists of a course's students (submissions, quiz submissions, module progressions) read their pages from
 * an index (the checks and how the tables are grown: test/support/explain.ts).
 */
const h = new ExplainHarness(['enrollments', 'quiz_submissions']);
let server: TestServer;
let w: PagingWorld;
const { mysql, grow, explainPages, clean, firstAndNext } = h;

beforeAll(async () => {
  ({ server, w } = await h.start());
  await grow('enrollments', 'course_id', 40);
  await h.analyze();
}, 600_000);
afterAll(() => h.close());

// ---- lists of a course's students: submissions, quiz submissions, module progressions ------------------

describe('student lists', () => {
  let assignment: number;
  let quiz: number;
  let mod: number;
  beforeAll(async () => {
    const api = w.teacher.api;
    const cid = w.course.id;
    const created = async (path: string, body: Record<string, unknown>) => {
      const res = await api.post(path, body);
      if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.id as number;
    };
    assignment = await created(`/api/v1/courses/${cid}/assignments`, { assignment: { name: 'Essay', submission_types: ['online_text_entry'], published: true } });
    quiz = await created(`/api/v1/courses/${cid}/quizzes`, { quiz: { title: 'Quiz', published: true } });
    mod = await created(`/api/v1/courses/${cid}/modules`, { module: { name: 'Week 1' } });
    await api.put(`/api/v1/courses/${cid}/modules/${mod}`, { module: { published: true } });
    // Every student's quiz submission, written directly (the list reads them; taking the quiz is another test's).
    const ds = server.app.ds;
    const now = new Date();
    await ds.getRepository(QuizSubmission).insert(w.students.map((userId) => ({ quizId: quiz, userId, attempt: 1, workflowState: 'complete', wasPreview: false, createdAt: now, updatedAt: now }) as never));
    await grow('quiz_submissions', 'quiz_id', 40);
    if (mysql()) await ds.query('ANALYZE TABLE enrollments, quiz_submissions');
    else await ds.query('ANALYZE');
  }, 300_000);

  it.each([
    ['enrollments', 'an assignment\'s submissions', () => `/api/v1/courses/${w.course.id}/assignments/${assignment}/submissions?per_page=10`],
    ['quiz_submissions', 'a quiz\'s submissions', () => `/api/v1/courses/${w.course.id}/quizzes/${quiz}/submissions?per_page=10`],
  ])('%s: %s reads its pages from an index', async (table, _label, path) => {
    for (const request of await firstAndNext(path())) clean(await explainPages(table, request));
  });

  it.each([
    ['enrollments', 'assignment', () => `query($after: String) { assignment(id: "${assignment}", courseId: "${w.course.id}") { submissionsConnection(first: 10, after: $after) { nodes { _id } pageInfo { endCursor } } } }`, 'assignment.submissionsConnection'],
    ['enrollments', 'module', () => `query($after: String) { module(courseId: "${w.course.id}", id: "${mod}") { progressionsConnection(first: 10, after: $after) { nodes { userId } pageInfo { endCursor } } } }`, 'module.progressionsConnection'],
  ])('%s: GraphQL %s list by key set cursor (a deep cursor) reads from an index', async (table, _label, query, root) => {
    const at = (res: any) => root.split('.').reduce((o: any, k) => o?.[k], res.data);
    const first = await w.teacher.api.graphql(query());
    const second = await w.teacher.api.graphql(query(), { after: at(first).pageInfo.endCursor });
    const after = at(second).pageInfo.endCursor;
    expect(after).toBeTruthy();
    clean(await explainPages(table, () => w.teacher.api.graphql(query(), { after })));
  });
});
