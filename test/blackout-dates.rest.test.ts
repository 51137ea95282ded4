import { randomUUID } from 'node:crypto';
import { Account } from '../src/accounts/account.entity';
import { AccountService } from '../src/accounts/account.service';
import { BlackoutDate } from '../src/blackout-dates/blackout-date.entity';
import { closeSession, demo, openSession } from '../src/app/cli';
import { loadConfig } from '../src/config';
import { Course } from '../src/courses/course.entity';
import { Api, formEncode } from './support/api';
import { testDatabase } from './support/db';
import { startTestServer, TestServer } from './support/server';
import { World, WorldUser } from './support/world';

let server: TestServer;
let world: World;
let room: Awaited<ReturnType<World['classroom']>>;
let ta: WorldUser;
let designer: WorldUser;

const FORBIDDEN = { status: 'unauthorized', errors: [{ message: 'user not authorized to perform that action' }] };
const UNAUTHENTICATED = { status: 'unauthenticated', errors: [{ message: 'user authorization required' }] };
const NOT_FOUND = { errors: [{ message: 'The specified resource does not exist.' }] };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const KEYS = ['context_id', 'context_type', 'created_at', 'end_date', 'event_title', 'id', 'root_account_id', 'start_date', 'updated_at'];

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
  room = await world.classroom();
  [ta, designer] = await Promise.all([world.user('Terry Ta'), world.user('Dana Designer')]);
  await world.enroll(room.course.id, ta.id, 'TaEnrollment');
  await world.enroll(room.course.id, designer.id, 'DesignerEnrollment');
});
afterAll(() => server.close());

const base = (courseId = room.course.id) => `/api/v1/courses/${courseId}/blackout_dates`;

async function rows(contextType: string, contextId: number): Promise<Record<string, unknown>[]> {
  const list = await server.app.ds.query(
    'SELECT id, start_date, end_date, event_title FROM blackout_dates WHERE context_type = ? AND context_id = ? ORDER BY id',
    [contextType, contextId],
  );
  return list.map((r: Record<string, unknown>) => ({ ...r, id: Number(r.id) }));
}

async function total(): Promise<number> {
  return Number((await server.app.ds.query('SELECT COUNT(*) AS n FROM blackout_dates'))[0].n);
}

/** A sub-account of the root account (there is no REST route for accounts), with an admin of its own. */
async function subAccount(name: string, parentId = 1): Promise<{ account: Account; admin: WorldUser }> {
  const account = await server.app.ds.getRepository(Account).save(
    Object.assign(new Account(), { name, parentAccountId: parentId, rootAccountId: 1, workflowState: 'active', uuid: randomUUID(), defaultTimeZone: null, sisAccountId: null }),
  );
  const admin = await world.user(`${name} Admin`);
  await AccountService.addAdmin(server.app.ds.manager, account.id, admin.id);
  return { account, admin };
}

async function courseIn(accountId: number, name: string): Promise<{ id: number }> {
  const res = await server.admin.post(`/api/v1/accounts/${accountId}/courses`, { course: { name }, offer: 'true' });
  expect(res.status).toBe(200);
  return res.body;
}

async function create(api: Api, path: string, fields: Record<string, string>): Promise<Record<string, any>> {
  const res = await api.post(path, { blackout_date: fields });
  expect(res.status).toBe(201);
  return res.body.blackout_date;
}

describe('course blackout dates', () => {
  it('lets a teacher create one from the nested blackout_date[…] form: 201, wrapped, dates as YYYY-MM-DD', async () => {
    const res = await room.teacher.api.post(base(), { blackout_date: { start_date: '2031-03-10', end_date: '2031-03-14', event_title: 'Spring break' } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['blackout_date']);
    const b = res.body.blackout_date;
    expect(Object.keys(b).sort()).toEqual(KEYS);
    expect(b).toMatchObject({ context_id: room.course.id, context_type: 'Course', start_date: '2031-03-10', end_date: '2031-03-14', event_title: 'Spring break', root_account_id: 1 });
    expect(typeof b.id).toBe('number');
    expect(b.created_at).toMatch(ISO);
    expect(b.updated_at).toMatch(ISO);
    expect((await rows('Course', room.course.id)).find((r) => r.id === b.id)).toEqual({ id: b.id, start_date: '2031-03-10', end_date: '2031-03-14', event_title: 'Spring break' });
  });

  it("also takes the spec's top-level fields, as a form or as JSON; a one-day range is fine", async () => {
    const form = await room.teacher.api.post(base(), { start_date: '2031-01-05', end_date: '2031-01-05', event_title: 'Founders day' });
    expect(form.status).toBe(201);
    expect(form.body.blackout_date).toMatchObject({ start_date: '2031-01-05', end_date: '2031-01-05', event_title: 'Founders day' });
    const json = await designer.api.post(base(), { start_date: '2031-02-01', end_date: '2031-02-02', event_title: 'Retreat' }, { json: true });
    expect(json.status).toBe(201);
    expect(json.body.blackout_date.event_title).toBe('Retreat');
  });

  it('lists every date of the course as a bare array by start date, unpaginated as in Canvas', async () => {
    const course = await world.course({ name: 'List course' });
    await world.enroll(course.id, room.teacher.id, 'TeacherEnrollment');
    for (let i = 12; i >= 1; i--) {
      await create(room.teacher.api, base(course.id), { start_date: `2032-01-${String(i).padStart(2, '0')}`, end_date: `2032-01-${String(i).padStart(2, '0')}`, event_title: `Day ${i}` });
    }
    const res = await room.teacher.api.get(base(course.id));
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body).toHaveLength(12);
    expect(res.body.map((b: any) => b.start_date)).toEqual([...res.body.map((b: any) => b.start_date)].sort());
    expect(res.body[0]).toMatchObject({ start_date: '2032-01-01', event_title: 'Day 1', context_type: 'Course', context_id: course.id });
    expect(Object.keys(res.body[0]).sort()).toEqual(KEYS);
  });

  it('shows one date wrapped, and 404 for an unknown id, a malformed one, or a date of another course', async () => {
    const b = await create(room.teacher.api, base(), { start_date: '2031-04-01', end_date: '2031-04-02', event_title: 'Show me' });
    const res = await room.teacher.api.get(`${base()}/${b.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ blackout_date: b });
    const other = await world.course({ name: 'Other course' });
    const foreign = await create(server.admin, base(other.id), { start_date: '2031-04-01', end_date: '2031-04-02', event_title: 'Foreign' });
    for (const id of [999999, 'abc', foreign.id]) {
      const r = await room.teacher.api.get(`${base()}/${id}`);
      expect(r.status).toBe(404);
      expect(r.body).toEqual(NOT_FOUND);
    }
    expect((await room.teacher.api.put(`${base()}/${foreign.id}`, { event_title: 'Stolen' })).status).toBe(404);
    expect((await room.teacher.api.delete(`${base()}/${foreign.id}`)).status).toBe(404);
    expect((await rows('Course', other.id))[0].event_title).toBe('Foreign');
  });

  it('answers /new with an unsaved record initialised for the course', async () => {
    const before = await total();
    const res = await room.teacher.api.get(`${base()}/new`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      blackout_date: { id: null, context_id: room.course.id, context_type: 'Course', start_date: null, end_date: null, event_title: null, root_account_id: null, created_at: null, updated_at: null },
    });
    expect(await total()).toBe(before);
  });

  it('updates from either form, keeping fields not given', async () => {
    const b = await create(room.teacher.api, base(), { start_date: '2031-05-01', end_date: '2031-05-03', event_title: 'Exams' });
    const nested = await room.teacher.api.put(`${base()}/${b.id}`, { blackout_date: { event_title: 'Final exams' } });
    expect(nested.status).toBe(200);
    expect(nested.body.blackout_date).toMatchObject({ id: b.id, start_date: '2031-05-01', end_date: '2031-05-03', event_title: 'Final exams' });
    const top = await room.teacher.api.put(`${base()}/${b.id}`, { end_date: '2031-05-07' }, { json: true });
    expect(top.status).toBe(200);
    expect(top.body.blackout_date).toMatchObject({ start_date: '2031-05-01', end_date: '2031-05-07', event_title: 'Final exams' });
  });

  it("refuses an invalid update with 400 and Canvas's bare list of messages, changing nothing", async () => {
    const b = await create(room.teacher.api, base(), { start_date: '2031-06-10', end_date: '2031-06-12', event_title: 'Keep me' });
    const res = await room.teacher.api.put(`${base()}/${b.id}`, { blackout_date: { end_date: '2031-06-01', event_title: '' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(["Event title can't be blank", "End date can't be before start date"]);
    const res2 = await room.teacher.api.put(`${base()}/${b.id}`, { blackout_date: { end_date: '2031-06-01' } });
    expect(res2.status).toBe(400);
    expect(res2.body).toEqual(["End date can't be before start date"]);
    expect((await rows('Course', room.course.id)).find((r) => r.id === b.id)).toEqual({ id: b.id, start_date: '2031-06-10', end_date: '2031-06-12', event_title: 'Keep me' });
  });

  it('deletes a date and answers it wrapped, as the spec says; it is gone afterwards', async () => {
    const b = await create(room.teacher.api, base(), { start_date: '2031-07-01', end_date: '2031-07-04', event_title: 'Bye' });
    const res = await room.teacher.api.delete(`${base()}/${b.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ blackout_date: b });
    expect((await rows('Course', room.course.id)).some((r) => r.id === b.id)).toBe(false);
    expect((await room.teacher.api.get(`${base()}/${b.id}`)).status).toBe(404);
    expect((await room.teacher.api.delete(`${base()}/${b.id}`)).status).toBe(404);
  });

  describe('validation on create (400, nothing stored)', () => {
    const cases: [string, Record<string, string>, string[]][] = [
      ['nothing given', {}, ["Start date can't be blank", "End date can't be blank", "Event title can't be blank"]],
      ['end before start', { start_date: '2031-03-10', end_date: '2031-03-09', event_title: 'Backwards' }, ["End date can't be before start date"]],
      ['a blank title', { start_date: '2031-03-10', end_date: '2031-03-10', event_title: '   ' }, ["Event title can't be blank"]],
      ['a title over 255 characters', { start_date: '2031-03-10', end_date: '2031-03-10', event_title: 'x'.repeat(256) }, ['Event title is too long (maximum is 255 characters)']],
      ['a month 13', { start_date: '2031-13-01', end_date: '2031-12-02', event_title: 'Bad' }, ['Start date must be a date in YYYY-MM-DD format']],
      ['February 30', { start_date: '2031-02-01', end_date: '2031-02-30', event_title: 'Bad' }, ['End date must be a date in YYYY-MM-DD format']],
      ['a US-style date', { start_date: '03/10/2031', end_date: '2031-03-12', event_title: 'Bad' }, ['Start date must be a date in YYYY-MM-DD format']],
      ['a date-time', { start_date: '2031-03-10T00:00:00Z', end_date: '2031-03-12', event_title: 'Bad' }, ['Start date must be a date in YYYY-MM-DD format']],
    ];
    it.each(cases)('refuses %s', async (_name, fields, messages) => {
      const before = await total();
      const res = await room.teacher.api.post(base(), { blackout_date: fields });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(res.body).toEqual({ success: false, errors: messages });
      expect(await total()).toBe(before);
    });

    it('takes a 255-character title', async () => {
      const res = await room.teacher.api.post(base(), { start_date: '2031-03-10', end_date: '2031-03-10', event_title: 'y'.repeat(255) });
      expect(res.status).toBe(201);
    });
  });
});

describe('who may read and manage course blackout dates', () => {
  let existing: Record<string, any>;
  beforeAll(async () => {
    existing = await create(room.teacher.api, base(), { start_date: '2031-08-01', end_date: '2031-08-02', event_title: 'Guarded' });
  });

  it('refuses students, observers and outsiders every route with 403, storing and changing nothing', async () => {
    for (const who of [room.student, room.observer, room.outsider]) {
      const before = await rows('Course', room.course.id);
      const calls = [
        who.api.get(base()),
        who.api.get(`${base()}/${existing.id}`),
        who.api.get(`${base()}/new`),
        who.api.post(base(), { blackout_date: { start_date: '2031-09-01', end_date: '2031-09-02', event_title: 'Sneaky' } }),
        who.api.put(`${base()}/${existing.id}`, { blackout_date: { event_title: 'Hacked' } }),
        who.api.delete(`${base()}/${existing.id}`),
        who.api.put(base(), { blackout_dates: [] }, { json: true }),
      ];
      for (const res of await Promise.all(calls)) {
        expect(res.status).toBe(403);
        expect(res.body).toEqual(FORBIDDEN);
      }
      expect(await rows('Course', room.course.id)).toEqual(before);
    }
  });

  it('refuses a caller without a token with 401 on every route', async () => {
    const anon = server.as(null);
    const before = await total();
    for (const res of await Promise.all([
      anon.get(base()),
      anon.get(`${base()}/${existing.id}`),
      anon.get(`${base()}/new`),
      anon.post(base(), { start_date: '2031-09-01', end_date: '2031-09-02', event_title: 'Anon' }),
      anon.put(`${base()}/${existing.id}`, { event_title: 'Anon' }),
      anon.delete(`${base()}/${existing.id}`),
      anon.put(base(), { blackout_dates: [] }, { json: true }),
      anon.get('/api/v1/accounts/1/blackout_dates'),
    ])) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNAUTHENTICATED);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="canvas-lms"');
    }
    expect(await total()).toBe(before);
  });

  it('lets a TA read them (content management) but not change them (no course-pacing right)', async () => {
    expect((await ta.api.get(base())).status).toBe(200);
    expect((await ta.api.get(`${base()}/${existing.id}`)).status).toBe(200);
    const before = await total();
    const res = await ta.api.post(base(), { start_date: '2031-09-01', end_date: '2031-09-02', event_title: 'TA' });
    expect(res.status).toBe(403);
    expect((await ta.api.delete(`${base()}/${existing.id}`)).status).toBe(403);
    expect(await total()).toBe(before);
  });

  it('answers 404 for an unknown course before anything else', async () => {
    expect((await room.teacher.api.get(base(987654))).status).toBe(404);
    expect((await room.teacher.api.post(base(987654), { start_date: '2031-09-01', end_date: '2031-09-02', event_title: 'x' })).status).toBe(404);
  });

  it('lets an admin of the course\'s account manage them, but not an admin of an unrelated sub-account', async () => {
    const { account, admin } = await subAccount('Science');
    const { admin: otherAdmin } = await subAccount('Arts');
    const course = await courseIn(account.id, 'Chemistry');
    const made = await create(admin.api, base(course.id), { start_date: '2031-10-01', end_date: '2031-10-01', event_title: 'Lab cleaning' });
    expect(made.root_account_id).toBe(1);
    expect((await otherAdmin.api.get(base(course.id))).status).toBe(403);
    expect((await otherAdmin.api.post(base(course.id), { start_date: '2031-10-02', end_date: '2031-10-02', event_title: 'x' })).status).toBe(403);
    expect(await rows('Course', course.id)).toHaveLength(1);
  });
});

describe('account blackout dates', () => {
  it('are managed by account admins under /accounts/:id (and self), wrapped and listed like course ones', async () => {
    const { account, admin } = await subAccount('Engineering');
    const path = `/api/v1/accounts/${account.id}/blackout_dates`;
    const made = await admin.api.post(path, { blackout_date: { start_date: '2031-12-20', end_date: '2032-01-02', event_title: 'Winter closure' } });
    expect(made.status).toBe(201);
    expect(made.body.blackout_date).toMatchObject({ context_type: 'Account', context_id: account.id, root_account_id: 1, start_date: '2031-12-20', end_date: '2032-01-02' });
    const id = made.body.blackout_date.id;
    expect((await admin.api.get(path)).body).toEqual([made.body.blackout_date]);
    expect((await admin.api.get(`${path}/${id}`)).body).toEqual(made.body);
    expect((await admin.api.get(`${path}/new`)).body.blackout_date).toMatchObject({ id: null, context_type: 'Account', context_id: account.id });
    const upd = await admin.api.put(`${path}/${id}`, { event_title: 'Holidays' });
    expect(upd.status).toBe(200);
    expect(upd.body.blackout_date.event_title).toBe('Holidays');
    // The same date is not reachable under another context's path.
    expect((await server.admin.get(`/api/v1/accounts/self/blackout_dates/${id}`)).status).toBe(404);
    const del = await admin.api.delete(`${path}/${id}`);
    expect(del.status).toBe(200);
    expect(del.body.blackout_date.event_title).toBe('Holidays');
    expect(await rows('Account', account.id)).toEqual([]);
  });

  it('are refused to teachers and to admins of a sub-account for the root account (403, nothing stored)', async () => {
    const { admin } = await subAccount('History');
    const before = await total();
    for (const who of [room.teacher, admin]) {
      expect((await who.api.get('/api/v1/accounts/self/blackout_dates')).status).toBe(403);
      const res = await who.api.post('/api/v1/accounts/1/blackout_dates', { start_date: '2031-09-01', end_date: '2031-09-02', event_title: 'x' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    }
    expect(await total()).toBe(before);
    const site = await server.admin.post('/api/v1/accounts/self/blackout_dates', { start_date: '2031-09-01', end_date: '2031-09-02', event_title: 'Site wide' });
    expect(site.status).toBe(201);
    expect(site.body.blackout_date).toMatchObject({ context_type: 'Account', context_id: 1 });
  });

  it('have no bulk route (course prefix only) and 404 for an unknown account', async () => {
    expect((await server.admin.put('/api/v1/accounts/1/blackout_dates', { blackout_dates: [] }, { json: true })).status).toBe(404);
    expect((await server.admin.get('/api/v1/accounts/999999/blackout_dates')).status).toBe(404);
  });

  it('refuses invalid input with 400 and stores nothing', async () => {
    const before = await total();
    const res = await server.admin.post('/api/v1/accounts/self/blackout_dates', { blackout_date: { start_date: '2031-09-05', end_date: '2031-09-01', event_title: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, errors: ["End date can't be before start date"] });
    expect(await total()).toBe(before);
  });
});

describe('PUT /api/v1/courses/:course_id/blackout_dates (bulk)', () => {
  let course: { id: number };
  beforeEach(async () => {
    course = await world.course({ name: 'Bulk course' });
    await world.enroll(course.id, room.teacher.id, 'TeacherEnrollment');
    await world.enroll(course.id, room.student.id, 'StudentEnrollment');
  });

  async function seed(): Promise<Record<string, any>[]> {
    const a = await create(room.teacher.api, base(course.id), { start_date: '2031-01-10', end_date: '2031-01-11', event_title: 'A' });
    const b = await create(room.teacher.api, base(course.id), { start_date: '2031-02-10', end_date: '2031-02-11', event_title: 'B' });
    const c = await create(room.teacher.api, base(course.id), { start_date: '2031-03-10', end_date: '2031-03-11', event_title: 'C' });
    return [a, b, c];
  }

  it('makes the stored set equal the JSON array: updates by id, creates without, deletes the rest; answers a bare array', async () => {
    const [a, b] = await seed();
    const res = await room.teacher.api.put(
      base(course.id),
      {
        blackout_dates: [
          { id: b.id, start_date: '2031-02-10', end_date: '2031-02-15', event_title: 'B longer' },
          { id: a.id, event_title: 'A renamed' },
          { start_date: '2031-04-01', end_date: '2031-04-01', event_title: 'D new' },
        ],
      },
      { json: true },
    );
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((x: any) => [x.event_title, x.start_date, x.end_date])).toEqual([
      ['A renamed', '2031-01-10', '2031-01-11'],
      ['B longer', '2031-02-10', '2031-02-15'],
      ['D new', '2031-04-01', '2031-04-01'],
    ]);
    expect(res.body[0].id).toBe(a.id);
    expect(res.body[1].id).toBe(b.id);
    expect(Object.keys(res.body[2]).sort()).toEqual(KEYS);
    const stored = await rows('Course', course.id);
    expect(stored.map((r) => r.event_title).sort()).toEqual(['A renamed', 'B longer', 'D new']);
    expect((await room.teacher.api.get(base(course.id))).body).toEqual(res.body);
  });

  it("takes Canvas's Rack form blackout_dates[][…] and the indexed form", async () => {
    const [a] = await seed();
    const rack = await room.teacher.api.put(
      base(course.id),
      formEncode([
        ['blackout_dates[][id]', String(a.id)],
        ['blackout_dates[][start_date]', '2031-01-10'],
        ['blackout_dates[][end_date]', '2031-01-12'],
        ['blackout_dates[][event_title]', 'A form'],
        ['blackout_dates[][start_date]', '2031-05-01'],
        ['blackout_dates[][end_date]', '2031-05-02'],
        ['blackout_dates[][event_title]', 'E form'],
      ]),
    );
    expect(rack.status).toBe(200);
    expect(rack.body.map((x: any) => [x.id === a.id, x.event_title, x.end_date])).toEqual([
      [true, 'A form', '2031-01-12'],
      [false, 'E form', '2031-05-02'],
    ]);
    const indexed = await room.teacher.api.put(
      base(course.id),
      formEncode([
        ['blackout_dates[1][start_date]', '2031-07-01'],
        ['blackout_dates[1][end_date]', '2031-07-01'],
        ['blackout_dates[1][event_title]', 'Second'],
        ['blackout_dates[0][start_date]', '2031-06-01'],
        ['blackout_dates[0][end_date]', '2031-06-01'],
        ['blackout_dates[0][event_title]', 'First'],
      ]),
    );
    expect(indexed.status).toBe(200);
    expect(indexed.body.map((x: any) => x.event_title)).toEqual(['First', 'Second']);
  });

  it('takes the value as a JSON string (the spec calls it a string)', async () => {
    await seed();
    const value = JSON.stringify([{ start_date: '2031-09-01', end_date: '2031-09-03', event_title: 'Only one' }]);
    const res = await room.teacher.api.put(base(course.id), { blackout_dates: value });
    expect(res.status).toBe(200);
    expect(res.body.map((x: any) => x.event_title)).toEqual(['Only one']);
    expect(await rows('Course', course.id)).toHaveLength(1);
  });

  it('deletes everything for an empty list (JSON [] or the form blackout_dates[]=)', async () => {
    await seed();
    const json = await room.teacher.api.put(base(course.id), { blackout_dates: [] }, { json: true });
    expect(json.status).toBe(200);
    expect(json.body).toEqual([]);
    await seed();
    const form = await room.teacher.api.put(base(course.id), 'blackout_dates[]=');
    expect(form.status).toBe(200);
    expect(form.body).toEqual([]);
    expect(await rows('Course', course.id)).toEqual([]);
  });

  it('is atomic: one invalid entry is a 400 naming it, and nothing is created, changed or deleted', async () => {
    await seed();
    const before = await rows('Course', course.id);
    const totalBefore = await total();
    const res = await room.teacher.api.put(
      base(course.id),
      {
        blackout_dates: [
          { id: before[0].id, start_date: '2031-01-10', end_date: '2031-01-20', event_title: 'Changed' },
          { start_date: '2031-08-01', end_date: '2031-08-01', event_title: 'New' },
          { start_date: '2031-08-05', end_date: '2031-08-01', event_title: 'Backwards' },
        ],
      },
      { json: true },
    );
    expect(res.status).toBe(400);
    expect(res.body.errors['blackout_dates[2][end_date]']).toEqual([
      { attribute: 'blackout_dates[2][end_date]', type: 'invalid', message: "blackout_dates[2]: End date can't be before start date" },
    ]);
    expect(await rows('Course', course.id)).toEqual(before);
    expect(await total()).toBe(totalBefore);
  });

  it('answers 404 for an id that is not a date of this course, changing nothing', async () => {
    await seed();
    const before = await rows('Course', course.id);
    const elsewhere = await create(room.teacher.api, base(), { start_date: '2031-11-01', end_date: '2031-11-01', event_title: 'Elsewhere' });
    for (const id of [elsewhere.id, 999999, 'abc']) {
      const res = await room.teacher.api.put(base(course.id), { blackout_dates: [{ id, start_date: '2031-11-01', end_date: '2031-11-01', event_title: 'Took it' }] }, { json: true });
      expect(res.status).toBe(404);
    }
    expect(await rows('Course', course.id)).toEqual(before);
    expect((await rows('Course', room.course.id)).find((r) => r.id === elsewhere.id)?.event_title).toBe('Elsewhere');
  });

  it('refuses a repeated id, a missing value, a malformed string and non-object entries with 400', async () => {
    const [a] = await seed();
    const before = await rows('Course', course.id);
    const bodies: [unknown, string][] = [
      [{ blackout_dates: [{ id: a.id, event_title: 'x' }, { id: a.id, event_title: 'y' }] }, 'blackout_dates[1][id]'],
      [{}, 'blackout_dates'],
      [{ blackout_dates: 'not json' }, 'blackout_dates'],
      [{ blackout_dates: ['oops'] }, 'blackout_dates[0]'],
      [{ blackout_dates: { start_date: '2031-01-01' } }, 'blackout_dates'],
    ];
    for (const [body, attr] of bodies) {
      const res = await room.teacher.api.put(base(course.id), body as Record<string, unknown>, { json: true });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors)).toContain(attr);
    }
    expect(await rows('Course', course.id)).toEqual(before);
  });

  it('refuses a student with 403 and changes nothing', async () => {
    await seed();
    const before = await rows('Course', course.id);
    const res = await room.student.api.put(base(course.id), { blackout_dates: [] }, { json: true });
    expect(res.status).toBe(403);
    expect(await rows('Course', course.id)).toEqual(before);
  });
});

describe('GraphQL', () => {
  const FIELDS = '_id id contextType contextId rootAccountId startDate endDate eventTitle createdAt updatedAt';

  it('creates, reads, updates and deletes through mutations, with validation problems in the payload', async () => {
    const course = await world.course({ name: 'GQL course' });
    await world.enroll(course.id, room.teacher.id, 'TeacherEnrollment');
    const created = await room.teacher.api.graphql(
      `mutation($input: CreateBlackoutDateInput!) { createBlackoutDate(input: $input) { blackoutDate { ${FIELDS} } errors { attribute type message } } }`,
      { input: { contextType: 'Course', contextId: String(course.id), startDate: '2033-01-01', endDate: '2033-01-03', eventTitle: 'New year' } },
    );
    expect(created.errors).toBeUndefined();
    const b = created.data.createBlackoutDate.blackoutDate;
    expect(b).toMatchObject({ contextType: 'Course', contextId: String(course.id), startDate: '2033-01-01', endDate: '2033-01-03', eventTitle: 'New year' });
    expect(b.id).toBe(Buffer.from(`BlackoutDate-${b._id}`).toString('base64'));

    const invalid = await room.teacher.api.graphql(
      `mutation($input: CreateBlackoutDateInput!) { createBlackoutDate(input: $input) { blackoutDate { _id } errors { attribute type message } } }`,
      { input: { contextType: 'Course', contextId: String(course.id), startDate: '2033-01-05', endDate: '2033-01-01', eventTitle: 'x' } },
    );
    expect(invalid.data.createBlackoutDate).toEqual({ blackoutDate: null, errors: [{ attribute: 'end_date', type: 'invalid', message: "End date can't be before start date" }] });

    const list = await room.teacher.api.graphql(`query($id: ID!) { blackoutDates(contextType: "Course", contextId: $id) { _id eventTitle } }`, { id: String(course.id) });
    expect(list.data.blackoutDates).toEqual([{ _id: b._id, eventTitle: 'New year' }]);

    const node = await room.teacher.api.graphql(`query($id: ID!) { node(id: $id) { ... on BlackoutDate { _id eventTitle } } legacyNode(type: BlackoutDate, _id: "${b._id}") { id } }`, { id: b.id });
    expect(node.data).toEqual({ node: { _id: b._id, eventTitle: 'New year' }, legacyNode: { id: b.id } });
    const hidden = await room.student.api.graphql(`query($id: ID!) { node(id: $id) { id } }`, { id: b.id });
    expect(hidden.data.node).toBeNull();

    const updated = await room.teacher.api.graphql(
      `mutation($input: UpdateBlackoutDateInput!) { updateBlackoutDate(input: $input) { blackoutDate { eventTitle startDate } errors { message } } }`,
      { input: { id: b.id, eventTitle: 'Happy new year' } },
    );
    expect(updated.data.updateBlackoutDate).toEqual({ blackoutDate: { eventTitle: 'Happy new year', startDate: '2033-01-01' }, errors: null });

    const deleted = await room.teacher.api.graphql(`mutation($input: DeleteBlackoutDateInput!) { deleteBlackoutDate(input: $input) { blackoutDate { _id eventTitle } errors { message } } }`, {
      input: { id: b._id },
    });
    expect(deleted.data.deleteBlackoutDate.blackoutDate).toEqual({ _id: b._id, eventTitle: 'Happy new year' });
    expect(await rows('Course', course.id)).toEqual([]);
  });

  it('refuses a student with FORBIDDEN and stores nothing', async () => {
    const before = await total();
    const res = await room.student.api.graphql(
      `mutation($input: CreateBlackoutDateInput!) { createBlackoutDate(input: $input) { blackoutDate { _id } errors { message } } }`,
      { input: { contextType: 'Course', contextId: String(room.course.id), startDate: '2033-01-01', endDate: '2033-01-03', eventTitle: 'x' } },
    );
    expect(res.errors?.[0].extensions.code).toBe('FORBIDDEN');
    const list = await room.student.api.graphql(`query($id: ID!) { blackoutDates(contextType: "Course", contextId: $id) { _id } }`, { id: String(room.course.id) });
    expect(list.errors?.[0].extensions.code).toBe('FORBIDDEN');
    const anon = await server.as(null).graphql(`query($id: ID!) { blackoutDates(contextType: "Course", contextId: $id) { _id } }`, { id: String(room.course.id) });
    expect(anon.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(await total()).toBe(before);
  });

  it('replaces an account\'s set atomically through replaceBlackoutDates', async () => {
    const { account, admin } = await subAccount('Medicine');
    const mutation = `mutation($input: ReplaceBlackoutDatesInput!) { replaceBlackoutDates(input: $input) { blackoutDates { _id eventTitle } errors { attribute message } } }`;
    const ok = await admin.api.graphql(mutation, {
      input: { contextType: 'Account', contextId: String(account.id), blackoutDates: [{ startDate: '2033-02-01', endDate: '2033-02-01', eventTitle: 'One' }, { startDate: '2033-01-01', endDate: '2033-01-01', eventTitle: 'Two' }] },
    });
    expect(ok.data.replaceBlackoutDates.blackoutDates.map((b: any) => b.eventTitle)).toEqual(['Two', 'One']);
    const bad = await admin.api.graphql(mutation, {
      input: { contextType: 'Account', contextId: String(account.id), blackoutDates: [{ startDate: '2033-03-01', endDate: '2033-03-01', eventTitle: 'Three' }, { startDate: 'soon', endDate: '2033-03-01', eventTitle: 'Four' }] },
    });
    expect(bad.data.replaceBlackoutDates.blackoutDates).toBeNull();
    expect(bad.data.replaceBlackoutDates.errors[0].attribute).toBe('blackout_dates[1][start_date]');
    expect((await rows('Account', account.id)).map((r) => r.event_title).sort()).toEqual(['One', 'Two']);
  });

  describe('Course.pacingBlackoutDates', () => {
    it("lists the course's own dates and its account chain's, by start date, and nothing of other contexts", async () => {
      const { account: parent, admin: parentAdmin } = await subAccount('Faculty');
      const { account: child } = await subAccount('Department', parent.id);
      const { account: sibling } = await subAccount('Sibling', parent.id);
      const course = await courseIn(child.id, 'Pacing course');
      const other = await courseIn(child.id, 'Other pacing course');
      await world.enroll(course.id, room.teacher.id, 'TeacherEnrollment');
      await world.enroll(course.id, room.student.id, 'StudentEnrollment');
      await create(server.admin, '/api/v1/accounts/1/blackout_dates', { start_date: '2034-05-01', end_date: '2034-05-01', event_title: 'Root' });
      await create(parentAdmin.api, `/api/v1/accounts/${parent.id}/blackout_dates`, { start_date: '2034-03-01', end_date: '2034-03-02', event_title: 'Faculty' });
      await create(server.admin, `/api/v1/accounts/${child.id}/blackout_dates`, { start_date: '2034-04-01', end_date: '2034-04-01', event_title: 'Department' });
      await create(server.admin, `/api/v1/accounts/${sibling.id}/blackout_dates`, { start_date: '2034-04-02', end_date: '2034-04-02', event_title: 'Sibling' });
      await create(room.teacher.api, base(course.id), { start_date: '2034-01-15', end_date: '2034-01-16', event_title: 'Course own' });
      await create(server.admin, base(other.id), { start_date: '2034-01-20', end_date: '2034-01-20', event_title: 'Other course' });

      const query = `query($id: ID!) { course(id: $id) { _id pacingBlackoutDates { eventTitle contextType contextId startDate } } }`;
      const res = await room.teacher.api.graphql(query, { id: String(course.id) });
      expect(res.errors).toBeUndefined();
      const titles = res.data.course.pacingBlackoutDates.map((b: any) => b.eventTitle);
      // Root-account dates from other tests are in the chain too; everything comes in start-date order.
      expect(titles.filter((t: string) => ['Course own', 'Faculty', 'Department', 'Root'].includes(t))).toEqual(['Course own', 'Faculty', 'Department', 'Root']);
      expect(titles).not.toContain('Sibling');
      expect(titles).not.toContain('Other course');
      const dates = res.data.course.pacingBlackoutDates.map((b: any) => b.startDate);
      expect(dates).toEqual([...dates].sort());
      expect(res.data.course.pacingBlackoutDates.find((b: any) => b.eventTitle === 'Faculty')).toMatchObject({ contextType: 'Account', contextId: String(parent.id) });

      const student = await room.student.api.graphql(query, { id: String(course.id) });
      expect(student.data.course).toEqual({ _id: String(course.id), pacingBlackoutDates: null });
      expect(student.errors?.[0].extensions.code).toBe('FORBIDDEN');
    });

    it('costs the same number of statements however many courses are listed', async () => {
      const teacher = await world.user('Busy Teacher');
      const statements = async () => {
        const before = server.queryCount();
        const res = await teacher.api.graphql(`{ coursesConnection(first: 50) { nodes { _id pacingBlackoutDates { _id } } } }`);
        expect(res.errors).toBeUndefined();
        return { n: server.queryCount() - before, courses: res.data.coursesConnection.nodes.length };
      };
      const addCourse = async (i: number) => {
        const c = await world.course({ name: `Busy ${i}` });
        await world.enroll(c.id, teacher.id, 'TeacherEnrollment');
        await create(teacher.api, base(c.id), { start_date: '2035-01-01', end_date: '2035-01-01', event_title: `Busy ${i}` });
      };
      await addCourse(1);
      await addCourse(2);
      const small = await statements();
      for (let i = 3; i <= 6; i++) await addCourse(i);
      const large = await statements();
      expect(small.courses).toBe(2);
      expect(large.courses).toBe(6);
      expect(large.n).toBe(small.n);
    });
  });
});

describe('demo seed', () => {
  it('adds a course blackout date and a root-account one', async () => {
    const db = testDatabase();
    await db.ready?.();
    const session = await openSession(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }));
    try {
      await demo(session, { write: () => true });
      const course = await session.app.ds.getRepository(Course).findOneByOrFail({ courseCode: 'BIO101' });
      const dates = await session.app.ds.getRepository(BlackoutDate).find({ order: { id: 'ASC' } });
      expect(dates.map((d) => [d.contextType, d.contextId, d.eventTitle])).toEqual([
        ['Course', course.id, 'Reading week'],
        ['Account', session.installation.rootAccountId, 'Winter closure'],
      ]);
      for (const d of dates) expect(d.startDate <= d.endDate).toBe(true);
    } finally {
      await closeSession(session);
      await db.drop();
    }
  });
});
