/**
 * The world of the read-path bench (issue 11), seeded through the public REST API as the site admin:
 * one published course with a teacher and `students` students; `modules` published modules of
 * `items` ExternalUrl items each (must_view requirements, so a student's page carries progress);
 * a group set of `groups` groups with the students spread over them; and, for the first student,
 * planner items in the default window (now ± 14 days): published assignments and planner notes.
 */
import { BenchUser, mapLimit, World } from './support';

export interface ReadWorldSize {
  students: number;
  modules: number;
  items: number;
  groups: number;
  assignments: number;
  notes: number;
}

export interface ReadWorld {
  course: { id: number };
  teacher: BenchUser & { token: string };
  student: BenchUser & { token: string };
  moduleIds: number[];
}

function ok<T extends { status: number; text: string }>(res: T, what: string): T {
  if (res.status >= 300) throw new Error(`${what} failed: HTTP ${res.status} ${res.text.slice(0, 300)}`);
  return res;
}

const DAY = 86_400_000;

export async function seedReadWorld(world: World, size: ReadWorldSize): Promise<ReadWorld> {
  const admin = world.server.admin;
  const { course, teacher, students } = await world.classroom({ students: size.students, sections: 0 });
  const first = students[0];
  const t = ok(await admin.post(`/api/v1/users/${first.id}/tokens`, { token: { purpose: 'bench' } }), 'student token');
  const student = { ...first, token: t.body.visible_token as string, api: world.server.as(t.body.visible_token) };

  // Modules: created unpublished, filled, then published (which publishes their items).
  const moduleIds = await mapLimit(
    Array.from({ length: size.modules }, (_, i) => i),
    4,
    async (i) => {
      const m = ok(await admin.post(`/api/v1/courses/${course.id}/modules`, { module: { name: `Week ${i + 1}`, position: i + 1 } }), 'create module');
      for (let j = 0; j < size.items; j++) {
        ok(
          await admin.post(`/api/v1/courses/${course.id}/modules/${m.body.id}/items`, {
            module_item: { title: `Reading ${i + 1}.${j + 1}`, type: 'ExternalUrl', external_url: `https://example.com/r/${i}/${j}`, completion_requirement: { type: 'must_view' } },
          }),
          'create module item',
        );
      }
      return m.body.id as number;
    },
  );
  // Published in position order (sequential: publishing touches the course's progressions).
  for (const id of moduleIds) ok(await admin.request('PUT', `/api/v1/courses/${course.id}/modules/${id}`, { module: { published: 'true' } }), 'publish module');

  // Groups: one set, `groups` groups; students one per group, round robin.
  const set = ok(await admin.post(`/api/v1/courses/${course.id}/group_categories`, { name: 'Project teams', create_group_count: String(size.groups) }), 'group set');
  const groups: { id: number }[] = [];
  for (let page = 1; groups.length < size.groups; page++) {
    const res = ok(await admin.get(`/api/v1/group_categories/${set.body.id}/groups?per_page=100&page=${page}`), 'list groups');
    if (!res.body.length) break;
    groups.push(...res.body);
  }
  await mapLimit(students, 8, async (s, i) => ok(await admin.post(`/api/v1/groups/${groups[i % groups.length].id}/memberships`, { user_id: String(s.id) }), 'join group'));

  // Planner: assignments due and notes to do over the next days (inside the default window).
  const now = Date.now();
  await mapLimit(Array.from({ length: size.assignments }, (_, i) => i), 8, async (i) =>
    ok(
      await admin.post(`/api/v1/courses/${course.id}/assignments`, {
        assignment: { name: `Homework ${i + 1}`, points_possible: '10', due_at: new Date(now + DAY + i * 3_600_000 * 3).toISOString(), published: 'true', submission_types: ['online_text_entry'] },
      }),
      'create assignment',
    ),
  );
  await mapLimit(Array.from({ length: size.notes }, (_, i) => i), 8, async (i) =>
    ok(await student.api.post('/api/v1/planner_notes', { title: `Note ${i + 1}`, details: 'Remember', todo_date: new Date(now + DAY + i * 3_600_000 * 3 + 1_800_000).toISOString() }), 'create note'),
  );

  return { course, teacher: teacher as BenchUser & { token: string }, student, moduleIds };
}
