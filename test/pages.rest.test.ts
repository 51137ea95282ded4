import { captureEvents, count, FORBIDDEN, ISO, NOT_FOUND, useContentRoom } from './support/content';

const env = useContentRoom();
const { sink } = env;

const pages = () => `/api/v1/courses/${env.room.course.id}/pages`;

async function page(fields: Record<string, unknown>) {
  const res = await env.room.teacher.api.post(pages(), { wiki_page: { published: true, ...fields } });
  expect(res.status).toBe(200);
  return res.body;
}

describe('POST /api/v1/courses/:course_id/pages', () => {
  it('creates a page with a slug from its title, a sanitised body and the to-do date as todo_date', async () => {
    const { result: res, events } = await captureEvents(sink, () =>
      env.room.teacher.api.post(pages(), {
        wiki_page: { title: 'Week 1: Cells & Tissues!', body: '<h2>Read</h2><script>x()</script><a href="javascript:alert(1)">bad</a>', student_todo_at: '2031-02-03T09:00:00Z', todo_date: '1999-01-01' },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      page_id: expect.any(Number),
      url: 'week-1-cells-and-tissues',
      title: 'Week 1: Cells & Tissues!',
      body: '<h2>Read</h2><a>bad</a>',
      published: false,
      hide_from_students: true,
      front_page: false,
      editing_roles: 'teachers',
      todo_date: '2031-02-03T09:00:00Z',
      created_at: expect.stringMatching(ISO),
      html_url: `${env.server.url}/courses/${env.room.course.id}/pages/week-1-cells-and-tissues`,
      last_edited_by: expect.objectContaining({ id: env.room.teacher.id, display_name: env.room.teacher.name }),
      locked_for_user: false,
    });
    expect(events).toEqual([{ type: 'content.changed', courseId: env.room.course.id, contentType: 'Page', contentId: res.body.page_id, change: 'created' }]);
  });

  it('makes titles and slugs unique with -2, -3 suffixes', async () => {
    const a = await page({ title: 'Syllabus' });
    const b = await page({ title: 'Syllabus' });
    const c = await page({ title: 'Syllabus' });
    expect([a, b, c].map((p) => [p.title, p.url])).toEqual([
      ['Syllabus', 'syllabus'],
      ['Syllabus-2', 'syllabus-2'],
      ['Syllabus-3', 'syllabus-3'],
    ]);
    const slugClash = await page({ title: 'syllabus!' });
    expect(slugClash.url).toBe('syllabus-4');
    const taken = await env.room.teacher.api.post(pages(), { wiki_page: { title: 'Syllabus-2' } });
    expect(taken.status).toBe(400);
    expect(taken.body.errors.title[0].message).toMatch(/already exists/);
  });

  it.each([
    ['no title', {}, 'title'],
    ['a title without letters or digits', { title: '!!!' }, 'title'],
    ['an unpublished front page', { title: 'Home', front_page: true, published: false }, 'front_page'],
    ['unknown editing roles', { title: 'Roles', editing_roles: 'teachers,robots' }, 'editing_roles'],
    ['a malformed to-do date', { title: 'Todo', student_todo_at: 'whenever' }, 'student_todo_at'],
  ])('answers 400 for %s and stores nothing', async (_label, fields, attr) => {
    const before = await count(env.server, 'wiki_pages');
    const res = await env.room.teacher.api.post(pages(), { wiki_page: fields });
    expect(res.status).toBe(400);
    expect(res.body.errors[attr][0].attribute).toBe(attr);
    expect(await count(env.server, 'wiki_pages')).toBe(before);
  });

  it('refuses students, observers, outsiders (403) and anonymous callers (401), storing nothing; TAs and designers may', async () => {
    const before = await count(env.server, 'wiki_pages');
    for (const who of [env.room.student, env.room.observer, env.room.outsider]) {
      const res = await who.api.post(pages(), { wiki_page: { title: 'Nope' } });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    }
    expect((await env.server.as(null).post(pages(), { wiki_page: { title: 'Nope' } })).status).toBe(401);
    expect(await count(env.server, 'wiki_pages')).toBe(before);
    expect((await env.room.ta.api.post(pages(), { wiki_page: { title: 'By TA' } })).status).toBe(200);
    expect((await env.room.designer.api.post(pages(), { wiki_page: { title: 'By designer' } })).status).toBe(200);
  });
});

describe('GET /api/v1/courses/:course_id/pages[/:url_or_id]', () => {
  let live: any;
  let draft: any;
  beforeAll(async () => {
    live = await page({ title: 'Reading List', body: '<p>books</p>' });
    draft = await env.room.teacher.api.post(pages(), { wiki_page: { title: 'Draft Notes' } }).then((r) => r.body);
  });

  it('finds a page by slug, page_id:<id> and numeric id', async () => {
    for (const key of ['reading-list', `page_id:${live.page_id}`, String(live.page_id)]) {
      const res = await env.room.teacher.api.get(`${pages()}/${encodeURIComponent(key)}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ page_id: live.page_id, body: '<p>books</p>' });
    }
    expect((await env.room.teacher.api.get(`${pages()}/no-such-page`)).body).toEqual(NOT_FOUND);
  });

  it('lists pages by title without bodies unless include[]=body, hiding drafts from students', async () => {
    const teacher = await env.room.teacher.api.get(`${pages()}?per_page=100`);
    const titles: string[] = teacher.body.map((p: any) => p.title);
    // By title, whatever the case: "By designer" comes before "By TA".
    const plain = titles.filter((t) => ['By designer', 'By TA', 'Draft Notes', 'Reading List'].includes(t));
    expect(plain).toEqual(['By designer', 'By TA', 'Draft Notes', 'Reading List']);
    expect(teacher.body[0]).not.toHaveProperty('body');
    const withBody = await env.room.teacher.api.get(`${pages()}?per_page=100&include[]=body`);
    expect(withBody.body.find((p: any) => p.page_id === live.page_id).body).toBe('<p>books</p>');
    const student = await env.room.student.api.get(`${pages()}?per_page=100`);
    expect(student.body.map((p: any) => p.title)).not.toContain('Draft Notes');
    expect(student.body.every((p: any) => p.published)).toBe(true);
    const search = await env.room.student.api.get(`${pages()}?search_term=reading`);
    expect(search.body.map((p: any) => p.title)).toEqual(['Reading List']);
    expect((await env.room.student.api.get(`${pages()}?search_term=r`)).status).toBe(400);
  });

  it('answers 404 to students for unpublished pages and 403 to outsiders', async () => {
    expect((await env.room.student.api.get(`${pages()}/${draft.url}`)).status).toBe(404);
    expect((await env.room.designer.api.get(`${pages()}/${draft.url}`)).status).toBe(200);
    expect((await env.room.outsider.api.get(`${pages()}/${live.url}`)).status).toBe(403);
    expect((await env.room.outsider.api.get(pages())).status).toBe(403);
  });

  it("records a student's view of a page; a teacher's view raises nothing", async () => {
    const { events } = await captureEvents(sink, () => env.room.student.api.get(`${pages()}/${live.url}`));
    expect(events).toEqual([{ type: 'content.viewed', courseId: env.room.course.id, userId: env.room.student.id, contentType: 'Page', contentId: live.page_id }]);
    expect((await captureEvents(sink, () => env.room.teacher.api.get(`${pages()}/${live.url}`))).events).toEqual([]);
  });
});

describe('PUT and DELETE /api/v1/courses/:course_id/pages/:url_or_id', () => {
  it('renames (moving the slug), changes the body, and clears the to-do date', async () => {
    const p = await page({ title: 'Old Name', student_todo_at: '2031-01-01T00:00:00Z' });
    const res = await env.room.teacher.api.put(`${pages()}/${p.url}`, { wiki_page: { title: 'New Name', body: '<p>v2</p>', student_planner_checkbox: '0' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page_id: p.page_id, title: 'New Name', url: 'new-name', body: '<p>v2</p>', todo_date: null });
    expect((await env.room.teacher.api.get(`${pages()}/new-name`)).status).toBe(200);
    expect((await env.room.teacher.api.get(`${pages()}/old-name`)).status).toBe(404);
  });

  it('keeps one front page, which cannot be unpublished or deleted', async () => {
    const home = await page({ title: 'Home', front_page: true });
    expect(home.front_page).toBe(true);
    const other = await page({ title: 'Welcome', front_page: 'true' });
    expect(other.front_page).toBe(true);
    expect((await env.room.teacher.api.get(`${pages()}/${home.url}`)).body.front_page).toBe(false);
    const unpublish = await env.room.teacher.api.put(`${pages()}/${other.url}`, { wiki_page: { published: false } });
    expect(unpublish.status).toBe(400);
    expect(unpublish.body.errors.published[0].message).toBe('cannot unpublish front page');
    const del = await env.room.teacher.api.delete(`${pages()}/${other.url}`);
    expect(del.status).toBe(400);
    expect(del.body).toEqual({ message: 'cannot delete front page' });
  });

  it('refuses students (403), bad input (400), and deletes softly', async () => {
    const p = await page({ title: 'Keep' });
    expect((await env.room.student.api.put(`${pages()}/${p.url}`, { wiki_page: { title: 'Hacked' } })).status).toBe(403);
    expect((await env.room.teacher.api.put(`${pages()}/${p.url}`, { wiki_page: { title: '' } })).status).toBe(400);
    expect((await env.room.teacher.api.get(`${pages()}/${p.url}`)).body.title).toBe('Keep');
    expect((await env.room.student.api.delete(`${pages()}/${p.url}`)).status).toBe(403);
    const { result: del, events } = await captureEvents(sink, () => env.room.teacher.api.delete(`${pages()}/${p.url}`));
    expect(del.status).toBe(200);
    expect(events).toEqual([{ type: 'content.changed', courseId: env.room.course.id, contentType: 'Page', contentId: p.page_id, change: 'deleted' }]);
    expect((await env.room.teacher.api.get(`${pages()}/${p.url}`)).status).toBe(404);
    // The slug is free again.
    expect((await page({ title: 'Keep' })).url).toBe('keep');
  });
});

describe('GraphQL', () => {
  it('creates and reads pages, with the same rules', async () => {
    const created = await env.room.teacher.api.graphql(
      `mutation($input: CreatePageInput!) { createPage(input: $input) { page { _id id url title published todoDate } errors { attribute type } } }`,
      { input: { courseId: String(env.room.course.id), title: 'GraphQL Page', published: true, studentTodoAt: '2031-04-01T00:00:00Z' } },
    );
    const p = created.data.createPage.page;
    expect(p).toMatchObject({ url: 'graphql-page', published: true, todoDate: '2031-04-01T00:00:00Z' });
    const read = await env.room.student.api.graphql(`query($c: ID!) { page(courseId: $c, urlOrId: "graphql-page") { title lastEditedBy { _id } } }`, { c: String(env.room.course.id) });
    expect(read.data.page).toEqual({ title: 'GraphQL Page', lastEditedBy: { _id: String(env.room.teacher.id) } });
    const node = await env.room.student.api.graphql(`query($id: ID!) { node(id: $id) { ... on Page { url } } }`, { id: p.id });
    expect(node.data.node).toEqual({ url: 'graphql-page' });
    const list = await env.room.student.api.graphql(`query($c: ID!) { course(id: $c) { pagesConnection(searchTerm: "graphql") { nodes { url } } } }`, { c: String(env.room.course.id) });
    expect(list.data.course.pagesConnection.nodes).toEqual([{ url: 'graphql-page' }]);
    const refused = await env.room.student.api.graphql(`mutation($input: CreatePageInput!) { createPage(input: $input) { page { _id } } }`, { input: { courseId: String(env.room.course.id), title: 'x' } });
    expect(refused.errors?.[0].extensions.code).toBe('FORBIDDEN');
  });
});
