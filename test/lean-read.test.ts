import { closeSession, demo, openSession } from '../src/app/cli';
import { loadConfig } from '../src/config';
import { entities } from '../src/app/entities';
import { MoreThan, QueryFailedError } from 'typeorm';
import { findRows, leanFind, leanRows } from '../src/db/lean-read';
import { countQueries } from '../src/db/query-counter';
import { testDatabase, TestDatabase } from './support/db';

/**
 * The lean reads of the hot list paths (src/db/lean-read.ts) must give exactly what TypeORM's
 * repository gives: same classes, same values (dates, booleans, JSON, transformed columns), on both
 * engines. The demo seed fills every area, so every entity with rows is compared row by row.
 */
describe('lean reads', () => {
  let db: TestDatabase;
  let session: Awaited<ReturnType<typeof openSession>>;

  beforeAll(async () => {
    db = testDatabase();
    await db.ready?.();
    session = await openSession(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }));
    await demo(session, { write: () => true });
  });
  afterAll(async () => {
    await closeSession(session);
    await db.drop();
  });

  it('answers what repository.find answers, for every entity it supports', async () => {
    const ds = session.app.ds;
    const compared: string[] = [];
    for (const entity of entities) {
      const meta = ds.getMetadata(entity);
      if (!meta.hasColumnWithPropertyPath('id')) continue;
      const lean = await leanFind(ds, entity as never, {}, { id: 'ASC' });
      if (lean == null) continue;
      const full = await ds.getRepository(entity).find({ order: { id: 'ASC' } as never });
      expect({ entity: meta.name, rows: lean }).toEqual({ entity: meta.name, rows: full });
      for (let i = 0; i < full.length; i++) expect(Object.getPrototypeOf(lean[i])).toBe(Object.getPrototypeOf(full[i]));
      if (full.length) compared.push(meta.name);
    }
    // The demo world must actually exercise dates, booleans and JSON columns.
    expect(compared).toEqual(expect.arrayContaining(['Course', 'Enrollment', 'ContextModule', 'ModuleItem', 'Group', 'GroupMembership', 'PlannerNote', 'Assignment']));
  });

  it('maps hand-written SQL naming a subset of the columns, leaving the others unset', async () => {
    const ds = session.app.ds;
    const full = await ds.getRepository('Course').find({ order: { id: 'ASC' } as never });
    const rows = await leanRows<any>(ds, 'Course', 'SELECT id, name, created_at, is_public FROM courses ORDER BY id', []);
    expect(rows).not.toBeNull();
    expect(rows!.map((c) => ({ id: c.id, name: c.name, createdAt: c.createdAt, isPublic: c.isPublic }))).toEqual(
      full.map((c: any) => ({ id: c.id, name: c.name, createdAt: c.createdAt, isPublic: c.isPublic })),
    );
    expect(rows![0].createdAt).toBeInstanceOf(Date);
    expect(typeof rows![0].isPublic).toBe('boolean');
    expect(rows![0].courseCode).toBeUndefined();
  });

  it('findRows answers the same whether the lean read takes the shape or the repository does', async () => {
    const ds = session.app.ds;
    const full = await ds.getRepository('Enrollment').find({ order: { id: 'DESC' } as never });
    expect(full.length).toBeGreaterThan(2);
    const pivot = (full[Math.floor(full.length / 2)] as { id: number }).id;
    // A plain where: the lean read answers.
    const plain = { courseId: (full[0] as { courseId: number }).courseId };
    expect(await leanFind(ds, 'Enrollment', plain, { id: 'DESC' })).not.toBeNull();
    expect(await findRows(ds, 'Enrollment', plain, { id: 'DESC' })).toEqual(full.filter((e: any) => e.courseId === plain.courseId));
    // An operator lean reads do not take: the repository answers, with the same where and order.
    expect(await leanFind(ds, 'Enrollment', { id: MoreThan(pivot) }, { id: 'DESC' })).toBeNull();
    const above = await findRows<any>(ds, 'Enrollment', { id: MoreThan(pivot) }, { id: 'DESC' });
    expect(above).toEqual(full.filter((e: any) => e.id > pivot));
    expect(above.length).toBeGreaterThan(0);
  });

  it('maps columns in any order, a column named twice by its last value, and ignores columns that are not the entity\'s', async () => {
    const ds = session.app.ds;
    const full = (await ds.getRepository('Course').find({ order: { id: 'ASC' } as never })) as any[];
    const rows = await leanRows<any>(ds, 'Course', "SELECT 'decoy' AS name, is_public, 42 AS n, id, name FROM courses ORDER BY id", []);
    expect(rows!.map((c) => ({ id: c.id, name: c.name, isPublic: c.isPublic, n: c.n }))).toEqual(full.map((c) => ({ id: c.id, name: c.name, isPublic: c.isPublic, n: undefined })));
  });

  it('counts each lean statement as one, binds booleans, and fails as a TypeORM query error with the driver code', async () => {
    const ds = session.app.ds;
    const { result, queries } = await countQueries(async () => [
      await leanRows<any>(ds, 'Course', 'SELECT id FROM courses', []),
      await leanFind<any>(ds, 'Course', { isPublic: false }, { id: 'ASC' }),
      await leanFind<any>(ds, 'Course', { isPublic: true }, { id: 'ASC' }),
    ]);
    expect(queries).toBe(3);
    const all = (await ds.getRepository('Course').find({ order: { id: 'ASC' } as never })) as any[];
    expect(result[1]!.map((c: any) => c.id)).toEqual(all.filter((c) => !c.isPublic).map((c) => c.id));
    expect(result[2]!.map((c: any) => c.id)).toEqual(all.filter((c) => c.isPublic).map((c) => c.id));
    const failed = await leanRows(ds, 'Course', 'SELECT id FROM no_such_table', []).catch((e) => e);
    expect(failed).toBeInstanceOf(QueryFailedError);
    expect(String((failed as { code?: string }).code)).toMatch(/^(SQLITE_ERROR|ER_NO_SUCH_TABLE)$/);
  });
});
