import { randomBytes } from 'node:crypto';
import { parseLinks } from './support/api';
import type { TestServer } from './support/server';
import { startWorld, World } from './support/world';

let server: TestServer;
let world: World;

beforeAll(async () => ({ server, world } = await startWorld()));
afterAll(() => server.close());

const uniq = () => randomBytes(4).toString('hex');

async function count(table: string, where = '1=1', params: unknown[] = []): Promise<number> {
  const rows = await server.app.ds.query(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`, params);
  return Number(rows[0].n);
}

const FORBIDDEN = { status: 'unauthorized', errors: [{ message: 'user not authorized to perform that action' }] };
const NOT_FOUND = { errors: [{ message: 'The specified resource does not exist.' }] };

describe('POST /api/v1/accounts/:account_id/users', () => {
  it('creates a user with a login and answers Canvas User JSON', async () => {
    const login = `jane.${uniq()}@example.com`;
    const res = await server.admin.post('/api/v1/accounts/self/users', {
      user: { name: 'Jane Quincy Public', locale: 'fr', time_zone: 'Europe/Paris' },
      pseudonym: { unique_id: login, sis_user_id: `SIS-${login}`, integration_id: `INT-${login}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'Jane Quincy Public',
      short_name: 'Jane Quincy Public',
      sortable_name: 'Public, Jane Quincy',
      first_name: 'Jane Quincy',
      last_name: 'Public',
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
      login_id: login,
      email: login,
      sis_user_id: `SIS-${login}`,
      integration_id: `INT-${login}`,
      avatar_url: `${server.url}/images/messages/avatar-50.png`,
      locale: 'fr',
      time_zone: 'Europe/Paris',
      uuid: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    const rows = await server.app.ds.query('SELECT user_id, unique_id, account_id FROM pseudonyms WHERE unique_id = ?', [login]);
    expect(rows).toHaveLength(1);
    expect(Number(rows[0].user_id)).toBe(res.body.id);
    expect(Number(rows[0].account_id)).toBe(1);
  });

  it('defaults the name to the login and derives short and sortable names', async () => {
    const login = `nameless.${uniq()}@example.com`;
    const res = await server.admin.post('/api/v1/accounts/self/users', { pseudonym: { unique_id: login } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: login, short_name: login, sortable_name: login, login_id: login });

    const named = await server.admin.post('/api/v1/accounts/1/users', { user: { name: 'Ada Lovelace' }, pseudonym: { unique_id: `ada.${uniq()}` } });
    expect(named.body).toMatchObject({ name: 'Ada Lovelace', short_name: 'Ada Lovelace', sortable_name: 'Lovelace, Ada' });
    expect(named.body.email).toBeUndefined(); // a login that is not an e-mail address is no e-mail
  });

  it('keeps explicitly given short and sortable names and strips the login', async () => {
    const login = `given.${uniq()}@example.com`;
    const res = await server.admin.post(
      '/api/v1/accounts/self/users',
      { user: { name: 'Robert Tables', short_name: 'Bobby', sortable_name: 'Tables, Bobby' }, pseudonym: { unique_id: `  ${login}  ` } },
      { json: true },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Robert Tables', short_name: 'Bobby', sortable_name: 'Tables, Bobby', login_id: login });
  });

  it('refuses a login already in use (case-insensitively) with the nested Canvas body and stores nothing', async () => {
    const login = `dup.${uniq()}@example.com`;
    const first = await server.admin.post('/api/v1/accounts/self/users', { user: { name: 'First' }, pseudonym: { unique_id: login } });
    expect(first.status).toBe(200);
    const [users, logins] = [await count('users'), await count('pseudonyms')];

    const res = await server.admin.post('/api/v1/accounts/self/users', { user: { name: 'Second' }, pseudonym: { unique_id: login.toUpperCase() } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errors: {
        user: {},
        pseudonym: {
          unique_id: [{ attribute: 'unique_id', type: 'taken', message: 'ID already in use for this account and authentication provider' }],
        },
        observee: {},
        pairing_code: {},
        recaptcha: null,
      },
    });
    expect(await count('users')).toBe(users);
    expect(await count('pseudonyms')).toBe(logins);
    expect(await count('users', 'name = ?', ['Second'])).toBe(0);
  });

  it('refuses a sis_user_id already in use', async () => {
    const sis = `SIS-${uniq()}`;
    expect((await server.admin.post('/api/v1/accounts/self/users', { pseudonym: { unique_id: `a.${uniq()}`, sis_user_id: sis } })).status).toBe(200);
    const before = await count('users');
    const res = await server.admin.post('/api/v1/accounts/self/users', { pseudonym: { unique_id: `b.${uniq()}`, sis_user_id: sis } });
    expect(res.status).toBe(400);
    expect(res.body.errors.pseudonym.sis_user_id[0]).toMatchObject({ attribute: 'sis_user_id', type: 'taken' });
    expect(await count('users')).toBe(before);
  });

  it('requires pseudonym[unique_id]', async () => {
    const before = await count('users');
    const res = await server.admin.post('/api/v1/accounts/self/users', { user: { name: 'No Login' } });
    expect(res.status).toBe(400);
    expect(res.body.errors.user).toEqual({});
    expect(res.body.errors.pseudonym.unique_id).toEqual([{ attribute: 'unique_id', type: 'blank', message: "can't be blank" }]);
    const blank = await server.admin.post('/api/v1/accounts/self/users', { user: { name: 'No Login' }, pseudonym: { unique_id: '   ' } });
    expect(blank.status).toBe(400);
    expect(blank.body.errors.pseudonym.unique_id[0].type).toBe('blank');
    expect(await count('users')).toBe(before);
  });

  it('refuses a caller who is not an account admin with 403 and stores nothing', async () => {
    const caller = await world.user('Not An Admin');
    const [users, logins] = [await count('users'), await count('pseudonyms')];
    const login = `sneaky.${uniq()}@example.com`;
    const res = await caller.api.post('/api/v1/accounts/self/users', { user: { name: 'Sneaky' }, pseudonym: { unique_id: login } });
    expect(res.status).toBe(403);
    expect(await count('users')).toBe(users);
    expect(await count('pseudonyms')).toBe(logins);
    expect(await count('pseudonyms', 'unique_id = ?', [login])).toBe(0);
  });

  it('answers 404 for an unknown account and 401 without a token', async () => {
    const before = await count('users');
    const res = await server.admin.post('/api/v1/accounts/999999/users', { pseudonym: { unique_id: `x.${uniq()}` } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
    const anon = await server.as(null).post('/api/v1/accounts/self/users', { pseudonym: { unique_id: `y.${uniq()}` } });
    expect(anon.status).toBe(401);
    expect(await count('users')).toBe(before);
  });
});

describe('GET /api/v1/accounts/:account_id/users', () => {
  const tag = `zq${uniq()}`;
  let created: { id: number; name: string }[] = [];

  beforeAll(async () => {
    created = [];
    for (const letter of ['E', 'B', 'D', 'A', 'C']) {
      const res = await server.admin.post('/api/v1/accounts/self/users', {
        user: { name: `${tag} ${letter}` },
        pseudonym: { unique_id: `${tag}.${letter.toLowerCase()}@example.com` },
      });
      expect(res.status).toBe(200);
      created.push(res.body);
    }
  });

  it('pages through the account users by sortable name with Canvas Link headers', async () => {
    const first = await server.admin.get(`/api/v1/accounts/self/users?search_term=${tag}&per_page=2`);
    expect(first.status).toBe(200);
    expect(first.body.map((u: { name: string }) => u.name)).toEqual([`${tag} A`, `${tag} B`]);
    const links = parseLinks(first.headers.get('link'));
    // Canvas numbers these pages and counts no total (no rel="last").
    expect(Object.keys(links)).toEqual(['current', 'next', 'first']);
    expect(links.next).toBe(`${server.url}/api/v1/accounts/self/users?search_term=${tag}&page=2&per_page=2`);

    const second = await server.admin.get(links.next.replace(server.url, ''));
    expect(second.body.map((u: { name: string }) => u.name)).toEqual([`${tag} C`, `${tag} D`]);
    const third = await server.admin.get(parseLinks(second.headers.get('link')).next.replace(server.url, ''));
    expect(third.body.map((u: { name: string }) => u.name)).toEqual([`${tag} E`]);
    expect(parseLinks(third.headers.get('link')).next).toBeUndefined();
    // Admins see login details in the list.
    expect(first.body[0]).toMatchObject({ id: created[3].id, login_id: `${tag}.a@example.com`, sortable_name: `A, ${tag}` });
  });

  it('lists everyone with a login without a search term, including the admin', async () => {
    const res = await server.admin.get('/api/v1/accounts/self/users?per_page=100');
    expect(res.status).toBe(200);
    const ids = res.body.map((u: { id: number }) => u.id);
    for (const u of created) expect(ids).toContain(u.id);
    expect(res.body.some((u: { login_id?: string }) => u.login_id === 'admin')).toBe(true);
    expect(res.body.length).toBe(await count('users'));
  });

  it('filters by search_term on name, login and SIS id', async () => {
    const byLogin = await server.admin.get(`/api/v1/accounts/self/users?search_term=${tag}.c@`);
    expect(byLogin.body.map((u: { id: number }) => u.id)).toEqual([created[4].id]);
    const byName = await server.admin.get(`/api/v1/accounts/self/users?search_term=${encodeURIComponent(`${tag} d`.toUpperCase())}`);
    expect(byName.body.map((u: { id: number }) => u.id)).toEqual([created[2].id]);

    const sis = `SISX${uniq()}`;
    const withSis = await server.admin.post('/api/v1/accounts/self/users', { user: { name: 'Sis Person' }, pseudonym: { unique_id: `sis.${uniq()}`, sis_user_id: sis } });
    const bySis = await server.admin.get(`/api/v1/accounts/self/users?search_term=${sis.toLowerCase()}`);
    expect(bySis.body.map((u: { id: number }) => u.id)).toEqual([withSis.body.id]);

    const none = await server.admin.get('/api/v1/accounts/self/users?search_term=no-such-person-anywhere');
    expect(none.status).toBe(200);
    expect(none.body).toEqual([]);
  });

  it('treats LIKE wildcards in search_term literally', async () => {
    const t = uniq();
    const literal = await server.admin.post('/api/v1/accounts/self/users', { pseudonym: { unique_id: `snake_${t}@example.com` } });
    const other = await server.admin.post('/api/v1/accounts/self/users', { pseudonym: { unique_id: `snakeX${t}@example.com` } });
    expect(literal.status).toBe(200);
    expect(other.status).toBe(200);
    const res = await server.admin.get(`/api/v1/accounts/self/users?search_term=${encodeURIComponent(`snake_${t}`)}`);
    expect(res.status).toBe(200);
    expect(res.body.map((u: { id: number }) => u.id)).toEqual([literal.body.id]);
    const pct = await server.admin.get(`/api/v1/accounts/self/users?search_term=${encodeURIComponent(`snake%${t}`)}`);
    expect(pct.body).toEqual([]);
    // The escape characters themselves are ordinary characters too.
    const odd = await server.admin.post('/api/v1/accounts/self/users', { pseudonym: { unique_id: `odd!\\${t}` } });
    expect(odd.status).toBe(200);
    const bang = await server.admin.get(`/api/v1/accounts/self/users?search_term=${encodeURIComponent(`odd!\\${t}`)}`);
    expect(bang.body.map((u: { id: number }) => u.id)).toEqual([odd.body.id]);
  });

  it('refuses a one-character search_term with 400', async () => {
    const res = await server.admin.get('/api/v1/accounts/self/users?search_term=a');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: [{ field: 'search_term', code: 'invalid', message: '2 or more characters is required' }] });
  });

  it('is for account admins only', async () => {
    const { teacher } = await world.classroom();
    const res = await teacher.api.get('/api/v1/accounts/self/users');
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    expect((await server.admin.get('/api/v1/accounts/424242/users')).status).toBe(404);
  });
});

describe('GET /api/v1/users/self and /api/v1/users/:id', () => {
  let room: Awaited<ReturnType<World['classroom']>>;
  beforeAll(async () => {
    room = await world.classroom();
  });

  it('shows the caller themself, with their login', async () => {
    const res = await room.student.api.get('/api/v1/users/self');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: room.student.id, name: 'Sam Student', sortable_name: 'Student, Sam', login_id: room.student.login });
    const byId = await room.student.api.get(`/api/v1/users/${room.student.id}`);
    expect(byId.body).toEqual(res.body);
  });

  it('lets a teacher see a student of their course, without login or SIS details', async () => {
    const sis = `SIS-${uniq()}`;
    const pupil = await server.admin.post('/api/v1/accounts/self/users', { user: { name: 'Paula Pupil' }, pseudonym: { unique_id: `paula.${uniq()}@example.com`, sis_user_id: sis } });
    await world.enroll(room.course.id, pupil.body.id, 'StudentEnrollment');
    const res = await room.teacher.api.get(`/api/v1/users/${pupil.body.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: pupil.body.id, name: 'Paula Pupil', sortable_name: 'Pupil, Paula' });
    for (const hidden of ['login_id', 'sis_user_id', 'integration_id', 'email']) expect(res.body).not.toHaveProperty(hidden);
    // The admin does see them.
    const asAdmin = await server.admin.get(`/api/v1/users/${pupil.body.id}`);
    expect(asAdmin.body).toMatchObject({ sis_user_id: sis, login_id: pupil.body.login_id });
    // A SIS lookup works for the admin.
    const bySis = await server.admin.get(`/api/v1/users/sis_user_id:${sis}`);
    expect(bySis.status).toBe(200);
    expect(bySis.body.id).toBe(pupil.body.id);
  });

  it('lets a student see their teacher and classmates, but not their logins', async () => {
    const res = await room.student.api.get(`/api/v1/users/${room.student2.id}`);
    expect(res.status).toBe(200);
    expect(res.body.login_id).toBeUndefined();
    expect((await room.student.api.get(`/api/v1/users/${room.teacher.id}`)).status).toBe(200);
  });

  it('refuses an unrelated user with 403', async () => {
    const res = await room.outsider.api.get(`/api/v1/users/${room.student.id}`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    // A student of an unpublished course does not see that course's people either.
    const draft = await world.course({ name: 'Draft', published: false });
    const [a, b] = await Promise.all([world.user('Draft One'), world.user('Draft Two')]);
    await world.enroll(draft.id, a.id, 'StudentEnrollment');
    await world.enroll(draft.id, b.id, 'StudentEnrollment');
    expect((await a.api.get(`/api/v1/users/${b.id}`)).status).toBe(403);
  });

  it('answers 404 for an unknown or malformed id', async () => {
    const res = await room.student.api.get('/api/v1/users/987654321');
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
    expect((await server.admin.get('/api/v1/users/not_a_prefix:1')).status).toBe(404);
    expect((await server.admin.get('/api/v1/users/sis_user_id:nobody-has-this')).status).toBe(404);
  });
});

describe('GET /api/v1/accounts/self and /api/v1/accounts/:id', () => {
  it('shows the root account to an admin', async () => {
    const res = await server.admin.get('/api/v1/accounts/self');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: 1,
      name: 'Site Admin',
      uuid: expect.any(String),
      parent_account_id: null,
      root_account_id: null,
      workflow_state: 'active',
      default_time_zone: 'Etc/UTC',
      sis_account_id: null,
    });
    const byId = await server.admin.get('/api/v1/accounts/1');
    expect(byId.body).toEqual(res.body);
  });

  it('refuses a non-admin with 403', async () => {
    const u = await world.user('Account Peeker');
    for (const path of ['/api/v1/accounts/self', '/api/v1/accounts/1']) {
      const res = await u.api.get(path);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    }
  });

  it('answers 404 for an unknown account', async () => {
    expect((await server.admin.get('/api/v1/accounts/31337')).status).toBe(404);
    expect((await server.admin.get('/api/v1/accounts/sis_account_id:nope')).status).toBe(404);
    expect((await server.admin.get('/api/v1/accounts/bogus')).body).toEqual(NOT_FOUND);
  });
});

describe('SIS ids never tell whether a login exists (issue 19 item 9)', () => {
  /**
   * A caller who may not see a user gets, for that user's sis_login_id: or sis_user_id:, exactly what
   * they get for a login nobody has: same status, same body, on every door that resolves a user from a
   * SIS id (users, planner, tokens, files, enrollment and module filters; GraphQL user, accessTokens,
   * plannerItems), anonymous GraphQL included. Numeric ids keep Canvas's 403.
   */
  let room: Awaited<ReturnType<World['classroom']>>;
  let hidden: { id: number; login: string; sis: string };
  beforeAll(async () => {
    room = await world.classroom();
    const login = `Hidden.Person.${uniq()}@example.com`;
    const sis = `SIS-HIDDEN-${uniq()}`;
    const made = await server.admin.post('/api/v1/accounts/self/users', { user: { name: 'Hidden Person' }, pseudonym: { unique_id: login, sis_user_id: sis } });
    expect(made.status).toBe(200);
    hidden = { id: made.body.id, login, sis };
  });

  const existing = () => [`sis_login_id:${hidden.login}`, `sis_login_id:${hidden.login.toUpperCase()}`, `sis_user_id:${hidden.sis}`];
  const missing = () => [`sis_login_id:nobody.${uniq()}@example.com`, `sis_user_id:SIS-NOBODY-${uniq()}`];
  const enc = encodeURIComponent;
  const restPaths = (id: string) => [
    `/api/v1/users/${enc(id)}`,
    `/api/v1/users/${enc(id)}/planner/items`,
    `/api/v1/planner/items?observed_user_id=${enc(id)}&context_codes[]=course_${room.course.id}`,
    `/api/v1/users/${enc(id)}/user_generated_tokens`,
    `/api/v1/users/${enc(id)}/tokens/1`,
    `/api/v1/users/${enc(id)}/files`,
    `/api/v1/courses/${room.course.id}/enrollments?user_id=${enc(id)}`,
    `/api/v1/courses/${room.course.id}/modules?student_id=${enc(id)}`,
  ];

  it('answers REST reads for an unseen user exactly as for a missing login', async () => {
    for (const who of [room.outsider, room.student]) {
      for (const i of restPaths('x').keys()) {
        const answers = new Set<string>();
        for (const id of [...missing(), ...existing()]) {
          const path = restPaths(id)[i];
          const res = await who.api.get(path);
          expect({ path, status: res.status }).toEqual({ path, status: expect.any(Number) });
          if (res.status < 400) throw new Error(`${who.name} read ${path}: ${res.status} ${res.text.slice(0, 200)}`);
          answers.add(`${res.status} ${res.text}`);
        }
        // One answer for all: 404 as for no such login (or the course's own refusal, whatever the id).
        expect({ who: who.name, path: restPaths('<id>')[i], answers: [...answers] }).toEqual({ who: who.name, path: restPaths('<id>')[i], answers: [expect.stringMatching(/^40[34] /)] });
      }
    }
    // REST token writes too.
    const posted = new Set<string>();
    for (const id of [...missing(), ...existing()]) {
      const res = await room.outsider.api.post(`/api/v1/users/${enc(id)}/tokens`, { token: { purpose: 'probe' } });
      posted.add(`${res.status} ${res.text}`);
    }
    expect([...posted]).toEqual([expect.stringMatching(/^404 /)]);
  });

  it('answers GraphQL user, accessTokens and plannerItems alike, anonymous callers included', async () => {
    const probes = [
      `query($id: ID!) { x: user(id: $id) { _id name } }`,
      `query($id: ID!) { x: accessTokens(userId: $id) { nodes { _id } } }`,
      `query($id: ID!) { x: plannerItems(userId: $id) { nodes { plannableId } } }`,
      `query($id: ID!) { x: legacyNode(type: Course, _id: "${room.course.id}") { ... on Course { enrollmentsConnection(userId: $id) { nodes { _id } } } } }`,
    ];
    for (const api of [room.outsider.api, room.student.api, server.as(null)]) {
      for (const query of probes) {
        const answers = new Set<string>();
        for (const id of [...missing(), ...existing()]) {
          const res = await api.request('POST', '/graphql', { query, variables: { id } }, { json: true });
          answers.add(`${res.status} ${res.text}`);
        }
        expect({ query, answers: [...answers] }).toEqual({ query, answers: [expect.any(String)] });
        expect([...answers][0]).not.toContain('Hidden Person');
      }
    }
  });

  it('still resolves SIS ids of users the caller may see, and keeps 403 for numeric ids', async () => {
    const byAdmin = await server.admin.get(`/api/v1/users/sis_login_id:${enc(hidden.login)}`);
    expect({ status: byAdmin.status, id: byAdmin.body.id }).toEqual({ status: 200, id: hidden.id });
    const classmate = await room.student.api.get(`/api/v1/users/sis_login_id:${enc(room.student2.login)}`);
    expect({ status: classmate.status, id: classmate.body.id }).toEqual({ status: 200, id: room.student2.id });
    const own = await room.student.api.get(`/api/v1/users/sis_login_id:${enc(room.student.login)}/user_generated_tokens`);
    expect(own.status).toBe(200);
    const numeric = await room.outsider.api.get(`/api/v1/users/${hidden.id}`);
    expect({ status: numeric.status, body: numeric.body }).toEqual({ status: 403, body: FORBIDDEN });
  });
});
