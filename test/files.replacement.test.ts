import { AttachmentReplacements1732000016700 } from '../migrations/1732000016700-AttachmentReplacements';
import { ModulesKit, ok, startModulesWorld } from './support/modules';
import type { TestServer } from './support/server';
import type { World } from './support/world';

/**
 * An overwritten course file (an upload of the same name, Canvas's default on_duplicate=overwrite) is
 * found by its old id within its course, as the file that replaced it: Canvas keeps replacement chains
 * so links written into content before the upload keep working. Outside the course (GET /files/:id),
 * and from another course, the old id is gone.
 */
let env: { server: TestServer; world: World; kit: ModulesKit };
beforeAll(async () => void (env = await startModulesWorld()), 120_000);
afterAll(() => env?.server.close());

const FILE = `query($id: ID!, $c: ID) { file(id: $id, courseId: $c) { _id displayName } }`;

describe('overwritten course files', () => {
  it('an old id within its course finds the newest file of the chain, through REST and GraphQL, for teacher and student', async () => {
    const k = await env.kit.sibling(env.world, 'Replacement chain');
    const v1 = await k.file('syllabus.txt', Buffer.from('v1'));
    const v2 = await k.file('syllabus.txt', Buffer.from('v2'));
    const v3 = await k.file('syllabus.txt', Buffer.from('v3'));
    expect(new Set([v1.id, v2.id, v3.id]).size).toBe(3);
    for (const api of [k.teacher, k.room.student.api]) {
      for (const old of [v1.id, v2.id, v3.id]) {
        const body = ok(await api.get(`/api/v1/courses/${k.cid}/files/${old}`)) as any;
        expect([old, body.id, body.display_name]).toEqual([old, v3.id, 'syllabus.txt']);
        const g = await api.graphql(FILE, { id: String(old), c: String(k.cid) });
        expect(g.errors).toBeUndefined();
        expect(g.data.file).toEqual({ _id: String(v3.id), displayName: 'syllabus.txt' });
      }
    }
    // Without the course, the old id is a deleted file; the newest one is still there.
    expect((await k.teacher.get(`/api/v1/files/${v1.id}`)).status).toBe(404);
    expect((ok(await k.teacher.get(`/api/v1/files/${v3.id}`)) as any).id).toBe(v3.id);
    const g = await k.teacher.graphql(FILE, { id: String(v1.id) });
    expect(g.data?.file ?? null).toBeNull();
  });

  it('another course does not find it', async () => {
    const k = await env.kit.sibling(env.world, 'Home course');
    const other = await env.kit.sibling(env.world, 'Other course');
    const v1 = await k.file('notes.txt', Buffer.from('v1'));
    await k.file('notes.txt', Buffer.from('v2'));
    expect((await other.teacher.get(`/api/v1/courses/${other.cid}/files/${v1.id}`)).status).toBe(404);
    const g = await other.teacher.graphql(FILE, { id: String(v1.id), c: String(other.cid) });
    expect(g.data?.file ?? null).toBeNull();
  });

  it('the migration gives files overwritten before it their replacement', async () => {
    const k = await env.kit.sibling(env.world, 'Migrated');
    const old = await k.file('handout.txt', Buffer.from('v1'));
    const gone = await k.file('gone.txt');
    const replacement = await k.file('handout.txt', Buffer.from('v2'));
    await env.server.app.ds.query(`UPDATE attachments SET workflow_state = 'deleted', deleted_at = updated_at WHERE id = ?`, [gone.id]);
    const runner = env.server.app.ds.createQueryRunner();
    try {
      const migration = new AttachmentReplacements1732000016700();
      await migration.down(runner);
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    const rows: { id: number; replacement_attachment_id: number | null }[] = await env.server.app.ds.query(
      `SELECT id, replacement_attachment_id FROM attachments WHERE id IN (?, ?, ?) ORDER BY id`,
      [old.id, gone.id, replacement.id],
    );
    expect(rows.map((r) => [Number(r.id), r.replacement_attachment_id == null ? null : Number(r.replacement_attachment_id)])).toEqual([
      [old.id, replacement.id],
      [gone.id, null],
      [replacement.id, null],
    ]);
    expect((ok(await k.teacher.get(`/api/v1/courses/${k.cid}/files/${old.id}`)) as any).id).toBe(replacement.id);
  });
});
