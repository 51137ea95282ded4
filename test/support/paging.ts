import type { CountingLogger } from '../../src/db/query-counter';
import { parseLinks } from './api';
import { createCategory, createGroup, expectOk } from './groups';
import type { TestServer } from './server';
import { World, WorldUser } from './world';

/** Many rows under one parent of each list: a course's enrollments, a group's members, a course's groups, a user's notes. */
export interface PagingWorld {
  teacher: WorldUser;
  course: { id: number };
  group: { id: number };
  category: { id: number };
  students: number[];
  notes: number[];
}

/** Runs `fns` a few at a time (the server handles them concurrently, the database one write at a time). */
async function inBatches<T>(n: number, fn: (i: number) => Promise<T>, size = 8): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i += size) out.push(...(await Promise.all(Array.from({ length: Math.min(size, n - i) }, (_, j) => fn(i + j)))));
  return out;
}

/**
 * `n` students (a third of them with one same name, for ties in the sort key) enrolled in one course
 * and members of one group; `n` groups in one category (half named alike); `n` planner notes of the teacher.
 */
export async function pagingWorld(server: TestServer, n: number): Promise<PagingWorld> {
  const world = new World(server);
  const teacher = await world.user('Tess Teacher');
  const course = await world.course({ name: 'Big Course' });
  await world.enroll(course.id, teacher.id, 'TeacherEnrollment');
  const students = await inBatches(n, async (i) => {
    const name = i % 3 === 0 ? 'Sam Same' : `Student ${String(i).padStart(4, '0')}`;
    const res = expectOk(await server.admin.post('/api/v1/accounts/self/users', { user: { name }, pseudonym: { unique_id: `pg${i}-${Date.now()}@example.com` } }), 'create user');
    expectOk(await server.admin.post(`/api/v1/courses/${course.id}/enrollments`, { enrollment: { user_id: res.body.id, type: 'StudentEnrollment', enrollment_state: 'active' } }), 'enroll');
    return res.body.id as number;
  });
  const category = await createCategory(teacher.api, course.id);
  const group = await createGroup(teacher.api, category.id, { name: 'The Big Group' });
  await inBatches(n, async (i) => expectOk(await teacher.api.post(`/api/v1/groups/${group.id}/memberships`, { user_id: students[i] }), 'add member'));
  await inBatches(n - 1, (i) => createGroup(teacher.api, category.id, { name: i % 2 ? 'Team' : `Team ${String(i).padStart(4, '0')}` }));
  const notes = await inBatches(n, async (i) => {
    const res = await teacher.api.post('/api/v1/planner_notes', { title: `Note ${i}`, todo_date: '2026-03-01T10:00:00Z' });
    if (res.status !== 201) throw new Error(`create note failed: ${res.status}`);
    return res.body.id as number;
  });
  return { teacher, course, group, category, students, notes };
}

/** Every page of a REST list, following Link rel="next" from `path`; the ids in order and the pages' Link headers. */
export async function walkRest(api: WorldUser['api'], server: TestServer, path: string, between?: (page: number) => Promise<void>): Promise<{ ids: number[]; links: Record<string, string>[] }> {
  const ids: number[] = [];
  const links: Record<string, string>[] = [];
  let next: string | undefined = path;
  for (let page = 1; next && page < 100; page++) {
    const res = await api.get(next);
    expectOk(res, `page ${page} of ${path}`);
    ids.push(...(res.body as { id: number }[]).map((x) => x.id));
    const l = parseLinks(res.headers.get('link'));
    links.push(l);
    next = l.next?.replace(server.url, '');
    if (next && between) await between(page);
  }
  return { ids, links };
}

/** Every page of a GraphQL connection at `root` (a dotted path), following endCursor. */
export async function walkGraphql(
  api: WorldUser['api'],
  query: string,
  vars: Record<string, unknown>,
  root: string,
  between?: (page: number) => Promise<void>,
): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  for (let page = 1; page < 100; page++) {
    const res: { data: any; errors?: unknown[] } = await api.graphql(query, { ...vars, after });
    if (res.errors?.length) throw new Error(JSON.stringify(res.errors));
    const conn: { nodes: { _id: string }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } = root.split('.').reduce((o: any, k) => o?.[k], res.data);
    ids.push(...conn.nodes.map((x) => x._id));
    if (!conn.pageInfo.hasNextPage) break;
    after = conn.pageInfo.endCursor;
    if (between) await between(page);
  }
  return ids;
}

/** The statements the server runs while `fn` runs, with their parameters. */
export async function captureStatements(server: TestServer, fn: () => Promise<unknown>): Promise<{ sql: string; params: readonly unknown[] }[]> {
  const logger = server.app.ds.logger as CountingLogger;
  const seen: { sql: string; params: readonly unknown[] }[] = [];
  logger.onQuery = (sql, params) => seen.push({ sql, params });
  try {
    await fn();
  } finally {
    logger.onQuery = undefined;
  }
  return seen;
}

export const num = (xs: (string | number)[]): number[] => xs.map(Number);

/** Ids of `table` matching `where`, read straight from the database in id order (a list's expected order). */
export async function idsOf(server: TestServer, table: string, where: string, params: unknown[], dir: 'ASC' | 'DESC'): Promise<number[]> {
  return num((await server.app.ds.query(`SELECT id FROM ${table} WHERE ${where} ORDER BY id ${dir}`, params)).map((r: { id: number }) => r.id));
}
