import { randomBytes } from 'node:crypto';
import { parseLinks } from './support/api';
import { startTestServer, TestServer } from './support/server';
import { World, WorldUser } from './support/world';

let server: TestServer;
let world: World;
let adminId: number;

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
  adminId = (await server.admin.get('/api/v1/users/self')).body.id;
});
afterAll(() => server.close());

const uniq = () => randomBytes(4).toString('hex');

async function count(table: string, where = '1=1', params: unknown[] = []): Promise<number> {
  const rows = await server.app.ds.query(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`, params);
  return Number(rows[0].n);
}

const FORBIDDEN = { status: 'unauthorized', errors: [{ message: 'user not authorized to perform that action' }] };
const NOT_FOUND = { errors: [{ message: 'The specified resource does not exist.' }] };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** Follows Link rel="next" from `path`, returning every page's body. */
async function allPages(api: { get(p: string): Promise<{ status: number; body: any; headers: Headers }> }, path: string): Promise<any[][]> {
  const pages: any[][] = [];
  let next: string | undefined = path;
  while (next) {
    const res = await api.get(next);
    expect(res.status).toBe(200);
    pages.push(res.body);
    next = parseLinks(res.headers.get('link')).next?.replace(server.url, '');
    if (pages.length > 20) throw new Error('runaway pagination');
  }
  return pages;
}

describe('POST /api/v1/accounts/:account_id/courses', () => {
  it('creates an unpublished "Unnamed Course" by default, with Canvas Course JSON', async () => {
    const res = await server.admin.post('/api/v1/accounts/self/courses', {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: expect.any(Number),
      name: 'Unnamed Course',
      course_code: 'Unnamed Course',
      account_id: 1,
      root_account_id: 1,
      workflow_state: 'unpublished',
      start_at: null,
      end_at: null,
      default_view: 'modules',
      is_public: false,
      storage_quota_mb: null,
      restrict_enrollments_to_course_dates: false,
      enrollment_term_id: null,
      blueprint: false,
      uuid: expect.stringMatching(/^[0-9a-f]{32}$/),
      created_at: expect.stringMatching(ISO),
    });
    expect(res.body.calendar).toEqual({ ics: `${server.url}/feeds/calendars/course_${res.body.uuid}.ics` });
    // The course has its default section.
    expect(await count('course_sections', 'course_id = ? AND default_section = ?', [res.body.id, 1])).toBe(1);
    // Nobody was enrolled.
    expect(await count('enrollments', 'course_id = ?', [res.body.id])).toBe(0);
  });

  it('publishes with offer=true and stores the given fields', async () => {
    const sis = `CRS-${uniq()}`;
    const res = await server.admin.post('/api/v1/accounts/1/courses', {
      course: {
        name: 'Chemistry',
        course_code: 'CHEM-1',
        start_at: '2030-01-01T08:00:00Z',
        end_at: '2030-06-01T08:00:00Z',
        sis_course_id: sis,
        storage_quota_mb: 750,
        license: 'cc_by',
        is_public: 'true',
        default_view: 'syllabus',
      },
      offer: 'true',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Chemistry',
      course_code: 'CHEM-1',
      workflow_state: 'available',
      start_at: '2030-01-01T08:00:00Z',
      end_at: '2030-06-01T08:00:00Z',
      sis_course_id: sis,
      storage_quota_mb: 750,
      license: 'cc_by',
      is_public: true,
      default_view: 'syllabus',
    });
    const offFalse = await server.admin.post('/api/v1/accounts/self/courses', { course: { name: 'Off' }, offer: 'false' });
    expect(offFalse.body.workflow_state).toBe('unpublished');
  });

  it('with enroll_me=true makes the caller an active teacher', async () => {
    const res = await server.admin.post('/api/v1/accounts/self/courses', { course: { name: 'Mine' }, enroll_me: 'true' });
    expect(res.status).toBe(200);
    const list = await server.admin.get(`/api/v1/courses/${res.body.id}/enrollments`);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({ user_id: adminId, type: 'TeacherEnrollment', role: 'TeacherEnrollment', enrollment_state: 'active' });
    const mine = await server.admin.get('/api/v1/courses?per_page=100');
    const entry = mine.body.find((c: { id: number }) => c.id === res.body.id);
    expect(entry.enrollments).toEqual([
      { type: 'teacher', role: 'TeacherEnrollment', user_id: adminId, enrollment_state: 'active', limit_privileges_to_course_section: false },
    ]);
    // enroll_me=false (or anything but true) enrolls nobody.
    const notMe = await server.admin.post('/api/v1/accounts/self/courses', { course: { name: 'Not Mine' }, enroll_me: 'false' });
    expect(await count('enrollments', 'course_id = ?', [notMe.body.id])).toBe(0);
  });

  it('refuses an end date before the start date with errors.conclude_at and stores nothing', async () => {
    const [courses, sections] = [await count('courses'), await count('course_sections')];
    const res = await server.admin.post('/api/v1/accounts/self/courses', {
      course: { name: 'Backwards', start_at: '2030-06-01T00:00:00Z', end_at: '2030-01-01T00:00:00Z' },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.conclude_at).toEqual([{ attribute: 'conclude_at', type: 'invalid', message: expect.any(String) }]);
    expect(await count('courses')).toBe(courses);
    expect(await count('course_sections')).toBe(sections);
  });

  it('refuses a malformed date with 400 naming the field', async () => {
    const before = await count('courses');
    const res = await server.admin.post('/api/v1/accounts/self/courses', { course: { name: 'Bad Date', start_at: 'next tuesday' } });
    expect(res.status).toBe(400);
    expect(res.body.errors.start_at[0]).toMatchObject({ attribute: 'start_at', type: 'invalid' });
    expect(await count('courses')).toBe(before);
  });

  it('refuses a sis_course_id already in use', async () => {
    const sis = `DUP-${uniq()}`;
    expect((await server.admin.post('/api/v1/accounts/self/courses', { course: { name: 'One', sis_course_id: sis } })).status).toBe(200);
    const before = await count('courses');
    const res = await server.admin.post('/api/v1/accounts/self/courses', { course: { name: 'Two', sis_course_id: sis } });
    expect(res.status).toBe(400);
    expect(res.body.errors.sis_source_id[0]).toMatchObject({ attribute: 'sis_source_id', type: 'taken' });
    expect(await count('courses')).toBe(before);
  });

  it('refuses a non-admin with 403 and stores nothing', async () => {
    const u = await world.user('Course Creator Wannabe');
    const before = await count('courses');
    const res = await u.api.post('/api/v1/accounts/self/courses', { course: { name: 'Nope' }, enroll_me: 'true' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    expect(await count('courses')).toBe(before);
    expect(await count('enrollments', 'user_id = ?', [u.id])).toBe(0);
  });
});

describe('GET /api/v1/courses/:id', () => {
  let room: Awaited<ReturnType<World['classroom']>>;
  beforeAll(async () => {
    room = await world.classroom();
  });

  it('shows the course to its teacher and students', async () => {
    const t = await room.teacher.api.get(`/api/v1/courses/${room.course.id}`);
    expect(t.status).toBe(200);
    expect(t.body).toMatchObject({ id: room.course.id, name: 'Biology 101', workflow_state: 'available' });
    const s = await room.student.api.get(`/api/v1/courses/${room.course.id}`);
    expect(s.status).toBe(200);
    expect(s.body.id).toBe(room.course.id);
    const o = await room.observer.api.get(`/api/v1/courses/${room.course.id}`);
    expect(o.status).toBe(200);
  });

  it('refuses an outsider with 403', async () => {
    const res = await room.outsider.api.get(`/api/v1/courses/${room.course.id}`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
  });

  it('hides an unpublished course from its students but not its teacher', async () => {
    const draft = await world.course({ name: 'Draft Course', published: false });
    await world.enroll(draft.id, room.teacher.id, 'TeacherEnrollment');
    await world.enroll(draft.id, room.student.id, 'StudentEnrollment');
    expect((await room.student.api.get(`/api/v1/courses/${draft.id}`)).status).toBe(403);
    const t = await room.teacher.api.get(`/api/v1/courses/${draft.id}`);
    expect(t.status).toBe(200);
    expect(t.body.workflow_state).toBe('unpublished');
    // Once published the student can read it.
    expect((await room.teacher.api.put(`/api/v1/courses/${draft.id}`, { course: { event: 'offer' } })).status).toBe(200);
    expect((await room.student.api.get(`/api/v1/courses/${draft.id}`)).status).toBe(200);
  });

  it('answers 404 for unknown and malformed ids', async () => {
    const res = await room.teacher.api.get('/api/v1/courses/99999999');
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
    expect((await server.admin.get('/api/v1/courses/abc')).status).toBe(404);
    expect((await server.admin.get('/api/v1/courses/sis_course_id:no-such-course')).status).toBe(404);
  });

  it('finds a course by sis_course_id:, showing the SIS id to staff only', async () => {
    const sis = `SIS/${uniq()}`;
    const c = await server.admin.post('/api/v1/accounts/self/courses', { course: { name: 'SIS Course', sis_course_id: sis }, offer: true });
    await world.enroll(c.body.id, room.teacher.id, 'TeacherEnrollment');
    await world.enroll(c.body.id, room.student.id, 'StudentEnrollment');
    const res = await server.admin.get(`/api/v1/courses/sis_course_id:${encodeURIComponent(sis)}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: c.body.id, sis_course_id: sis });
    expect((await room.teacher.api.get(`/api/v1/courses/${c.body.id}`)).body.sis_course_id).toBe(sis);
    const s = await room.student.api.get(`/api/v1/courses/${c.body.id}`);
    expect(s.status).toBe(200);
    expect(s.body).not.toHaveProperty('sis_course_id');
  });
});

describe('PUT /api/v1/courses/:id', () => {
  let room: Awaited<ReturnType<World['classroom']>>;
  beforeAll(async () => {
    room = await world.classroom();
  });

  it('lets a teacher rename the course', async () => {
    const res = await room.teacher.api.put(`/api/v1/courses/${room.course.id}`, { course: { name: 'Biology 102', course_code: 'BIO102' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: room.course.id, name: 'Biology 102', course_code: 'BIO102' });
    expect((await room.student.api.get(`/api/v1/courses/${room.course.id}`)).body.name).toBe('Biology 102');
  });

  it('refuses a student with 403 and leaves the course unchanged', async () => {
    const before = (await server.admin.get(`/api/v1/courses/${room.course.id}`)).body;
    const res = await room.student.api.put(`/api/v1/courses/${room.course.id}`, { course: { name: 'Hacked' } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    const after = (await server.admin.get(`/api/v1/courses/${room.course.id}`)).body;
    expect(after).toEqual(before);
    expect((await room.outsider.api.put(`/api/v1/courses/${room.course.id}`, { course: { name: 'Hacked' } })).status).toBe(403);
  });

  it('publishes with course[event]=offer and completes with conclude', async () => {
    const c = await world.course({ name: 'Lifecycle', published: false });
    await world.enroll(c.id, room.teacher.id, 'TeacherEnrollment');
    const offered = await room.teacher.api.put(`/api/v1/courses/${c.id}`, { course: { event: 'offer' } });
    expect(offered.status).toBe(200);
    expect(offered.body.workflow_state).toBe('available');
    const claimed = await room.teacher.api.put(`/api/v1/courses/${c.id}`, { course: { event: 'claim' } });
    expect(claimed.body.workflow_state).toBe('unpublished');
    const viaOffer = await room.teacher.api.put(`/api/v1/courses/${c.id}`, { offer: 'true' });
    expect(viaOffer.body.workflow_state).toBe('available');
    const concluded = await room.teacher.api.put(`/api/v1/courses/${c.id}`, { course: { event: 'conclude' } });
    expect(concluded.status).toBe(200);
    expect(concluded.body.workflow_state).toBe('completed');
    expect((await server.admin.get(`/api/v1/courses/${c.id}`)).body.workflow_state).toBe('completed');
  });

  it('refuses an unknown event with 400 and changes nothing', async () => {
    const res = await room.teacher.api.put(`/api/v1/courses/${room.course.id}`, { course: { event: 'explode', name: 'Should Not Stick' } });
    expect(res.status).toBe(400);
    expect(res.body.errors.event[0]).toMatchObject({ attribute: 'event', type: 'inclusion' });
    expect((await server.admin.get(`/api/v1/courses/${room.course.id}`)).body.name).not.toBe('Should Not Stick');
  });

  it('refuses an end date before the start date', async () => {
    const res = await room.teacher.api.put(`/api/v1/courses/${room.course.id}`, { course: { start_at: '2031-05-01', end_at: '2031-01-01' } });
    expect(res.status).toBe(400);
    expect(res.body.errors.conclude_at[0].type).toBe('invalid');
    expect((await server.admin.get(`/api/v1/courses/${room.course.id}`)).body.start_at).toBeNull();
  });

  it('ignores storage_quota_mb from a teacher but applies it for an admin', async () => {
    const t = await room.teacher.api.put(`/api/v1/courses/${room.course.id}`, { course: { storage_quota_mb: 9999, name: 'Quota Course' } });
    expect(t.status).toBe(200);
    expect(t.body.name).toBe('Quota Course');
    expect(t.body.storage_quota_mb).toBeNull();
    const a = await server.admin.put(`/api/v1/courses/${room.course.id}`, { course: { storage_quota_mb: 1234 } });
    expect(a.status).toBe(200);
    expect(a.body.storage_quota_mb).toBe(1234);
    expect((await room.teacher.api.get(`/api/v1/courses/${room.course.id}`)).body.storage_quota_mb).toBe(1234);
  });

  it('ignores sis_course_id from a teacher but applies it for an admin', async () => {
    const sis = `PUT-${uniq()}`;
    const t = await room.teacher.api.put(`/api/v1/courses/${room.course.id}`, { course: { sis_course_id: sis } });
    expect(t.status).toBe(200);
    expect(t.body).not.toHaveProperty('sis_course_id');
    const a = await server.admin.put(`/api/v1/courses/${room.course.id}`, { course: { sis_course_id: sis } });
    expect(a.body.sis_course_id).toBe(sis);
    expect((await room.teacher.api.get(`/api/v1/courses/sis_course_id:${sis}`)).body.id).toBe(room.course.id);
  });

  it('answers 404 for an unknown course', async () => {
    expect((await server.admin.put('/api/v1/courses/77777777', { course: { name: 'x' } })).status).toBe(404);
  });
});

describe('GET /api/v1/courses', () => {
  let teacher: WorldUser;
  let student: WorldUser;
  const published: number[] = [];
  let draftId: number;

  beforeAll(async () => {
    [teacher, student] = await Promise.all([world.user('List Teacher'), world.user('List Student')]);
    for (let i = 0; i < 3; i++) {
      const c = await world.course({ name: `Listed ${i}` });
      published.push(c.id);
      await world.enroll(c.id, teacher.id, 'TeacherEnrollment');
      await world.enroll(c.id, student.id, 'StudentEnrollment', { state: i === 2 ? 'invited' : 'active' });
    }
    const draft = await world.course({ name: 'Listed Draft', published: false });
    draftId = draft.id;
    await world.enroll(draft.id, teacher.id, 'TeacherEnrollment');
    await world.enroll(draft.id, student.id, 'StudentEnrollment');
  });

  it("lists the caller's courses with their own enrollments", async () => {
    const res = await teacher.api.get('/api/v1/courses');
    expect(res.status).toBe(200);
    expect(res.body.map((c: { id: number }) => c.id)).toEqual([...published, draftId]);
    for (const c of res.body) {
      expect(c.enrollments).toEqual([
        { type: 'teacher', role: 'TeacherEnrollment', user_id: teacher.id, enrollment_state: 'active', limit_privileges_to_course_section: false },
      ]);
    }
    expect(res.body[3]).toMatchObject({ name: 'Listed Draft', workflow_state: 'unpublished' });
  });

  it('does not show students their unpublished courses, and shows invitations', async () => {
    const res = await student.api.get('/api/v1/courses');
    expect(res.status).toBe(200);
    expect(res.body.map((c: { id: number }) => c.id)).toEqual(published);
    expect(res.body[0].enrollments).toEqual([
      { type: 'student', role: 'StudentEnrollment', user_id: student.id, enrollment_state: 'active', limit_privileges_to_course_section: false },
    ]);
    expect(res.body[2].enrollments[0]).toMatchObject({ type: 'student', enrollment_state: 'invited' });
    const active = await student.api.get('/api/v1/courses?enrollment_state=active');
    expect(active.body.map((c: { id: number }) => c.id)).toEqual(published.slice(0, 2));
  });

  it('filters by enrollment_type', async () => {
    const both = await world.user('Both Roles');
    await world.enroll(published[0], both.id, 'TaEnrollment');
    await world.enroll(published[1], both.id, 'StudentEnrollment');
    const ta = await both.api.get('/api/v1/courses?enrollment_type=ta');
    expect(ta.body.map((c: { id: number }) => c.id)).toEqual([published[0]]);
    expect(ta.body[0].enrollments[0]).toMatchObject({ type: 'ta', role: 'TaEnrollment' });
  });

  it('is paginated with Link headers', async () => {
    const first = await teacher.api.get('/api/v1/courses?per_page=3');
    expect(first.body).toHaveLength(3);
    const links = parseLinks(first.headers.get('link'));
    expect(links.next).toBe(`${server.url}/api/v1/courses?page=2&per_page=3`);
    expect(links.last).toBe(`${server.url}/api/v1/courses?page=2&per_page=3`);
    const pages = await allPages(teacher.api, '/api/v1/courses?per_page=3');
    expect(pages.map((p) => p.length)).toEqual([3, 1]);
    expect(pages.flat().map((c: { id: number }) => c.id)).toEqual([...published, draftId]);
  });

  it('lists nothing for a user with no enrollments', async () => {
    const loner = await world.user('Loner');
    const res = await loner.api.get('/api/v1/courses');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('drops deleted courses, even for their teachers', async () => {
    const doomed = await world.course({ name: 'Doomed' });
    await world.enroll(doomed.id, teacher.id, 'TeacherEnrollment');
    expect((await teacher.api.get('/api/v1/courses?per_page=100')).body.map((c: { id: number }) => c.id)).toContain(doomed.id);
    // A teacher may not delete; an admin may.
    expect((await teacher.api.put(`/api/v1/courses/${doomed.id}`, { course: { event: 'delete' } })).status).toBe(403);
    expect((await server.admin.put(`/api/v1/courses/${doomed.id}`, { course: { event: 'delete' } })).status).toBe(200);
    expect((await teacher.api.get(`/api/v1/courses/${doomed.id}`)).status).toBe(404);
    const res = await teacher.api.get('/api/v1/courses?per_page=100');
    expect(res.body.map((c: { id: number }) => c.id)).not.toContain(doomed.id);
  });
});

describe('sections', () => {
  let room: Awaited<ReturnType<World['classroom']>>;
  beforeAll(async () => {
    room = await world.classroom();
  });

  it('lets a teacher create a section (Canvas Section JSON)', async () => {
    const res = await room.teacher.api.post(`/api/v1/courses/${room.course.id}/sections`, {
      course_section: { name: 'Lab A', start_at: '2030-02-01T00:00:00Z', end_at: '2030-03-01T00:00:00Z', restrict_enrollments_to_section_dates: 'true' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'Lab A',
      course_id: room.course.id,
      sis_section_id: null,
      integration_id: null,
      sis_import_id: null,
      nonxlist_course_id: null,
      start_at: '2030-02-01T00:00:00Z',
      end_at: '2030-03-01T00:00:00Z',
      restrict_enrollments_to_section_dates: true,
      created_at: expect.stringMatching(ISO),
    });
  });

  it('ignores sis_section_id from a teacher but stores it for an admin', async () => {
    const sis = `SEC-${uniq()}`;
    const t = await room.teacher.api.post(`/api/v1/courses/${room.course.id}/sections`, { course_section: { name: 'T SIS', sis_section_id: sis } });
    expect(t.status).toBe(200);
    expect(t.body.sis_section_id).toBeNull();
    const a = await server.admin.post(`/api/v1/courses/${room.course.id}/sections`, { course_section: { name: 'A SIS', sis_section_id: sis } });
    expect(a.body.sis_section_id).toBe(sis);
  });

  it('refuses a student with 403 and stores nothing', async () => {
    const before = await count('course_sections', 'course_id = ?', [room.course.id]);
    const res = await room.student.api.post(`/api/v1/courses/${room.course.id}/sections`, { course_section: { name: 'Sneaky' } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    expect((await room.outsider.api.post(`/api/v1/courses/${room.course.id}/sections`, { course_section: { name: 'Sneaky' } })).status).toBe(403);
    expect(await count('course_sections', 'course_id = ?', [room.course.id])).toBe(before);
  });

  it('refuses a blank name with 400 and stores nothing', async () => {
    const before = await count('course_sections', 'course_id = ?', [room.course.id]);
    for (const body of [{ course_section: { name: '  ' } }, {}]) {
      const res = await room.teacher.api.post(`/api/v1/courses/${room.course.id}/sections`, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ errors: { name: [{ attribute: 'name', type: 'blank', message: "can't be blank" }] } });
    }
    expect(await count('course_sections', 'course_id = ?', [room.course.id])).toBe(before);
  });

  it('answers 404 for sections of an unknown course', async () => {
    expect((await server.admin.post('/api/v1/courses/8888888/sections', { course_section: { name: 'x' } })).status).toBe(404);
    expect((await server.admin.get('/api/v1/courses/8888888/sections')).status).toBe(404);
  });

  it('lists sections with pagination, to anyone who may read the roster', async () => {
    const c = await world.course({ name: 'Many Sections' });
    await world.enroll(c.id, room.student.id, 'StudentEnrollment');
    const made: number[] = [];
    for (let i = 0; i < 4; i++) made.push((await world.section(c.id, `S${i}`)).id);
    const pages = await allPages(room.student.api, `/api/v1/courses/${c.id}/sections?per_page=2`);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    const all = pages.flat();
    expect(all[0]).toMatchObject({ name: 'Many Sections', course_id: c.id }); // the default section
    expect(all.slice(1).map((s: { id: number }) => s.id)).toEqual(made);
    expect((await room.outsider.api.get(`/api/v1/courses/${c.id}/sections`)).status).toBe(403);
  });
});

describe('enrollments', () => {
  let room: Awaited<ReturnType<World['classroom']>>;
  let ta: WorldUser;
  beforeAll(async () => {
    room = await world.classroom();
    ta = await world.user('Terry Assistant');
    await world.enroll(room.course.id, ta.id, 'TaEnrollment');
  });

  it('enrolls every type and answers Canvas Enrollment JSON', async () => {
    const c = await world.course({ name: 'All Types' });
    const defaultSection = (await server.admin.get(`/api/v1/courses/${c.id}/sections`)).body[0].id;
    const student = await world.user('Type Student');
    for (const type of ['StudentEnrollment', 'TeacherEnrollment', 'TaEnrollment', 'DesignerEnrollment', 'ObserverEnrollment']) {
      const u = type === 'StudentEnrollment' ? student : await world.user(`Type ${type}`);
      const res = await server.admin.post(`/api/v1/courses/${c.id}/enrollments`, {
        enrollment: { user_id: u.id, type, enrollment_state: 'active', ...(type === 'ObserverEnrollment' ? { associated_user_id: student.id } : {}) },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: expect.any(Number),
        course_id: c.id,
        course_section_id: defaultSection,
        root_account_id: 1,
        user_id: u.id,
        type,
        role: type,
        enrollment_state: 'active',
        associated_user_id: type === 'ObserverEnrollment' ? student.id : null,
        limit_privileges_to_course_section: false,
        created_at: expect.stringMatching(ISO),
        html_url: `${server.url}/courses/${c.id}/users/${u.id}`,
        user: { id: u.id, name: u.name, sortable_name: expect.any(String), short_name: u.name, login_id: u.login },
      });
      if (type === 'StudentEnrollment') expect(res.body.grades).toMatchObject({ html_url: `${server.url}/courses/${c.id}/grades/${u.id}`, current_score: null });
      else expect(res.body).not.toHaveProperty('grades');
    }
    const list = await server.admin.get(`/api/v1/courses/${c.id}/enrollments?per_page=50`);
    expect(list.body.map((e: { type: string }) => e.type)).toEqual(['StudentEnrollment', 'TeacherEnrollment', 'TaEnrollment', 'DesignerEnrollment', 'ObserverEnrollment']);
  });

  it('defaults to a StudentEnrollment in the invited state, creation_pending in an unpublished course', async () => {
    const u = await world.user('Invitee');
    const res = await server.admin.post(`/api/v1/courses/${room.course.id}/enrollments`, { enrollment: { user_id: u.id } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ type: 'StudentEnrollment', enrollment_state: 'invited' });
    const draft = await world.course({ name: 'Pending', published: false });
    const pending = await server.admin.post(`/api/v1/courses/${draft.id}/enrollments`, { enrollment: { user_id: u.id } });
    expect(pending.body.enrollment_state).toBe('creation_pending');
    const activeAnyway = await server.admin.post(`/api/v1/courses/${draft.id}/enrollments`, { enrollment: { user_id: u.id, type: 'TeacherEnrollment', enrollment_state: 'active' } });
    expect(activeAnyway.body.enrollment_state).toBe('active');
  });

  it('sends held invitations when the course is published, so the invitee can see it', async () => {
    const draft = await world.course({ name: 'Held Invitations', published: false });
    await world.enroll(draft.id, room.teacher.id, 'TeacherEnrollment');
    const u = await world.user('Held Invitee');
    const e = await server.admin.post(`/api/v1/courses/${draft.id}/enrollments`, { enrollment: { user_id: u.id } });
    expect(e.body.enrollment_state).toBe('creation_pending');
    expect((await u.api.get(`/api/v1/courses/${draft.id}`)).status).toBe(403);
    expect((await u.api.get('/api/v1/courses')).body).toEqual([]);

    expect((await room.teacher.api.put(`/api/v1/courses/${draft.id}`, { course: { event: 'offer' } })).status).toBe(200);
    const seen = await u.api.get(`/api/v1/courses/${draft.id}`);
    expect(seen.status).toBe(200);
    const mine = await u.api.get('/api/v1/courses');
    expect(mine.body.map((c: { id: number }) => c.id)).toEqual([draft.id]);
    expect(mine.body[0].enrollments[0]).toMatchObject({ type: 'student', enrollment_state: 'invited' });
    const list = await room.teacher.api.get(`/api/v1/courses/${draft.id}/enrollments?user_id=${u.id}`);
    expect(list.body.map((x: { id: number; enrollment_state: string }) => [x.id, x.enrollment_state])).toEqual([[e.body.id, 'invited']]);
  });

  it('accepts user_id=self and sis_user_id: forms', async () => {
    const c = await world.course({ name: 'Self Enroll' });
    const res = await server.admin.post(`/api/v1/courses/${c.id}/enrollments`, { enrollment: { user_id: 'self', type: 'TeacherEnrollment' } });
    expect(res.status).toBe(200);
    expect(res.body.user_id).toBe(adminId);
    const sis = `U-${uniq()}`;
    const u = await server.admin.post('/api/v1/accounts/self/users', { user: { name: 'Sis Enrollee' }, pseudonym: { unique_id: `se.${uniq()}`, sis_user_id: sis } });
    const bySis = await server.admin.post(`/api/v1/courses/${c.id}/enrollments`, { enrollment: { user_id: `sis_user_id:${sis}` } });
    expect(bySis.status).toBe(200);
    expect(bySis.body.user_id).toBe(u.body.id);
  });

  it('enrolling the same user again updates the enrollment instead of duplicating it', async () => {
    const u = await world.user('Twice');
    const first = await world.enroll(room.course.id, u.id, 'StudentEnrollment', { state: 'invited' });
    const again = await server.admin.post(`/api/v1/courses/${room.course.id}/enrollments`, { enrollment: { user_id: u.id, enrollment_state: 'active' } });
    expect(again.body).toMatchObject({ id: first.id, enrollment_state: 'active' });
    expect(await count('enrollments', 'user_id = ? AND course_id = ?', [u.id, room.course.id])).toBe(1);
  });

  it('links an observer to a student, and refuses an observee who is not a student', async () => {
    const obs = await world.user('Watcher');
    const ok = await room.teacher.api.post(`/api/v1/courses/${room.course.id}/enrollments`, {
      enrollment: { user_id: obs.id, type: 'ObserverEnrollment', associated_user_id: room.student2.id },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ type: 'ObserverEnrollment', associated_user_id: room.student2.id });

    const before = await count('enrollments');
    const bad = await server.admin.post(`/api/v1/courses/${room.course.id}/enrollments`, {
      enrollment: { user_id: obs.id, type: 'ObserverEnrollment', associated_user_id: room.teacher.id },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: expect.stringContaining('associated_user_id') });
    const outsider = await server.admin.post(`/api/v1/courses/${room.course.id}/enrollments`, {
      enrollment: { user_id: obs.id, type: 'ObserverEnrollment', associated_user_id: room.outsider.id },
    });
    expect(outsider.status).toBe(400);
    expect(await count('enrollments')).toBe(before);
  });

  it('refuses an invalid type with {"message":"Invalid type"}', async () => {
    const before = await count('enrollments');
    const res = await server.admin.post(`/api/v1/courses/${room.course.id}/enrollments`, { enrollment: { user_id: room.outsider.id, type: 'WizardEnrollment' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Invalid type' });
    expect(await count('enrollments')).toBe(before);
  });

  it('refuses an enrollment without a user with the Canvas message', async () => {
    const res = await server.admin.post(`/api/v1/courses/${room.course.id}/enrollments`, { enrollment: { type: 'StudentEnrollment' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "Can't create an enrollment without a user. Include enrollment[user_id] to create an enrollment" });
    const nothing = await server.admin.post(`/api/v1/courses/${room.course.id}/enrollments`, {});
    expect(nothing.status).toBe(400);
    expect(nothing.body).toEqual({ message: 'No parameters given' });
  });

  it('joins several problems into one message, as Canvas does', async () => {
    const res = await server.admin.post(`/api/v1/courses/${room.course.id}/enrollments`, { enrollment: { type: 'WizardEnrollment', enrollment_state: 'active' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "Invalid type, Can't create an enrollment without a user. Include enrollment[user_id] to create an enrollment" });
  });

  it('refuses an enrollment_state other than active, invited or inactive', async () => {
    const res = await server.admin.post(`/api/v1/courses/${room.course.id}/enrollments`, { enrollment: { user_id: room.outsider.id, enrollment_state: 'completed' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual(expect.any(String));
    expect(await count('enrollments', 'user_id = ? AND course_id = ?', [room.outsider.id, room.course.id])).toBe(0);
  });

  it('answers 404 for an unknown user, section or course', async () => {
    const res = await server.admin.post(`/api/v1/courses/${room.course.id}/enrollments`, { enrollment: { user_id: 123456789 } });
    expect(res.status).toBe(404);
    const other = await world.course({ name: 'Other' });
    const otherSection = await world.section(other.id, 'Foreign');
    const foreign = await server.admin.post(`/api/v1/courses/${room.course.id}/enrollments`, { enrollment: { user_id: room.outsider.id, course_section_id: otherSection.id } });
    expect(foreign.status).toBe(404);
    expect((await server.admin.post('/api/v1/courses/5555555/enrollments', { enrollment: { user_id: room.outsider.id } })).status).toBe(404);
    expect(await count('enrollments', 'user_id = ? AND course_id = ?', [room.outsider.id, room.course.id])).toBe(0);
  });

  it('refuses adding to a concluded course', async () => {
    const c = await world.course({ name: 'Concluded' });
    await server.admin.put(`/api/v1/courses/${c.id}`, { course: { event: 'conclude' } });
    const res = await server.admin.post(`/api/v1/courses/${c.id}/enrollments`, { enrollment: { user_id: room.outsider.id } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "Can't add an enrollment to a concluded course." });
  });

  it('lets a teacher add a student but not a TA add a teacher', async () => {
    const [s, t] = await Promise.all([world.user('Added By Teacher'), world.user('Would Be Teacher')]);
    const byTeacher = await room.teacher.api.post(`/api/v1/courses/${room.course.id}/enrollments`, { enrollment: { user_id: s.id, enrollment_state: 'active' } });
    expect(byTeacher.status).toBe(200);
    expect(byTeacher.body).toMatchObject({ user_id: s.id, type: 'StudentEnrollment' });
    const teacherAddsTa = await room.teacher.api.post(`/api/v1/courses/${room.course.id}/enrollments`, { enrollment: { user_id: t.id, type: 'TaEnrollment' } });
    expect(teacherAddsTa.status).toBe(200);

    const before = await count('enrollments', 'user_id = ?', [t.id]);
    const byTa = await ta.api.post(`/api/v1/courses/${room.course.id}/enrollments`, { enrollment: { user_id: t.id, type: 'TeacherEnrollment' } });
    expect(byTa.status).toBe(403);
    expect(byTa.body).toEqual(FORBIDDEN);
    expect(await count('enrollments', 'user_id = ?', [t.id])).toBe(before);
    const taAddsStudent = await ta.api.post(`/api/v1/courses/${room.course.id}/enrollments`, { enrollment: { user_id: t.id, type: 'StudentEnrollment' } });
    expect(taAddsStudent.status).toBe(200);
  });

  it('refuses a student (and an outsider) enrolling anyone', async () => {
    const u = await world.user('Student Friend');
    for (const caller of [room.student, room.outsider]) {
      const res = await caller.api.post(`/api/v1/courses/${room.course.id}/enrollments`, { enrollment: { user_id: u.id } });
      expect(res.status).toBe(403);
    }
    const self = await room.student.api.post(`/api/v1/courses/${room.course.id}/enrollments`, { enrollment: { user_id: 'self', type: 'TeacherEnrollment' } });
    expect(self.status).toBe(403);
    expect(await count('enrollments', 'user_id = ?', [u.id])).toBe(0);
    expect(await count('enrollments', 'user_id = ? AND type = ?', [room.student.id, 'TeacherEnrollment'])).toBe(0);
  });

  describe('listing', () => {
    let c: { id: number };
    let people: Record<string, WorldUser>;
    let secA: number;
    let secB: number;

    beforeAll(async () => {
      c = await world.course({ name: 'Roster' });
      secA = (await world.section(c.id, 'A')).id;
      secB = (await world.section(c.id, 'B')).id;
      const names = ['teach', 'limitedA', 'freeB', 'studentB', 'invitedA', 'inactiveB', 'taA'];
      const users = await Promise.all(names.map((n) => world.user(`Roster ${n}`)));
      people = Object.fromEntries(names.map((n, i) => [n, users[i]]));
      await world.enroll(c.id, people.teach.id, 'TeacherEnrollment');
      await world.enroll(c.id, people.limitedA.id, 'StudentEnrollment', { sectionId: secA, limitToSection: true });
      await world.enroll(c.id, people.freeB.id, 'StudentEnrollment', { sectionId: secB });
      await world.enroll(c.id, people.studentB.id, 'StudentEnrollment', { sectionId: secB });
      await world.enroll(c.id, people.invitedA.id, 'StudentEnrollment', { sectionId: secA, state: 'invited' });
      await world.enroll(c.id, people.inactiveB.id, 'StudentEnrollment', { sectionId: secB, state: 'inactive' });
      await world.enroll(c.id, people.taA.id, 'TaEnrollment', { sectionId: secA });
    });

    const ids = (body: { user_id: number }[]) => body.map((e) => e.user_id);

    it('lists current enrollments (active and invited) by default', async () => {
      const res = await people.teach.api.get(`/api/v1/courses/${c.id}/enrollments?per_page=50`);
      expect(res.status).toBe(200);
      expect(ids(res.body)).toEqual(['teach', 'limitedA', 'freeB', 'studentB', 'invitedA', 'taA'].map((n) => people[n].id));
      expect(res.body.find((e: { user_id: number }) => e.user_id === people.invitedA.id).enrollment_state).toBe('invited');
    });

    it('filters by type[] and state[]', async () => {
      const students = await people.teach.api.get(`/api/v1/courses/${c.id}/enrollments?type[]=StudentEnrollment&per_page=50`);
      expect(ids(students.body)).toEqual(['limitedA', 'freeB', 'studentB', 'invitedA'].map((n) => people[n].id));
      const staff = await people.teach.api.get(`/api/v1/courses/${c.id}/enrollments?type[]=TeacherEnrollment&type[]=TaEnrollment`);
      expect(ids(staff.body)).toEqual([people.teach.id, people.taA.id]);
      const invited = await people.teach.api.get(`/api/v1/courses/${c.id}/enrollments?state[]=invited`);
      expect(ids(invited.body)).toEqual([people.invitedA.id]);
      const inactive = await people.teach.api.get(`/api/v1/courses/${c.id}/enrollments?state[]=inactive&state[]=invited`);
      expect(ids(inactive.body)).toEqual([people.invitedA.id, people.inactiveB.id]);
      const both = await people.teach.api.get(`/api/v1/courses/${c.id}/enrollments?type[]=StudentEnrollment&state[]=active`);
      expect(ids(both.body)).toEqual(['limitedA', 'freeB', 'studentB'].map((n) => people[n].id));
      const bySection = await people.teach.api.get(`/api/v1/courses/${c.id}/enrollments?section_id=${secB}`);
      expect(ids(bySection.body)).toEqual([people.freeB.id, people.studentB.id]);
      const byUser = await people.teach.api.get(`/api/v1/courses/${c.id}/enrollments?user_id=${people.taA.id}`);
      expect(byUser.body).toHaveLength(1);
      expect(byUser.body[0]).toMatchObject({ user_id: people.taA.id, type: 'TaEnrollment', course_section_id: secA });
    });

    it('refuses an unknown type[] or state[] filter with 400', async () => {
      expect((await people.teach.api.get(`/api/v1/courses/${c.id}/enrollments?type[]=Bogus`)).status).toBe(400);
      expect((await people.teach.api.get(`/api/v1/courses/${c.id}/enrollments?state[]=bogus`)).status).toBe(400);
    });

    it("shows a section-limited student only their section's enrollments", async () => {
      const limited = await people.limitedA.api.get(`/api/v1/courses/${c.id}/enrollments?per_page=50`);
      expect(limited.status).toBe(200);
      expect(ids(limited.body)).toEqual(['limitedA', 'invitedA', 'taA'].map((n) => people[n].id));
      for (const e of limited.body) expect(e.course_section_id).toBe(secA);
      // A student without the limit sees the whole roster.
      const free = await people.freeB.api.get(`/api/v1/courses/${c.id}/enrollments?per_page=50`);
      expect(ids(free.body)).toHaveLength(6);
      // Students do not see login ids of others.
      const other = free.body.find((e: { user_id: number }) => e.user_id === people.studentB.id);
      expect(other.user).not.toHaveProperty('login_id');
    });

    it('pages with bookmarks and refuses outsiders', async () => {
      const pages = await allPages(people.teach.api, `/api/v1/courses/${c.id}/enrollments?per_page=4`);
      expect(pages.map((p) => p.length)).toEqual([4, 2]);
      expect(new Set(pages.flat().map((e: { id: number }) => e.id)).size).toBe(6);
      expect((await room.outsider.api.get(`/api/v1/courses/${c.id}/enrollments`)).status).toBe(403);
    });
  });
});
