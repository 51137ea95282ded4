import { FORBIDDEN, moduleTables, ModulesKit, NOT_FOUND, ok, UNAUTHENTICATED, startModulesWorld } from './support/modules';
import type { TestServer } from './support/server';
import type { World } from './support/world';

/** Module items: every type with its Canvas keys, positions, requirements, visibility, refusals. */

let server: TestServer;
let world: World;
let kit: ModulesKit;
let content: { assignment: any; quiz: any; page: any; topic: any; file: any; tool: any };
beforeAll(async () => {
  ({ server, world, kit } = await startModulesWorld());
  content = {
    assignment: await kit.assignment({ name: 'Essay', due_at: '2031-05-01T12:00:00Z' }),
    quiz: await kit.quiz({ title: 'Check-in' }),
    page: await kit.page({ title: 'Course Overview' }),
    topic: await kit.discussion({ title: 'Introductions' }),
    file: await kit.file('syllabus.txt'),
    tool: await kit.tool({ name: 'Lab Sim' }),
  };
});
afterAll(() => server.close());

const sorted = (o: object) => Object.keys(o).sort();
const BASE_KEYS = ['id', 'module_id', 'position', 'title', 'indent', 'type', 'published'];

describe('POST …/modules/:module_id/items: every item type, with its Canvas keys', () => {
  let m: any;
  beforeAll(async () => {
    m = await kit.module({ name: 'All types' });
  });
  const cid = () => kit.cid;
  const htmlUrl = (id: number) => `${server.url}/courses/${cid()}/modules/items/${id}`;

  it('Assignment: content_id, title from the assignment, html_url and API url; published as the assignment is', async () => {
    const res = await kit.teacher.post(kit.items(m.id), { module_item: { type: 'Assignment', content_id: content.assignment.id } });
    expect(res.status).toBe(200);
    expect(sorted(res.body)).toEqual([...BASE_KEYS, 'content_id', 'html_url', 'url'].sort());
    expect(res.body).toEqual({
      id: expect.any(Number),
      module_id: m.id,
      position: 1,
      title: 'Essay',
      indent: 0,
      type: 'Assignment',
      content_id: content.assignment.id,
      html_url: htmlUrl(res.body.id),
      url: `${server.url}/api/v1/courses/${cid()}/assignments/${content.assignment.id}`,
      published: true,
    });
  });

  it('Quiz, Discussion and File: content_id and their API urls', async () => {
    const quiz = ok(await kit.teacher.post(kit.items(m.id), { module_item: { type: 'Quiz', content_id: content.quiz.id, title: 'Weekly check' } }));
    expect(quiz).toMatchObject({ type: 'Quiz', title: 'Weekly check', content_id: content.quiz.id, url: `${server.url}/api/v1/courses/${cid()}/quizzes/${content.quiz.id}`, html_url: htmlUrl(quiz.id) });
    const topic = ok(await kit.teacher.post(kit.items(m.id), { module_item: { type: 'discussion_topic', content_id: content.topic.id } }));
    expect(topic).toMatchObject({ type: 'Discussion', title: 'Introductions', content_id: content.topic.id, url: `${server.url}/api/v1/courses/${cid()}/discussion_topics/${content.topic.id}`, published: true });
    const file = ok(await kit.teacher.post(kit.items(m.id), { module_item: { type: 'attachment', content_id: content.file.id } }));
    expect(file).toMatchObject({ type: 'File', title: 'syllabus.txt', content_id: content.file.id, url: `${server.url}/api/v1/courses/${cid()}/files/${content.file.id}`, html_url: htmlUrl(file.id) });
    for (const item of [quiz, topic, file]) expect(sorted(item)).toEqual([...BASE_KEYS, 'content_id', 'html_url', 'url'].sort());
  });

  it('Page: addressed by page_url; page_url and url but no content_id', async () => {
    const res = await kit.teacher.post(kit.items(m.id), { module_item: { type: 'Page', page_url: content.page.url, content_id: '12345' } });
    expect(res.status).toBe(200);
    expect(sorted(res.body)).toEqual([...BASE_KEYS, 'html_url', 'url', 'page_url'].sort());
    expect(res.body).toMatchObject({ type: 'Page', title: 'Course Overview', page_url: content.page.url, url: `${server.url}/api/v1/courses/${cid()}/pages/${content.page.url}` });
    const alias = ok(await kit.teacher.post(kit.items(m.id), { module_item: { type: 'wiki_page', page_url: content.page.url, title: 'Again' } }));
    expect(alias).toMatchObject({ type: 'Page', title: 'Again' });
  });

  it('ExternalUrl: external_url and the module_item_redirect html_url; no url, content_id or new_tab; starts unpublished', async () => {
    const res = await kit.teacher.post(kit.items(m.id), { module_item: { type: 'ExternalUrl', external_url: 'https://example.com/reading', title: 'Reading', new_tab: true, indent: 2 } });
    expect(res.status).toBe(200);
    expect(sorted(res.body)).toEqual([...BASE_KEYS, 'html_url', 'external_url'].sort());
    expect(res.body).toMatchObject({
      type: 'ExternalUrl',
      title: 'Reading',
      indent: 2,
      external_url: 'https://example.com/reading',
      html_url: `${server.url}/api/v1/courses/${cid()}/module_item_redirect/${res.body.id}`,
      published: false,
    });
    // Without a title, the URL names it.
    expect(ok(await kit.teacher.post(kit.items(m.id), { module_item: { type: 'external_url', external_url: 'https://example.org/' } })).title).toBe('https://example.org/');
  });

  it('ExternalTool: content_id, external_url, new_tab and a sessionless launch url; starts unpublished', async () => {
    const res = await kit.teacher.post(kit.items(m.id), {
      module_item: { type: 'ExternalTool', content_id: content.tool.id, external_url: 'https://lab.example.com/launch?x=1', new_tab: 'true', iframe: { width: 800, height: 600 } },
    });
    expect(res.status).toBe(200);
    expect(sorted(res.body)).toEqual([...BASE_KEYS, 'content_id', 'html_url', 'url', 'external_url', 'new_tab'].sort());
    expect(res.body).toMatchObject({
      type: 'ExternalTool',
      title: 'Lab Sim',
      content_id: content.tool.id,
      external_url: 'https://lab.example.com/launch?x=1',
      new_tab: true,
      published: false,
      html_url: htmlUrl(res.body.id),
    });
    expect(res.body.url).toBe(`${server.url}/api/v1/courses/${cid()}/external_tools/sessionless_launch?id=${content.tool.id}&url=${encodeURIComponent('https://lab.example.com/launch')}`);
    const noTab = ok(await kit.teacher.post(kit.items(m.id), { module_item: { type: 'external_tool', content_id: content.tool.id, external_url: 'https://lab.example.com/b' } }));
    expect(noTab.new_tab).toBeNull();
  });

  it('SubHeader: a title only (no html_url, no url); starts unpublished', async () => {
    const res = await kit.teacher.post(kit.items(m.id), { module_item: { type: 'context_module_sub_header', title: 'Part two' } });
    expect(res.status).toBe(200);
    expect(sorted(res.body)).toEqual([...BASE_KEYS].sort());
    expect(res.body).toMatchObject({ type: 'SubHeader', title: 'Part two', published: false });
  });

  it('lists them in position order with 1-based dense positions', async () => {
    const items = ok(await kit.teacher.get(`${kit.items(m.id)}?per_page=50`));
    expect(items.map((i: any) => i.position)).toEqual(items.map((_: any, i: number) => i + 1));
    expect(items.map((i: any) => i.type)).toEqual(['Assignment', 'Quiz', 'Discussion', 'File', 'Page', 'Page', 'ExternalUrl', 'ExternalUrl', 'ExternalTool', 'ExternalTool', 'SubHeader']);
    expect(ok(await kit.teacher.get(`${kit.items(m.id)}?search_term=check`)).map((i: any) => i.title)).toEqual(['Weekly check']);
    expect((await kit.teacher.get(`${kit.items(m.id)}?search_term=c`)).status).toBe(400);
    const show = ok(await kit.teacher.get(kit.item(m.id, items[0].id)));
    expect(show).toEqual(items[0]);
  });
});

describe('positions', () => {
  const titles = async (k: ModulesKit, moduleId: number) => ok(await k.teacher.get(k.items(moduleId))).map((i: any) => `${i.title}${i.position}`);

  it('creates at a position and renumbers the siblings after it; appends by default', async () => {
    const k = await kit.sibling(world);
    const m = await k.module();
    for (const t of ['A', 'B', 'C']) await k.addItem(m.id, { type: 'SubHeader', title: t });
    const d = await k.addItem(m.id, { type: 'SubHeader', title: 'D', position: 1 });
    expect(d.position).toBe(1);
    expect(await titles(k, m.id)).toEqual(['D1', 'A2', 'B3', 'C4']);
    expect((await k.addItem(m.id, { type: 'SubHeader', title: 'E', position: 50 })).position).toBe(5);
  });

  it('moves an item with list semantics, and renumbers after a delete', async () => {
    const k = await kit.sibling(world);
    const m = await k.module();
    const items: any[] = [];
    for (const t of ['A', 'B', 'C', 'D', 'E', 'F']) items.push(await k.addItem(m.id, { type: 'SubHeader', title: t }));
    expect(ok(await k.teacher.put(k.item(m.id, items[0].id), { module_item: { position: 2 } })).position).toBe(2);
    expect(await titles(k, m.id)).toEqual(['B1', 'A2', 'C3', 'D4', 'E5', 'F6']);
    ok(await k.teacher.put(k.item(m.id, items[0].id), { module_item: { position: 4 } }));
    expect(await titles(k, m.id)).toEqual(['B1', 'C2', 'D3', 'A4', 'E5', 'F6']);
    ok(await k.teacher.put(k.item(m.id, items[5].id), { module_item: { position: 1 } }));
    expect(await titles(k, m.id)).toEqual(['F1', 'B2', 'C3', 'D4', 'A5', 'E6']);
    const del = await k.teacher.delete(k.item(m.id, items[2].id));
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ id: items[2].id, title: 'C' });
    expect(await titles(k, m.id)).toEqual(['F1', 'B2', 'D3', 'A4', 'E5']);
    expect(await k.teacher.get(k.item(m.id, items[2].id))).toMatchObject({ status: 404 });
  });

  it('moves an item to another module of the course (appended, or at a position), with its requirement', async () => {
    const k = await kit.sibling(world);
    const assignment = await k.assignment();
    const from = await k.module({ name: 'From' });
    const to = await k.module({ name: 'To' });
    const a = await k.addItem(from.id, { type: 'SubHeader', title: 'A' });
    const moving = await k.addItem(from.id, { type: 'Assignment', content_id: assignment.id, title: 'Moving', completion_requirement: { type: 'min_score', min_score: 7 } });
    const c = await k.addItem(from.id, { type: 'SubHeader', title: 'C' });
    const x = await k.addItem(to.id, { type: 'SubHeader', title: 'X' });
    const res = await k.teacher.put(k.item(from.id, moving.id), { module_item: { module_id: to.id } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: moving.id, module_id: to.id, position: 2, completion_requirement: { type: 'min_score', min_score: 7 } });
    expect(await titles(k, from.id)).toEqual(['A1', 'C2']);
    expect(await titles(k, to.id)).toEqual(['X1', 'Moving2']);
    expect(await k.teacher.get(k.item(from.id, moving.id))).toMatchObject({ status: 404 });
    // Back, at the top.
    ok(await k.teacher.put(k.item(to.id, moving.id), { module_item: { module_id: String(from.id), position: 1 } }));
    expect(await titles(k, from.id)).toEqual(['Moving1', 'A2', 'C3']);
    expect(await titles(k, to.id)).toEqual(['X1']);
    // A module of another course is refused.
    const elsewhere = await (await kit.sibling(world)).module();
    const before = await moduleTables(server);
    expect(await k.teacher.put(k.item(from.id, moving.id), { module_item: { module_id: elsewhere.id } })).toMatchObject({ status: 400, body: { message: 'invalid module_id' } });
    expect(await k.teacher.put(k.item(from.id, moving.id), { module_item: { module_id: '999999' } })).toMatchObject({ status: 400, body: { message: 'invalid module_id' } });
    expect(await moduleTables(server)).toEqual(before);
    expect([a.id, c.id, x.id]).toHaveLength(3);
  });
});

describe('completion requirements', () => {
  let m: any;
  beforeAll(async () => {
    m = await kit.module({ name: 'Requirements' });
  });

  /** What the spec allows per item type; everything else is dropped silently. */
  const APPLIES: Record<string, string[]> = {
    must_view: ['Assignment', 'Quiz', 'Page', 'Discussion', 'File', 'ExternalUrl', 'ExternalTool'],
    must_contribute: ['Assignment', 'Discussion', 'Page'],
    must_submit: ['Assignment', 'Quiz'],
    min_score: ['Assignment', 'Quiz'],
    must_mark_done: ['Assignment', 'Page'],
  };

  const fieldsFor = (type: string): Record<string, unknown> => {
    switch (type) {
      case 'Assignment':
        return { content_id: content.assignment.id };
      case 'Quiz':
        return { content_id: content.quiz.id };
      case 'Page':
        return { page_url: content.page.url };
      case 'Discussion':
        return { content_id: content.topic.id };
      case 'File':
        return { content_id: content.file.id };
      case 'ExternalTool':
        return { content_id: content.tool.id, external_url: 'https://lab.example.com/launch' };
      case 'ExternalUrl':
        return { external_url: 'https://example.com/', title: 'Link' };
      default:
        return { title: 'Header' };
    }
  };

  it('keeps applicable requirements and silently drops the others, for every type', async () => {
    const types = ['Assignment', 'Quiz', 'Page', 'Discussion', 'File', 'ExternalUrl', 'ExternalTool', 'SubHeader'];
    for (const [req, allowed] of Object.entries(APPLIES)) {
      for (const type of types) {
        const requirement: Record<string, unknown> = { type: req };
        if (req === 'min_score') requirement.min_score = 5;
        const res = await kit.teacher.post(kit.items(m.id), { module_item: { type, ...fieldsFor(type), completion_requirement: requirement } });
        expect(res.status).toBe(200);
        if (allowed.includes(type)) expect([type, res.body.completion_requirement]).toEqual([type, req === 'min_score' ? { type: req, min_score: 5 } : { type: req }]);
        else expect([type, res.body]).not.toEqual([type, expect.objectContaining({ completion_requirement: expect.anything() })]);
      }
    }
  });

  it('stores min_score and min_percentage as numbers, showing each only for its type', async () => {
    const score = ok(await kit.teacher.post(kit.items(m.id), { module_item: { type: 'Assignment', content_id: content.assignment.id, completion_requirement: { type: 'min_score', min_score: '7.5', min_percentage: 50 } } }));
    expect(score.completion_requirement).toEqual({ type: 'min_score', min_score: 7.5 });
    const pct = ok(await kit.teacher.post(kit.items(m.id), { module_item: { type: 'Quiz', content_id: content.quiz.id, completion_requirement: { type: 'min_percentage', min_percentage: '80', min_score: 3 } } }));
    expect(pct.completion_requirement).toEqual({ type: 'min_percentage', min_percentage: 80 });
    const view = ok(await kit.teacher.post(kit.items(m.id), { module_item: { type: 'Page', page_url: content.page.url, completion_requirement: { type: 'must_view', min_score: 3 } } }));
    expect(view.completion_requirement).toEqual({ type: 'must_view' });
  });

  it('changes and clears a requirement on update (an empty completion_requirement clears it)', async () => {
    const item = await kit.addItem(m.id, { type: 'Assignment', content_id: content.assignment.id, completion_requirement: { type: 'must_view' } });
    expect(ok(await kit.teacher.put(kit.item(m.id, item.id), { module_item: { completion_requirement: { type: 'min_score', min_score: 9 } } })).completion_requirement).toEqual({ type: 'min_score', min_score: 9 });
    // Inapplicable on update: dropped too.
    const page = await kit.addItem(m.id, { type: 'Page', page_url: content.page.url, completion_requirement: { type: 'must_view' } });
    expect(ok(await kit.teacher.put(kit.item(m.id, page.id), { module_item: { completion_requirement: { type: 'must_submit' } } }))).not.toHaveProperty('completion_requirement');
    // Title only: the requirement stays.
    expect(ok(await kit.teacher.put(kit.item(m.id, item.id), { module_item: { indent: 1 } })).completion_requirement).toEqual({ type: 'min_score', min_score: 9 });
    const cleared = ok(await kit.teacher.put(kit.item(m.id, item.id), { module_item: { completion_requirement: '' } }));
    expect(cleared).not.toHaveProperty('completion_requirement');
  });
});

describe('PUT …/items/:id', () => {
  it('renames the linked content, updates indent, external_url (ExternalUrl/ExternalTool only) and new_tab', async () => {
    const k = await kit.sibling(world);
    const m = await k.module();
    const assignment = await k.assignment({ name: 'Before' });
    const item = await k.addItem(m.id, { type: 'Assignment', content_id: assignment.id });
    const renamed = ok(await k.teacher.put(k.item(m.id, item.id), { module_item: { title: 'After', indent: 3, external_url: 'https://ignored.example.com', new_tab: true } }));
    expect(renamed).toMatchObject({ title: 'After', indent: 3 });
    expect(renamed).not.toHaveProperty('external_url');
    expect(renamed).not.toHaveProperty('new_tab');
    expect(ok(await k.teacher.get(`/api/v1/courses/${k.cid}/assignments/${assignment.id}`)).name).toBe('After');
    const link = await k.addItem(m.id, { type: 'ExternalUrl', external_url: 'https://example.com/a', title: 'Link' });
    expect(ok(await k.teacher.put(k.item(m.id, link.id), { module_item: { external_url: 'https://example.com/b' } })).external_url).toBe('https://example.com/b');
    const tool = await k.addItem(m.id, { type: 'ExternalTool', content_id: (await k.tool()).id, external_url: 'https://lab.example.com/1' });
    expect(ok(await k.teacher.put(k.item(m.id, tool.id), { module_item: { new_tab: 'false', external_url: 'https://lab.example.com/2' } }))).toMatchObject({ new_tab: false, external_url: 'https://lab.example.com/2' });
  });

  it('publishes and unpublishes an item and its content; students see only published items of published content', async () => {
    const k = await kit.sibling(world);
    const m = await k.module({}, { publish: true });
    const assignment = await k.assignment({ name: 'Hidden work', published: false });
    const hidden = await k.addItem(m.id, { type: 'Assignment', content_id: assignment.id });
    const link = await k.addItem(m.id, { type: 'ExternalUrl', external_url: 'https://example.com', title: 'Link' });
    expect(hidden.published).toBe(false);
    const student = k.room.student.api;
    expect(ok(await student.get(k.items(m.id)))).toEqual([]);
    expect(ok(await student.get(k.modules(`/${m.id}`))).items_count).toBe(0);
    expect(await student.get(k.item(m.id, hidden.id))).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(ok(await k.teacher.get(k.modules(`/${m.id}`))).items_count).toBe(2);

    expect(ok(await k.teacher.put(k.item(m.id, hidden.id), { module_item: { published: true } })).published).toBe(true);
    expect(ok(await k.teacher.get(`/api/v1/courses/${k.cid}/assignments/${assignment.id}`)).published).toBe(true);
    ok(await k.teacher.put(k.item(m.id, link.id), { module_item: { published: 'true' } }));
    expect(ok(await student.get(k.items(m.id))).map((i: any) => i.title)).toEqual(['Hidden work', 'Link']);

    // Content unpublished on its own: the item disappears for students too.
    ok(await k.teacher.put(`/api/v1/courses/${k.cid}/assignments/${assignment.id}`, { assignment: { published: false } }));
    expect(ok(await student.get(k.items(m.id))).map((i: any) => i.title)).toEqual(['Link']);
    ok(await k.teacher.put(k.item(m.id, link.id), { module_item: { published: false } }));
    expect(ok(await student.get(k.items(m.id)))).toEqual([]);
  });
});

describe('content_details', () => {
  it('gives the content’s dates and points, and the lock for a student (module or content locks)', async () => {
    const k = await kit.sibling(world);
    const first = await k.module({ name: 'First' });
    const gate = await k.addItem(first.id, { type: 'ExternalUrl', external_url: 'https://example.com/gate', title: 'Gate', completion_requirement: { type: 'must_view' } });
    await k.publish(first.id);
    const second = await k.module({ name: 'Second', prerequisite_module_ids: [first.id] });
    const assignment = await k.assignment({ name: 'Dated', points_possible: 12, due_at: '2031-06-01T12:00:00Z', unlock_at: '2031-05-01T00:00:00Z', lock_at: '2031-07-01T00:00:00Z' });
    const item = await k.addItem(second.id, { type: 'Assignment', content_id: assignment.id });
    await k.publish(second.id);
    const url = `${k.item(second.id, item.id)}?include[]=content_details`;

    expect(ok(await k.teacher.get(url)).content_details).toEqual({
      points_possible: 12,
      due_at: '2031-06-01T12:00:00Z',
      unlock_at: '2031-05-01T00:00:00Z',
      lock_at: '2031-07-01T00:00:00Z',
      locked_for_user: false,
    });
    expect(ok(await k.teacher.get(k.item(second.id, item.id)))).not.toHaveProperty('content_details');

    const locked = ok(await k.room.student.api.get(url)).content_details;
    expect(locked).toMatchObject({ points_possible: 12, locked_for_user: true, lock_explanation: expect.stringContaining('Second') });
    expect(locked.lock_info).toEqual({ asset_string: `assignment_${assignment.id}`, context_module: { id: second.id, name: 'Second' } });

    // Past the module, the content's own unlock date still locks it.
    ok(await k.room.student.api.post(k.item(first.id, gate.id, '/mark_read')));
    const dated = ok(await k.room.student.api.get(url)).content_details;
    expect(dated).toMatchObject({ locked_for_user: true, lock_info: { asset_string: `assignment_${assignment.id}`, unlock_at: '2031-05-01T00:00:00Z' } });
    expect(dated.lock_info).not.toHaveProperty('context_module');
    // And in the modules list with include[]=items&include[]=content_details.
    const list = ok(await k.room.student.api.get(`${k.modules()}?include[]=items&include[]=content_details`));
    expect(list[1].items[0].content_details).toMatchObject({ locked_for_user: true });
    expect(list[0].items[0].content_details).toEqual({ locked_for_user: false });
  });
});

describe('authorization and bad input for item writes', () => {
  let m: any;
  let item: any;
  beforeAll(async () => {
    m = await kit.module({ name: 'Guarded' });
    item = await kit.addItem(m.id, { type: 'SubHeader', title: 'Keep me' });
  });

  it('lets teachers, TAs and designers create, update and delete items', async () => {
    for (const who of [kit.room.teacher, kit.room.ta, kit.room.designer]) {
      const created = ok(await who.api.post(kit.items(m.id), { module_item: { type: 'SubHeader', title: `By ${who.name}` } }));
      ok(await who.api.put(kit.item(m.id, created.id), { module_item: { title: 'Renamed' } }));
      ok(await who.api.delete(kit.item(m.id, created.id)));
    }
  });

  it('refuses students, observers and outsiders (403) and anonymous callers (401) on every write, storing nothing', async () => {
    const before = await moduleTables(server);
    for (const who of [kit.room.student, kit.room.observer, kit.room.outsider]) {
      expect(await who.api.post(kit.items(m.id), { module_item: { type: 'SubHeader', title: 'Nope' } })).toMatchObject({ status: 403, body: FORBIDDEN });
      expect(await who.api.put(kit.item(m.id, item.id), { module_item: { title: 'Nope' } })).toMatchObject({ status: 403, body: FORBIDDEN });
      expect(await who.api.delete(kit.item(m.id, item.id))).toMatchObject({ status: 403, body: FORBIDDEN });
    }
    const anon = server.as(null);
    for (const res of [
      await anon.post(kit.items(m.id), { module_item: { type: 'SubHeader', title: 'Nope' } }),
      await anon.put(kit.item(m.id, item.id), { module_item: { title: 'Nope' } }),
      await anon.delete(kit.item(m.id, item.id)),
    ]) {
      expect(res).toMatchObject({ status: 401, body: UNAUTHENTICATED });
    }
    expect(await moduleTables(server)).toEqual(before);
  });

  it('refuses bad input on create with Canvas bodies (400) or 404, storing nothing', async () => {
    const before = await moduleTables(server);
    const post = (fields: Record<string, unknown> | undefined, moduleId: number | string = m.id) => kit.teacher.post(kit.items(moduleId as number), fields === undefined ? {} : { module_item: fields });
    expect(await post(undefined)).toMatchObject({ status: 400, body: { message: 'missing module item parameter' } });
    const unknown = await post({ type: 'Video', content_id: 1 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors.type[0]).toMatchObject({ attribute: 'type', message: 'Invalid module item type' });
    expect((await post({ title: 'No type' })).status).toBe(400);
    for (const type of ['Assignment', 'Quiz', 'Discussion', 'File', 'ExternalTool']) {
      const res = await post({ type, external_url: 'https://lab.example.com/launch' });
      expect([type, res.status, res.body]).toEqual([type, 400, { message: 'missing content_id parameter' }]);
    }
    expect(await post({ type: 'Assignment', content_id: 999999 })).toMatchObject({ status: 400, body: { message: 'Could not find content' } });
    expect(await post({ type: 'Assignment', content_id: 'abc' })).toMatchObject({ status: 400, body: { message: 'Could not find content' } });
    // An object of another course is not found either.
    const foreign = await (await kit.sibling(world)).assignment();
    expect(await post({ type: 'Assignment', content_id: foreign.id })).toMatchObject({ status: 400, body: { message: 'Could not find content' } });
    expect(await post({ type: 'Page' })).toMatchObject({ status: 400, body: { message: 'missing page_url parameter' } });
    expect(await post({ type: 'Page', page_url: 'no-such-page' })).toMatchObject({ status: 400, body: { message: 'invalid page_url parameter' } });
    for (const type of ['ExternalUrl', 'ExternalTool']) {
      const res = await post({ type, content_id: content.tool.id, title: 'T' });
      expect([type, res.status]).toEqual([type, 400]);
      expect(res.body.errors.external_url[0]).toMatchObject({ attribute: 'external_url' });
    }
    expect((await post({ type: 'ExternalUrl', external_url: 'javascript:alert(1)', title: 'x' })).body.errors.external_url[0]).toMatchObject({ type: 'invalid' });
    expect((await post({ type: 'SubHeader' })).body.errors.title[0]).toMatchObject({ type: 'blank' });
    for (const min of [undefined, '', 'lots']) {
      const res = await post({ type: 'Assignment', content_id: content.assignment.id, completion_requirement: { type: 'min_score', min_score: min } });
      expect([min, res.status]).toEqual([min, 400]);
      expect(res.body.errors.completion_requirement[0].message).toBe('min_score requires a number');
    }
    expect((await post({ type: 'Quiz', content_id: content.quiz.id, completion_requirement: { type: 'min_percentage', min_percentage: 150 } })).status).toBe(400);
    const badReq = await post({ type: 'SubHeader', title: 'x', completion_requirement: { type: 'must_dance' } });
    expect(badReq).toMatchObject({ status: 400, body: { errors: { completion_requirement: [expect.objectContaining({ message: 'Invalid completion requirement type' })] } } });
    for (const position of ['-1', '0']) expect((await post({ type: 'SubHeader', title: 'x', position })).body.errors.position[0]).toMatchObject({ message: 'Invalid position' });
    expect((await post({ type: 'SubHeader', title: 'x', position: 'first' })).status).toBe(400);
    expect((await post({ type: 'SubHeader', title: 'x', indent: -1 })).body.errors).toHaveProperty('indent');
    expect(await post({ type: 'SubHeader', title: 'x' }, 999999)).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(await kit.teacher.post(`/api/v1/courses/999999/modules/${m.id}/items`, { module_item: { type: 'SubHeader', title: 'x' } })).toMatchObject({ status: 404 });
    expect(await moduleTables(server)).toEqual(before);
  });

  it('refuses bad input on update and delete (400/404), changing nothing', async () => {
    const before = await moduleTables(server);
    const put = (fields: Record<string, unknown> | undefined, id: number | string = item.id, moduleId: number | string = m.id) =>
      kit.teacher.put(kit.item(moduleId as number, id as number), fields === undefined ? {} : { module_item: fields });
    expect(await put(undefined)).toMatchObject({ status: 400, body: { message: 'missing module item parameter' } });
    expect((await put({ position: '-4' })).body.errors.position[0]).toMatchObject({ message: 'Invalid position' });
    expect((await put({ indent: '-1' })).status).toBe(400);
    expect((await put({ completion_requirement: { type: 'nope' } })).status).toBe(400);
    expect(await put({ module_id: '999999' })).toMatchObject({ status: 400, body: { message: 'invalid module_id' } });
    expect(await put({ title: 'x' }, 999999)).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(await put({ title: 'x' }, item.id, 999999)).toMatchObject({ status: 404 });
    const other = await kit.module({ name: 'Other' });
    expect(await put({ title: 'x' }, item.id, other.id)).toMatchObject({ status: 404 });
    expect(await kit.teacher.delete(kit.item(m.id, 999999))).toMatchObject({ status: 404 });
    expect(await kit.teacher.delete(kit.item(other.id, item.id))).toMatchObject({ status: 404 });
    await kit.teacher.delete(kit.modules(`/${other.id}`));
    const after = await moduleTables(server);
    // Creating and deleting "Other" added one deleted module row; nothing else changed.
    expect(after.module_items).toEqual(before.module_items);
    expect(after['context_modules:count']).toBe((before['context_modules:count'] as number) + 1);
  });
});

describe('GET /api/v1/courses/:course_id/module_item_redirect/:id', () => {
  it('redirects to an ExternalUrl item’s URL and records a student’s view', async () => {
    const k = await kit.sibling(world);
    const m = await k.module();
    const link = await k.addItem(m.id, { type: 'ExternalUrl', external_url: 'https://example.com/article?id=7', title: 'Article', completion_requirement: { type: 'must_view' } });
    const header = await k.addItem(m.id, { type: 'SubHeader', title: 'Header' });
    await k.publish(m.id);
    const path = `/api/v1/courses/${k.cid}/module_item_redirect/${link.id}`;
    const res = await fetch(`${server.url}${path}`, { headers: { Authorization: `Bearer ${k.room.student.token}` }, redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://example.com/article?id=7');
    expect(await k.completed(k.room.student.api, m.id, link.id)).toBe(true);
    expect(await k.stateOf(k.room.student.api, m.id)).toBe('completed');
    // Teachers are redirected too, without progress.
    const teacher = await fetch(`${server.url}${path}`, { headers: { Authorization: `Bearer ${k.room.teacher.token}` }, redirect: 'manual' });
    expect(teacher.status).toBe(302);
    expect(await k.room.student.api.get(`/api/v1/courses/${k.cid}/module_item_redirect/${header.id}`)).toMatchObject({ status: 400, body: { message: 'incorrect module item type' } });
    expect(await k.room.student.api.get(`/api/v1/courses/${k.cid}/module_item_redirect/999999`)).toMatchObject({ status: 404 });
    expect(await k.room.outsider.api.get(path)).toMatchObject({ status: 403 });
    expect(await server.as(null).get(path)).toMatchObject({ status: 401 });
    ok(await k.teacher.put(k.item(m.id, link.id), { module_item: { published: false } }));
    expect(await k.room.student2.api.get(path)).toMatchObject({ status: 404 });
  });
});
