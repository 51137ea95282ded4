import { parseLinks } from './support/api';
import type { TestServer } from './support/server';
import { startWorld, World } from './support/world';

let server: TestServer;
let world: World;

beforeAll(async () => ({ server, world } = await startWorld()));
afterAll(() => server.close());

describe('token authentication', () => {
  it('refuses a request without a token with Canvas 401 body and WWW-Authenticate', async () => {
    const res = await server.as(null).get('/api/v1/users/self');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: 'unauthenticated', errors: [{ message: 'user authorization required' }] });
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="canvas-lms"');
  });

  it('refuses a bad token', async () => {
    const res = await server.as('not-a-real-token').get('/api/v1/users/self');
    expect(res.status).toBe(401);
    expect(res.body.errors[0].message).toBe('Invalid access token.');
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="canvas-lms"');
  });

  it('refuses an expired token', async () => {
    const u = await world.user('Exp User');
    const past = new Date(Date.now() - 60_000).toISOString();
    const t = await server.admin.post(`/api/v1/users/${u.id}/tokens`, { token: { purpose: 'short', expires_at: past } });
    expect(t.status).toBe(200);
    const res = await server.as(t.body.visible_token).get('/api/v1/users/self');
    expect(res.status).toBe(401);
    expect(res.body.errors[0].message).toBe('Expired access token.');
  });

  it('accepts a valid token and the access_token parameter', async () => {
    const u = await world.user('Valid User');
    expect((await u.api.get('/api/v1/users/self')).body).toMatchObject({ id: u.id, name: 'Valid User' });
    const viaParam = await server.as(null).get(`/api/v1/users/self?access_token=${u.token}`);
    expect(viaParam.status).toBe(200);
    expect(viaParam.body.id).toBe(u.id);
  });

  it('stores tokens only as a keyed hash with a 5-character hint', async () => {
    const u = await world.user('Hash User');
    const rows: { crypted_token: string; token_hint: string }[] = await server.app.ds.query(
      'SELECT crypted_token, token_hint FROM access_tokens WHERE user_id = ?',
      [u.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].crypted_token).not.toContain(u.token);
    expect(rows[0].crypted_token).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0].token_hint).toBe(u.token.slice(0, 5));
  });
});

describe('POST /api/v1/users/:user_id/tokens', () => {
  it('lets a user create a token for themself, showing the full token only on creation', async () => {
    const u = await world.user('Self Token');
    const res = await u.api.post('/api/v1/users/self/tokens', { token: { purpose: 'my script' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ user_id: u.id, purpose: 'my script', workflow_state: 'active', app_name: 'No App' });
    expect(res.body.visible_token).toHaveLength(64);
    expect((await server.as(res.body.visible_token).get('/api/v1/users/self')).body.id).toBe(u.id);
  });

  it('refuses a token for someone else unless the caller is a site admin', async () => {
    const [a, b] = await Promise.all([world.user('Alice Token'), world.user('Bob Token')]);
    const res = await a.api.post(`/api/v1/users/${b.id}/tokens`, { token: { purpose: 'steal' } });
    expect([403, 404]).toContain(res.status);
    const count = await server.app.ds.query('SELECT COUNT(*) AS n FROM access_tokens WHERE user_id = ?', [b.id]);
    expect(Number(count[0].n)).toBe(1);
  });

  it('requires a purpose (Canvas 400 body) and stores nothing', async () => {
    const u = await world.user('No Purpose');
    const res = await u.api.post('/api/v1/users/self/tokens', { token: { expires_at: '2030-01-01' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual([{ message: 'token[purpose] is missing' }]);
    const count = await server.app.ds.query('SELECT COUNT(*) AS n FROM access_tokens WHERE user_id = ?', [u.id]);
    expect(Number(count[0].n)).toBe(1);
  });

  it('rejects a malformed expires_at with a 400 naming the field', async () => {
    const u = await world.user('Bad Date');
    const res = await u.api.post('/api/v1/users/self/tokens', { token: { purpose: 'x', expires_at: 'someday' } });
    expect(res.status).toBe(400);
    expect(res.body.errors.expires_at[0]).toMatchObject({ attribute: 'expires_at', type: 'invalid' });
  });
});

describe('masquerading with as_user_id', () => {
  it('lets a site admin act as another user', async () => {
    const u = await world.user('Masq Target');
    const res = await server.admin.get(`/api/v1/users/self?as_user_id=${u.id}`);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(u.id);
  });

  it('accepts as_user_id in a form body too', async () => {
    const u = await world.user('Masq Form');
    const res = await server.admin.post('/api/v1/users/self/tokens', { as_user_id: u.id, token: { purpose: 'masq' } });
    expect(res.status).toBe(200);
    expect(res.body.user_id).toBe(u.id);
  });

  it('refuses anyone else with 401 Invalid as_user_id', async () => {
    const [a, b] = await Promise.all([world.user('Masq A'), world.user('Masq B')]);
    const res = await a.api.get(`/api/v1/users/self?as_user_id=${b.id}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ errors: 'Invalid as_user_id' });
  });

  it('refuses an unknown target', async () => {
    const res = await server.admin.get('/api/v1/users/self?as_user_id=999999');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ errors: 'Invalid as_user_id' });
  });
});

describe('pagination', () => {
  it('emits Canvas Link headers across several pages with absolute URLs', async () => {
    const course = await world.course({ name: 'Paged' });
    for (let i = 0; i < 4; i++) await world.section(course.id, `Section ${i}`);
    // 5 sections: the default one plus four.
    const first = await server.admin.get(`/api/v1/courses/${course.id}/sections?per_page=2&include[]=students`);
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(2);
    const links = parseLinks(first.headers.get('link'));
    expect(Object.keys(links)).toEqual(['current', 'next', 'first', 'last']);
    expect(links.next).toBe(`${server.url}/api/v1/courses/${course.id}/sections?include%5B%5D=students&page=2&per_page=2`);
    expect(links.last).toContain('page=3&per_page=2');

    const second = await server.admin.get(links.next.replace(server.url, ''));
    const l2 = parseLinks(second.headers.get('link'));
    expect(Object.keys(l2)).toEqual(['current', 'next', 'prev', 'first', 'last']);
    const third = await server.admin.get(l2.next.replace(server.url, ''));
    expect(third.body).toHaveLength(1);
    expect(parseLinks(third.headers.get('link')).next).toBeUndefined();
    const ids = [...first.body, ...second.body, ...third.body].map((s: { id: number }) => s.id);
    expect(new Set(ids).size).toBe(5);
  });

  it('clamps per_page to 1..100, answers [] past the end and 400 naming a non-numeric page or per_page', async () => {
    const course = await world.course({ name: 'Clamp' });
    const zero = await server.admin.get(`/api/v1/courses/${course.id}/sections?per_page=0`);
    expect(zero.body).toHaveLength(1);
    expect(zero.headers.get('link')).toContain('per_page=1');
    const big = await server.admin.get(`/api/v1/courses/${course.id}/sections?per_page=500`);
    expect(big.headers.get('link')).toContain('per_page=100');
    const past = await server.admin.get(`/api/v1/courses/${course.id}/sections?page=9`);
    expect(past.status).toBe(200);
    expect(past.body).toEqual([]);
    for (const [query, attribute] of [
      ['page=abc', 'page'],
      ['page=-1', 'page'],
      ['page=1.5', 'page'],
      ['page[]=2', 'page'],
      ['per_page=abc', 'per_page'],
      ['per_page=10abc', 'per_page'],
      ['page=2&per_page=lots', 'per_page'],
    ]) {
      const res = await server.admin.get(`/api/v1/courses/${course.id}/sections?${query}`);
      expect([query, res.status]).toEqual([query, 400]);
      expect(res.body).toEqual({ errors: { [attribute]: [{ attribute, type: 'invalid', message: expect.stringMatching(/number/) }] } });
    }
    // Bookmark-paged lists check per_page the same way.
    const { course: roster } = await world.classroom();
    const bookmarked = await server.admin.get(`/api/v1/courses/${roster.id}/enrollments?per_page=abc`);
    expect(bookmarked.status).toBe(400);
    expect(Object.keys(bookmarked.body.errors)).toEqual(['per_page']);
    // A blank field is no value, as for Canvas.
    const blank = await server.admin.get(`/api/v1/courses/${course.id}/sections?page=&per_page=`);
    expect(blank.status).toBe(200);
    expect(blank.headers.get('link')).toContain('page=1&per_page=10');
  });

  it('pages enrollments with Canvas bookmarks', async () => {
    const { course } = await world.classroom();
    const seen: number[] = [];
    let path: string | undefined = `/api/v1/courses/${course.id}/enrollments?per_page=2`;
    let pages = 0;
    while (path) {
      const res = await server.admin.get(path);
      expect(res.status).toBe(200);
      seen.push(...res.body.map((e: { id: number }) => e.id));
      const links = parseLinks(res.headers.get('link'));
      expect(links.last).toBeUndefined();
      path = links.next?.replace(server.url, '');
      if (path) expect(path).toMatch(/page=bookmark%3A/);
      pages++;
    }
    expect(pages).toBe(2);
    expect(seen).toHaveLength(4);
    expect(new Set(seen).size).toBe(4);
  });
});

describe('errors and encoding', () => {
  it("answers unknown routes with Canvas's JSON 404, whoever asks and whatever the method", async () => {
    for (const [api, method, path] of [
      [server.admin, 'get', '/api/v1/no_such_thing'],
      [server.as(null), 'get', '/api/v1/nope'],
      [server.admin, 'post', '/api/v1/courses/1/no_such_list'],
      [server.admin, 'get', '/no/api/at/all'],
    ] as const) {
      const res = method === 'get' ? await api.get(path) : await api.post(path, {});
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.body).toEqual({ errors: [{ message: 'The specified resource does not exist.' }] });
    }
  });

  it('answers malformed JSON with a JSON 400', async () => {
    const res = await fetch(`${server.url}/api/v1/accounts/self/courses`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${server.adminToken}`, 'Content-Type': 'application/json' },
      body: '{"course":',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { message: string }[] }).errors[0].message).toBeTruthy();
  });

  it('emits ids as strings with the canvas-string-ids Accept header', async () => {
    const res = await server.admin.with({ Accept: 'application/json+canvas-string-ids' }).get('/api/v1/users/self');
    expect(typeof res.body.id).toBe('string');
  });

  it('accepts JSON bodies the same as form bodies', async () => {
    const res = await server.admin.post('/api/v1/accounts/self/courses', { course: { name: 'JSON Course' }, offer: true }, { json: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'JSON Course', workflow_state: 'available' });
  });
});

describe('health', () => {
  it('reports live and ready', async () => {
    const live = await server.as(null).get('/health/live');
    expect(live.status).toBe(200);
    const ready = await server.as(null).get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', checks: { database: { status: 'ok', latencyMs: expect.any(Number) } } });
  });
});
