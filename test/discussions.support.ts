import type { Api, ApiResponse } from './support/api';
import type { TestServer } from './support/server';
import { World, WorldUser } from './support/world';

/** Helpers of the discussions test files: a classroom with a group in it, topics, row counts. */

export const FORBIDDEN = { status: 'unauthorized', errors: [{ message: 'user not authorized to perform that action' }] };
export const NOT_FOUND = { errors: [{ message: 'The specified resource does not exist.' }] };
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

export function ok<T>(res: ApiResponse<T>, what = 'request'): T {
  if (res.status !== 200 && res.status !== 201) throw new Error(`${what} failed: ${res.status} ${res.text}`);
  return res.body;
}

export async function count(server: TestServer, table: string, where = '1=1', params: unknown[] = []): Promise<number> {
  const rows = await server.app.ds.query(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`, params);
  return Number(rows[0].n);
}

/** Row counts of the discussion tables, to show that a refused or invalid write stored nothing. */
export async function discussionTables(server: TestServer): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of ['discussion_topics', 'discussion_entries', 'discussion_topic_participants']) out[t] = await count(server, t);
  const rows: { s: string; n: number | string }[] = await server.app.ds.query('SELECT workflow_state AS s, COUNT(*) AS n FROM discussion_topics GROUP BY workflow_state');
  for (const r of rows) out[`topics:${r.s}`] = Number(r.n);
  return out;
}

export type Room = Awaited<ReturnType<typeof discussionWorld>>;

/**
 * A published course (teacher, two students, an observer, a TA) with a class group holding the two
 * students, a classmate outside the group, and an outsider with no course at all.
 */
export async function discussionWorld(world: World) {
  const room = await world.classroom();
  const [classmate, ta] = await Promise.all([world.user('Carl Classmate'), world.user('Tara Assistant')]);
  await world.enroll(room.course.id, classmate.id, 'StudentEnrollment');
  await world.enroll(room.course.id, ta.id, 'TaEnrollment');
  const group = await makeGroup(room.teacher.api, room.course.id, [room.student, room.student2]);
  return { ...room, classmate, ta, group };
}

/** A class group of the course with the given members (added by the teacher). */
export async function makeGroup(teacher: Api, courseId: number, members: WorldUser[]): Promise<{ id: number; name: string }> {
  const cat = ok(await teacher.post(`/api/v1/courses/${courseId}/group_categories`, { name: `Projects ${Math.random().toString(36).slice(2, 7)}` }), 'category');
  const group = ok(await teacher.post(`/api/v1/group_categories/${cat.id}/groups`, { name: 'Team Alpha' }), 'group');
  for (const m of members) ok(await teacher.post(`/api/v1/groups/${group.id}/memberships`, { user_id: m.id }), 'membership');
  return group;
}

export const coursePath = (courseId: number) => `/api/v1/courses/${courseId}`;
export const groupPath = (groupId: number) => `/api/v1/groups/${groupId}`;

export async function topic(api: Api, base: string, fields: Record<string, unknown> = {}): Promise<any> {
  return ok(await api.post(`${base}/discussion_topics`, { title: 'A topic', message: '<p>Hello</p>', published: true, ...fields }), 'create topic');
}

export async function entry(api: Api, base: string, topicId: number, message = 'An entry'): Promise<any> {
  return ok(await api.post(`${base}/discussion_topics/${topicId}/entries`, { message }), 'create entry');
}
