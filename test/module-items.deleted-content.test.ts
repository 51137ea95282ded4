import { parseLinks } from './support/api';
import { ModulesKit, ok, startModulesWorld } from './support/modules';
import type { TestServer } from './support/server';
import type { World } from './support/world';
import { ItemsOfDeletedContent1732000016600 } from '../migrations/1732000016600-ItemsOfDeletedContent';

/**
 * Module items follow their content, as Canvas's content tags do. Deleting content deletes the items
 * that link it, for every kind of content and every way it goes: its own DELETE, the delete of a quiz's
 * assignment. A content manager's pages and counts then read the items' own state: rel="last",
 * totalCount and a deep page agree with the items that are left. A course file overwritten by an upload
 * of the same name is replaced, not deleted: its items link the new file.
 */

let env: { server: TestServer; world: World; kit: ModulesKit };
beforeAll(async () => void (env = await startModulesWorld()), 120_000);
afterAll(() => env?.server.close());
/** A course of its own for each test (kit.sibling). */
const course = (name: string) => env.kit.sibling(env.world, name);

const COUNT = `query($c: ID!, $m: ID!) { moduleItemsConnection(courseId: $c, moduleId: $m, first: 1) { totalCount } }`;

async function itemStates(ids: number[]): Promise<string[]> {
  const rows: { id: number; workflow_state: string }[] = await env.server.app.ds.query(
    `SELECT id, workflow_state FROM module_items WHERE id IN (${ids.map(() => '?').join(', ')})`,
    ids,
  );
  return ids.map((id) => rows.find((r) => Number(r.id) === id)!.workflow_state);
}

describe('items of deleted content', () => {
  it('go with their content, of every kind; the teacher’s rel="last", totalCount and deep pages count what is left', async () => {
    const k = await course('Deleting');
    const m = (await k.module({ name: 'Doomed content' })).id;
    const content = {
      assignment: await k.assignment({ name: 'Essay' }),
      quiz: await k.quiz({ title: 'Check-in' }),
      page: await k.page({ title: 'Overview' }),
      topic: await k.discussion({ title: 'Introductions' }),
      file: await k.file('handout.txt'),
      tool: await k.tool({ name: 'Lab Sim' }),
    };
    const items = await k.addEveryKind(m, content);
    const [assignment, quiz, page, topic, file, tool, url, header] = items.map((i) => i.id);
    const base = `/api/v1/courses/${k.cid}`;
    ok(await k.teacher.delete(`${base}/assignments/${content.assignment.id}`), 'delete assignment');
    ok(await k.teacher.delete(`${base}/quizzes/${content.quiz.id}`), 'delete quiz');
    ok(await k.teacher.delete(`${base}/pages/${content.page.url}`), 'delete page');
    ok(await k.teacher.delete(`${base}/discussion_topics/${content.topic.id}`), 'delete topic');
    ok(await k.teacher.delete(`${base}/external_tools/${content.tool.id}`), 'delete tool');

    const [fileState] = await itemStates([file]);
    expect(await itemStates([assignment, quiz, page, topic, file, tool, url, header])).toEqual([...Array(4).fill('deleted'), fileState, 'deleted', 'unpublished', 'unpublished']);
    expect(fileState).not.toBe('deleted');
    const first = await k.teacher.get(`${k.items(m)}?per_page=1`);
    expect((ok(first) as any[]).map((i) => i.id)).toEqual([file]);
    expect(Number(new URL(parseLinks(first.headers.get('link')).last!).searchParams.get('page'))).toBe(3);
    expect((ok(await k.teacher.get(`${k.items(m)}?per_page=1&page=3`)) as any[]).map((i) => i.id)).toEqual([header]);
    const g = await k.teacher.graphql(COUNT, { c: String(k.cid), m: String(m) });
    expect(g.errors).toBeUndefined();
    expect(g.data.moduleItemsConnection.totalCount).toBe(3);
    expect((await k.teacher.get(`${k.items(m)}/${assignment}`)).status).toBe(404);
  });

  it('a quiz deleted with its assignment takes the items of both', async () => {
    const k = await course('Graded quiz');
    const m = (await k.module({ name: 'Quiz week' })).id;
    const quiz = await k.quiz({ title: 'Graded', quiz_type: 'assignment', points_possible: 5 });
    expect(quiz.assignment_id).toEqual(expect.any(Number));
    const byQuiz = await k.addItem(m, { type: 'Quiz', content_id: quiz.id });
    const byAssignment = await k.addItem(m, { type: 'Assignment', content_id: quiz.assignment_id });
    ok(await k.teacher.delete(`/api/v1/courses/${k.cid}/assignments/${quiz.assignment_id}`), 'delete the quiz’s assignment');
    expect(await itemStates([byQuiz.id, byAssignment.id])).toEqual(['deleted', 'deleted']);
    const g = await k.teacher.graphql(COUNT, { c: String(k.cid), m: String(m) });
    expect(g.data.moduleItemsConnection.totalCount).toBe(0);
  });

  it('a course file overwritten by an upload of the same name keeps its items, which link the new file', async () => {
    const k = await course('Overwritten');
    const week1 = (await k.module({ name: 'Week 1' })).id;
    const week2 = (await k.module({ name: 'Week 2' })).id;
    const syllabus = await k.file('syllabus.txt', Buffer.from('first edition'));
    const other = await k.file('reading.txt');
    const inWeek1 = await k.addItem(week1, { type: 'File', content_id: syllabus.id, title: 'Syllabus' });
    const inWeek2 = await k.addItem(week2, { type: 'File', content_id: syllabus.id });
    const untouched = await k.addItem(week2, { type: 'File', content_id: other.id });
    await k.publish(week1);
    // Same name, uploaded again: the upload replaces the file (Canvas's default on_duplicate=overwrite).
    const replacement = await k.file('syllabus.txt', Buffer.from('second edition'));
    expect(replacement.id).not.toBe(syllabus.id);

    const item = ok(await k.teacher.get(k.item(week1, inWeek1.id))) as any;
    expect(item).toMatchObject({ id: inWeek1.id, type: 'File', content_id: replacement.id, title: 'Syllabus' });
    expect(item.url).toContain(`/files/${replacement.id}`);
    expect((ok(await k.teacher.get(k.items(week2))) as any[]).map((i) => [i.id, i.content_id])).toEqual([[inWeek2.id, replacement.id], [untouched.id, other.id]]);
    const g = await k.teacher.graphql(
      `query($c: ID!, $m: ID!) { moduleItemsConnection(courseId: $c, moduleId: $m) { totalCount nodes { _id contentId url } } }`,
      { c: String(k.cid), m: String(week1) },
    );
    expect(g.errors).toBeUndefined();
    expect(g.data.moduleItemsConnection.totalCount).toBe(1);
    expect(g.data.moduleItemsConnection.nodes).toEqual([{ _id: String(inWeek1.id), contentId: String(replacement.id), url: expect.stringContaining(`/files/${replacement.id}`) }]);
    // A student of the published module sees the item, linking the new file.
    const seen = ok(await k.room.student.api.get(k.items(week1))) as any[];
    expect(seen.map((i) => [i.id, i.content_id])).toEqual([[inWeek1.id, replacement.id]]);
  });

  it('the migration repoints the live items of an overwritten file and deletes those of a file gone for good', async () => {
    const k = await course('Migrated files');
    const m = (await k.module({ name: 'Files' })).id;
    const old = await k.file('notes.txt', Buffer.from('v1'));
    const gone = await k.file('gone.txt');
    const oldItem = await k.addItem(m, { type: 'File', content_id: old.id });
    const goneItem = await k.addItem(m, { type: 'File', content_id: gone.id });
    const replacement = await k.file('notes.txt', Buffer.from('v2'));
    // As an older build left it: the item still linking the overwritten file; a file deleted with no successor.
    await env.server.app.ds.query(`UPDATE module_items SET content_id = ? WHERE id = ?`, [old.id, oldItem.id]);
    await env.server.app.ds.query(`UPDATE attachments SET workflow_state = 'deleted', deleted_at = updated_at WHERE id = ?`, [gone.id]);
    const runner = env.server.app.ds.createQueryRunner();
    try {
      await new ItemsOfDeletedContent1732000016600().up(runner);
    } finally {
      await runner.release();
    }
    const rows: { id: number; content_id: number; workflow_state: string }[] = await env.server.app.ds.query(
      `SELECT id, content_id, workflow_state FROM module_items WHERE id IN (?, ?) ORDER BY id`,
      [oldItem.id, goneItem.id],
    );
    expect(rows.map((r) => [Number(r.id), Number(r.content_id), r.workflow_state])).toEqual([
      [oldItem.id, replacement.id, (await itemStates([oldItem.id]))[0]],
      [goneItem.id, gone.id, 'deleted'],
    ]);
    expect(rows[0].workflow_state).not.toBe('deleted');
  });

  it('the migration deletes the live items of content deleted before items went with it, and no other', async () => {
    const k = await course('Migrated');
    const m = (await k.module({ name: 'Old data' })).id;
    const gone = await k.assignment({ name: 'Gone' });
    const kept = await k.assignment({ name: 'Kept' });
    const goneItem = await k.addItem(m, { type: 'Assignment', content_id: gone.id });
    const keptItem = await k.addItem(m, { type: 'Assignment', content_id: kept.id });
    const header = await k.addItem(m, { type: 'SubHeader', title: 'Header' });
    // As an older build left it: the content deleted, its item still live.
    await env.server.app.ds.query(`UPDATE assignments SET workflow_state = 'deleted' WHERE id = ?`, [gone.id]);
    const live = (item: any) => (item.published ? 'active' : 'unpublished');
    expect(await itemStates([goneItem.id])).toEqual([live(goneItem)]);
    const runner = env.server.app.ds.createQueryRunner();
    try {
      await new ItemsOfDeletedContent1732000016600().up(runner);
    } finally {
      await runner.release();
    }
    expect(await itemStates([goneItem.id, keptItem.id, header.id])).toEqual(['deleted', live(keptItem), 'unpublished']);
  });
});
