import { randomBytes } from 'node:crypto';
import { AccountService } from '../../src/accounts/account.service';
import type { Api, ApiResponse } from './api';
import type { TestServer } from './server';
import { World, WorldUser } from './world';

/** Shared helpers of the groups test files: Canvas bodies, row counts and a world with groups in it. */

export const FORBIDDEN = { status: 'unauthorized', errors: [{ message: 'user not authorized to perform that action' }] };
export const UNAUTHENTICATED = { status: 'unauthenticated', errors: [{ message: 'user authorization required' }] };
export const NOT_FOUND = { errors: [{ message: 'The specified resource does not exist.' }] };
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

export const uniq = () => randomBytes(4).toString('hex');

export function expectOk<T>(res: ApiResponse<T>, what = 'request'): ApiResponse<T> {
  if (res.status !== 200) throw new Error(`${what} failed: ${res.status} ${res.text}`);
  return res;
}

export async function count(server: TestServer, table: string, where = '1=1', params: unknown[] = []): Promise<number> {
  const rows = await server.app.ds.query(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`, params);
  return Number(rows[0].n);
}

/** Row counts of every groups table, to assert that a refused write stored nothing. */
export async function groupTables(server: TestServer): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of ['group_categories', 'groups', 'group_memberships', 'group_invitations']) out[t] = await count(server, t);
  // Soft deletes and state changes are updates: count live rows per state as well.
  const states: { workflow_state: string; n: number | string }[] = await server.app.ds.query(
    'SELECT workflow_state, COUNT(*) AS n FROM group_memberships GROUP BY workflow_state ORDER BY workflow_state',
  );
  for (const s of states) out[`memberships:${s.workflow_state}`] = Number(s.n);
  const groups: { workflow_state: string; n: number | string }[] = await server.app.ds.query(
    'SELECT workflow_state, COUNT(*) AS n FROM groups GROUP BY workflow_state ORDER BY workflow_state',
  );
  for (const s of groups) out[`groups:${s.workflow_state}`] = Number(s.n);
  const mods = await server.app.ds.query('SELECT COUNT(*) AS n FROM group_memberships WHERE moderator = ?', [1]);
  out.moderators = Number(mods[0].n);
  return out;
}

export async function membershipRow(server: TestServer, groupId: number, userId: number): Promise<{ workflow_state: string; moderator: boolean } | null> {
  const rows = await server.app.ds.query('SELECT workflow_state, moderator FROM group_memberships WHERE group_id = ? AND user_id = ?', [groupId, userId]);
  return rows[0] ? { workflow_state: rows[0].workflow_state, moderator: Boolean(Number(rows[0].moderator)) } : null;
}

export async function groupRow(server: TestServer, groupId: number): Promise<Record<string, any>> {
  const rows = await server.app.ds.query('SELECT * FROM groups WHERE id = ?', [groupId]);
  return rows[0];
}

/** Makes a user an admin of the root account (there is no REST route for account admins). */
export async function makeAccountAdmin(server: TestServer, userId: number, accountId = 1): Promise<void> {
  await AccountService.addAdmin(server.app.ds.manager, accountId, userId);
}

export type Classroom = Awaited<ReturnType<World['classroom']>>;

/** A classroom with a TA, an account admin and a student of another course, for permission tests. */
export async function groupsWorld(world: World) {
  const room = await world.classroom();
  const [ta, admin, otherStudent] = await Promise.all([world.user('Tara Assistant'), world.user('Ada Admin'), world.user('Otto Otherclass')]);
  await world.enroll(room.course.id, ta.id, 'TaEnrollment');
  await makeAccountAdmin(world.server, admin.id);
  const other = await world.course({ name: 'Other Course' });
  await world.enroll(other.id, otherStudent.id, 'StudentEnrollment');
  return { ...room, ta, admin, otherStudent, otherCourse: other };
}

export async function createCategory(api: Api, courseId: number, fields: Record<string, unknown> = {}): Promise<any> {
  const res = await api.post(`/api/v1/courses/${courseId}/group_categories`, { name: `Set ${uniq()}`, ...fields });
  return expectOk(res, 'create category').body;
}

export async function createGroup(api: Api, categoryId: number, fields: Record<string, unknown> = {}): Promise<any> {
  const res = await api.post(`/api/v1/group_categories/${categoryId}/groups`, { name: `Group ${uniq()}`, ...fields });
  return expectOk(res, 'create group').body;
}

export async function createCommunity(api: Api, fields: Record<string, unknown> = {}): Promise<any> {
  const res = await api.post('/api/v1/groups', { name: `Community ${uniq()}`, ...fields });
  return expectOk(res, 'create community').body;
}

/** Puts users straight into a group as accepted members (the teacher/admin path of POST memberships). */
export async function addMembers(api: Api, groupId: number, users: WorldUser[]): Promise<void> {
  for (const u of users) expectOk(await api.post(`/api/v1/groups/${groupId}/memberships`, { user_id: u.id }), 'add member');
}
