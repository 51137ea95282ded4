/**
 * The worlds of the scaling bench (`npm run bench:scale`): one set of parents that grows from 1x to 10x
 * to 100x in place, so each size is a real world of that size (tables hold what the parents hold, and
 * a list that scans a whole table shows it).
 *
 * A small template of every kind of row is made through the public REST API (so each row is what the
 * service itself writes); every further row is a copy of its template, written with multi-row INSERTs
 * in one transaction per table straight into the database: thousands of rows in well under a second,
 * where the API would take minutes. Only the columns that must differ (ids, names, positions, dates,
 * the parent or the user) are changed in a copy.
 *
 * Sizes at 1x (times 10 and 100 for the larger worlds):
 *   course C: a teacher, 40 students (enrollments 41), a group set of 11 groups, the first group with
 *             20 members, 20 published modules of 2 must-view items each (the student's modules page),
 *             one published assignment (its submissions list: one per student);
 *   account:  the students' logins (an account's users);
 *   course L: the teacher's second course, one module of 40 items (a long module's items);
 *   planner:  20 planner notes of the first student, spread over the default planner window.
 */
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { BenchServer, BenchUser, World } from './support';

export interface ScaleCounts {
  students: number;
  groups: number;
  members: number;
  modules: number;
  items: number;
  notes: number;
}

export const BASE: ScaleCounts = { students: 40, groups: 11, members: 20, modules: 20, items: 40, notes: 20 };

export function countsAt(factor: number): ScaleCounts {
  // 11 / 101 / 1,001 groups: one more than a round number, so the last page is never a full one.
  return {
    students: BASE.students * factor,
    groups: 10 * factor + 1,
    members: BASE.members * factor,
    modules: BASE.modules * factor,
    items: BASE.items * factor,
    notes: BASE.notes * factor,
  };
}

export interface ScaleWorld {
  course: number;
  longCourse: number;
  longModule: number;
  category: number;
  group: number;
  /** A published assignment of course C (its submissions list follows the students). */
  assignment: number;
  /** The site admin's token (an account's users). */
  adminToken: string;
  teacher: BenchUser & { token: string };
  student: BenchUser & { token: string };
  /** Row counts of the world as it stands. */
  counts: ScaleCounts;
  /** Grows every parent to the counts of `factor` (never shrinks). */
  grow(factor: number): Promise<{ seconds: number; rows: number }>;
}

function ok<T extends { status: number; text: string }>(res: T, what: string): T {
  if (res.status >= 300) throw new Error(`${what} failed: HTTP ${res.status} ${res.text.slice(0, 300)}`);
  return res;
}

const DAY = 86_400_000;

/** A note's date: spread evenly over the 26 days around now, inside the planner's default window. */
const noteDate = (i: number, n: number, now: number) => new Date(now - 13 * DAY + Math.floor((i * 26 * DAY) / Math.max(1, n)) + 60_000);

export async function seedScaleWorld(server: BenchServer): Promise<ScaleWorld> {
  const world = new World(server);
  const admin = server.admin;
  const now = Date.now();

  // Templates through the API.
  const { course, teacher, students } = await world.classroom({ students: 2, sections: 0, name: 'Scale Course' });
  const first = students[0];
  const t = ok(await admin.post(`/api/v1/users/${first.id}/tokens`, { token: { purpose: 'bench' } }), 'student token');
  const student = { ...first, token: t.body.visible_token as string, api: server.as(t.body.visible_token) };

  const set = ok(await admin.post(`/api/v1/courses/${course.id}/group_categories`, { name: 'Project teams', create_group_count: '1' }), 'group set');
  const groups = ok(await admin.get(`/api/v1/group_categories/${set.body.id}/groups?per_page=10`), 'list groups').body as { id: number }[];
  const group = groups[0].id;
  for (const s of students) ok(await admin.post(`/api/v1/groups/${group}/memberships`, { user_id: String(s.id) }), 'join group');

  const module = ok(await admin.post(`/api/v1/courses/${course.id}/modules`, { module: { name: 'Week 0001', position: 1 } }), 'create module').body.id as number;
  for (let j = 0; j < 2; j++) {
    ok(
      await admin.post(`/api/v1/courses/${course.id}/modules/${module}/items`, {
        module_item: { title: `Reading 1.${j + 1}`, type: 'ExternalUrl', external_url: `https://example.com/r/1/${j}`, completion_requirement: { type: 'must_view' } },
      }),
      'create module item',
    );
  }
  ok(await admin.request('PUT', `/api/v1/courses/${course.id}/modules/${module}`, { module: { published: 'true' } }), 'publish module');

  const assignment = ok(
    await admin.post(`/api/v1/courses/${course.id}/assignments`, { assignment: { name: 'Scale Essay', submission_types: ['online_text_entry'], points_possible: 10, published: true } }),
    'assignment',
  ).body.id as number;

  const longCourse = ok(await admin.post('/api/v1/accounts/self/courses', { course: { name: 'Scale Long Module' }, offer: 'true' }), 'course').body.id as number;
  await world.enroll(longCourse, teacher.id, 'TeacherEnrollment');
  const longModule = ok(await admin.post(`/api/v1/courses/${longCourse}/modules`, { module: { name: 'The long one', position: 1 } }), 'module').body.id as number;
  ok(
    await admin.post(`/api/v1/courses/${longCourse}/modules/${longModule}/items`, {
      module_item: { title: 'Item 00001', type: 'ExternalUrl', external_url: 'https://example.com/long/1', completion_requirement: { type: 'must_view' } },
    }),
    'long item',
  );
  ok(await admin.request('PUT', `/api/v1/courses/${longCourse}/modules/${longModule}`, { module: { published: 'true' } }), 'publish long module');

  ok(await student.api.post('/api/v1/planner_notes', { title: 'Note 00001', details: 'Remember', todo_date: noteDate(0, BASE.notes, now).toISOString() }), 'note');

  const ds = server.app.ds;
  const tpl = await templates(ds, { course: course.id, student: student.id, extra: students[1].id, group, module, longModule });
  const counts: ScaleCounts = {
    students: students.length,
    groups: 1,
    members: students.length,
    modules: 1,
    items: 1,
    notes: 1,
  };
  const tag = randomBytes(3).toString('hex');

  async function grow(factor: number) {
    const started = performance.now();
    const want = countsAt(factor);
    let rows = 0;
    await ds.transaction(async (em) => {
      const q = (sql: string, p: unknown[] = []) => em.query(sql, p);
      // Students: user, login and enrollment in C, each a copy of the second template student.
      const newStudents = want.students - counts.students;
      if (newStudents > 0) {
        const names = Array.from({ length: newStudents }, (_, k) => `Student ${String(counts.students + k + 1).padStart(5, '0')}`);
        const firstId = await insertCopies(q, 'users', tpl.user, names.length, (k) => ({ name: names[k], sortable_name: names[k], short_name: names[k] }));
        const ids = range(firstId, names.length);
        await insertCopies(q, 'pseudonyms', tpl.pseudonym, names.length, (k) => {
          const login = `scale.${tag}.${counts.students + k + 1}@example.com`;
          return { user_id: ids[k], unique_id: login, unique_id_normalized: login, sortable_name: names[k] };
        });
        await insertCopies(q, 'enrollments', tpl.enrollment, names.length, (k) => ({ user_id: ids[k], sortable_name: names[k] }));
        // The first group's members come from these students, in order.
        const newMembers = Math.min(want.members - counts.members, names.length);
        // Memberships carry their member's sortable name (the group users list pages in that order).
        if (newMembers > 0) await insertCopies(q, 'group_memberships', tpl.membership, newMembers, (k) => ({ user_id: ids[k], sortable_name: names[k] }));
        rows += names.length * 3 + Math.max(0, newMembers);
        counts.members += Math.max(0, newMembers);
        counts.students = want.students;
      }
      const newGroups = want.groups - counts.groups;
      if (newGroups > 0) {
        await insertCopies(q, 'groups', tpl.group, newGroups, (k) => ({ name: `Team ${String(counts.groups + k + 1).padStart(5, '0')}`, sis_group_id: null }));
        rows += newGroups;
        counts.groups = want.groups;
      }
      // Modules of C: copies of the template module with copies of its two items. The student's
      // progressions of the new modules are evaluated (and stored) by the first read, as the service does.
      const newModules = want.modules - counts.modules;
      if (newModules > 0) {
        const firstModule = await insertCopies(q, 'context_modules', tpl.module, newModules, (k) => ({
          name: `Week ${String(counts.modules + k + 1).padStart(4, '0')}`,
          position: counts.modules + k + 1,
        }));
        const mods = range(firstModule, newModules);
        for (const item of tpl.moduleItems) await insertCopies(q, 'module_items', item, newModules, (k) => ({ module_id: mods[k] }));
        rows += newModules * (1 + tpl.moduleItems.length);
        counts.modules = want.modules;
      }
      const newItems = want.items - counts.items;
      if (newItems > 0) {
        await insertCopies(q, 'module_items', tpl.longItem, newItems, (k) => {
          const n = counts.items + k + 1;
          return { title: `Item ${String(n).padStart(5, '0')}`, position: n, url: `https://example.com/long/${n}` };
        });
        rows += newItems;
        counts.items = want.items;
      }
      const newNotes = want.notes - counts.notes;
      if (newNotes > 0) {
        await insertCopies(q, 'planner_notes', tpl.note, newNotes, (k) => {
          const n = counts.notes + k;
          return { title: `Note ${String(n + 1).padStart(5, '0')}`, todo_date: sameKind(tpl.note.todo_date, noteDate(n, want.notes, now)) };
        });
        rows += newNotes;
        counts.notes = want.notes;
      }
    });
    return { seconds: (performance.now() - started) / 1000, rows };
  }

  return {
    course: course.id,
    longCourse,
    longModule,
    category: set.body.id,
    group,
    assignment,
    adminToken: server.adminToken,
    teacher: teacher as BenchUser & { token: string },
    student,
    counts,
    grow,
  };
}

type Row = Record<string, unknown>;
type Query = (sql: string, params?: unknown[]) => Promise<any>;

async function one(ds: DataSource, sql: string, params: unknown[]): Promise<Row> {
  const rows: Row[] = await ds.query(sql, params);
  if (!rows.length) throw new Error(`no template row: ${sql} ${JSON.stringify(params)}`);
  return rows[0];
}

async function templates(ds: DataSource, ids: { course: number; student: number; extra: number; group: number; module: number; longModule: number }) {
  return {
    user: await one(ds, 'SELECT * FROM users WHERE id = ?', [ids.extra]),
    pseudonym: await one(ds, 'SELECT * FROM pseudonyms WHERE user_id = ?', [ids.extra]),
    enrollment: await one(ds, 'SELECT * FROM enrollments WHERE user_id = ? AND course_id = ?', [ids.extra, ids.course]),
    membership: await one(ds, 'SELECT * FROM group_memberships WHERE user_id = ? AND group_id = ?', [ids.extra, ids.group]),
    group: await one(ds, 'SELECT * FROM `groups` WHERE id = ?', [ids.group]),
    module: await one(ds, 'SELECT * FROM context_modules WHERE id = ?', [ids.module]),
    moduleItems: (await ds.query('SELECT * FROM module_items WHERE module_id = ? ORDER BY position', [ids.module])) as Row[],
    longItem: await one(ds, 'SELECT * FROM module_items WHERE module_id = ?', [ids.longModule]),
    note: await one(ds, 'SELECT * FROM planner_notes WHERE user_id = ?', [ids.student]),
  };
}

const range = (start: number, n: number) => Array.from({ length: n }, (_, k) => start + k);

/** A date in the form the engine gave the template's value: a Date (mysql2) or SQLite's text. */
function sameKind(template: unknown, d: Date): unknown {
  if (template instanceof Date) return d;
  const iso = d.toISOString().replace('T', ' ').replace('Z', '');
  return typeof template === 'string' ? iso.slice(0, Math.max(19, template.length)) : iso;
}

const CHUNK = 400;

/**
 * `n` copies of `template` with `change(k)` applied to copy k, in multi-row INSERTs; returns the id of
 * the first copy. Ids are consecutive: the copies are written inside one transaction that no other
 * writer shares while the bench seeds, and both engines hand out auto-increment ids in row order.
 */
async function insertCopies(q: Query, table: string, template: Row, n: number, change: (k: number) => Row): Promise<number> {
  const columns = Object.keys(template).filter((c) => c !== 'id');
  let firstId = 0;
  for (let start = 0; start < n; start += CHUNK) {
    const count = Math.min(CHUNK, n - start);
    const values: unknown[] = [];
    for (let k = start; k < start + count; k++) {
      const row = { ...template, ...change(k) };
      for (const c of columns) values.push(row[c] ?? null);
    }
    const tuple = `(${columns.map(() => '?').join(', ')})`;
    const quoted = columns.map((c) => `\`${c}\``).join(', ');
    await q(`INSERT INTO \`${table}\` (${quoted}) VALUES ${Array.from({ length: count }, () => tuple).join(', ')}`, values);
    if (start === 0) {
      const [{ id }] = (await q(`SELECT MAX(id) AS id FROM \`${table}\``)) as { id: number }[];
      firstId = Number(id) - count + 1;
    }
  }
  return firstId;
}
