import { randomUUID } from 'node:crypto';
import { Account } from '../src/accounts/account.entity';
import { AccountService } from '../src/accounts/account.service';
import { closeSession, demo, openSession } from '../src/app/cli';
import { loadConfig } from '../src/config';
import { ErrorReport } from '../src/error-reports/error-report.entity';
import { Api } from './support/api';
import { testDatabase } from './support/db';
import { startTestServer, TestServer } from './support/server';
import { World } from './support/world';

let server: TestServer;
let world: World;
let room: Awaited<ReturnType<World['classroom']>>;

const UNAUTHENTICATED = { status: 'unauthenticated', errors: [{ message: 'user authorization required' }] };
const PATH = '/api/v1/error_reports';

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
  room = await world.classroom();
});
afterAll(() => server.close());

async function total(): Promise<number> {
  return Number((await server.app.ds.query('SELECT COUNT(*) AS n FROM error_reports'))[0].n);
}

async function row(id: number): Promise<Record<string, any>> {
  const rows = await server.app.ds.query('SELECT * FROM error_reports WHERE id = ?', [id]);
  return rows[0];
}

const env = (r: Record<string, any>) => JSON.parse(r.http_env);

async function file(api: Api, error: Record<string, unknown>, opts?: { json?: boolean }): Promise<number> {
  const res = await api.post(PATH, { error }, opts);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ logged: true, id: expect.any(Number) });
  return res.body.id;
}

describe('POST /api/v1/error_reports', () => {
  it("takes an anonymous report and answers Canvas's {logged, id}; the request's environment is recorded", async () => {
    const anon = server.as(null).with({ 'User-Agent': 'ReportBot/1.0', Referer: 'https://school.example.com/courses/1?access_token=leaky' });
    const res = await anon.post(`${PATH}?foo=bar`, { error: { subject: 'Upload breaks', comments: 'A .mov file fails', email: 'me@example.com' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ logged: true, id: expect.any(Number) });
    const r = await row(res.body.id);
    expect(r).toMatchObject({ subject: 'Upload breaks', comments: 'A .mov file fails', email: 'me@example.com', user_id: null, user_roles: null, user_agent: 'ReportBot/1.0', account_id: 1 });
    // Without error[url] the Referer is the page, its access_token filtered.
    expect(r.url).toBe('https://school.example.com/courses/1?access_token=[FILTERED]');
    expect(env(r)).toMatchObject({ REQUEST_METHOD: 'POST', PATH_INFO: PATH, QUERY_STRING: 'foo=bar', HTTP_USER_AGENT: 'ReportBot/1.0', REMOTE_ADDR: '127.0.0.1' });
    expect(env(r).HTTP_REFERER).toBe('https://school.example.com/courses/1?access_token=[FILTERED]');
  });

  it('never records the Authorization header, cookies or an access_token, whichever way the token came', async () => {
    const u = await world.user('Careful Reporter');
    const viaHeader = u.api.with({ Cookie: 'canvas_session=secret-cookie-value; other=1' });
    const id1 = await file(viaHeader, { subject: 'Header token' });
    const viaParam = server.as(null).with({ Cookie: 'canvas_session=secret-cookie-value' });
    const res = await viaParam.post(`${PATH}?access_token=${u.token}&page=2`, { error: { subject: 'Param token' } });
    expect(res.status).toBe(200);
    for (const id of [id1, res.body.id]) {
      const r = await row(id);
      const stored = JSON.stringify(r);
      expect(stored).not.toContain(u.token);
      expect(stored).not.toContain('secret-cookie-value');
      expect(stored.toLowerCase()).not.toContain('authorization');
      expect(stored.toLowerCase()).not.toContain('cookie');
      expect(r.user_id).toBe(u.id);
    }
    expect(env(await row(res.body.id)).QUERY_STRING).toBe('access_token=[FILTERED]&page=2');
    expect(env(await row(res.body.id)).REQUEST_URI).toContain('access_token=[FILTERED]');
  });

  it('takes error[http_env] as a JSON string, a nested form hash or a JSON object, dropping credentials', async () => {
    const fromString = await file(room.student.api, { subject: 'Mobile', http_env: JSON.stringify({ device: 'Pixel 8', os: 'Android 15', Authorization: `Bearer ${room.student.token}` }) });
    expect(env(await row(fromString))).toEqual({ device: 'Pixel 8', os: 'Android 15' });
    const fromForm = await file(room.student.api, { subject: 'Form env', http_env: { app_version: '7.1', HTTP_COOKIE: 'x=y', nested: { access_token: 'abc', ok: 'yes' } } });
    expect(env(await row(fromForm))).toEqual({ app_version: '7.1', nested: { ok: 'yes' } });
    const fromJson = await file(room.student.api, { subject: 'JSON env', http_env: { screen: { width: 390, height: 844 }, note: `token Bearer ${room.student.token}` } }, { json: true });
    expect(env(await row(fromJson))).toEqual({ screen: { width: 390, height: 844 }, note: 'token Bearer [FILTERED]' });
    // Anything else is ignored and the request's own environment recorded, as in Canvas.
    const junk = await file(room.student.api, { subject: 'Junk env', http_env: 'not json' });
    expect(env(await row(junk))).toMatchObject({ REQUEST_METHOD: 'POST', PATH_INFO: PATH });
  });

  it('records the severity, the context asset string and the page URL; roles are derived by the server', async () => {
    const id = await file(room.teacher.api, {
      subject: 'Grades page slow',
      user_perceived_severity: 'blocks_what_i_need_to_do',
      context_asset_string: `course_${room.course.id}`,
      url: 'https://school.example.com/courses/1/gradebook?access_token=nope',
      user_roles: 'admin,root_admin',
    });
    const r = await row(id);
    expect(r).toMatchObject({
      user_perceived_severity: 'blocks_what_i_need_to_do',
      context_asset_string: `course_${room.course.id}`,
      url: 'https://school.example.com/courses/1/gradebook?access_token=[FILTERED]',
      user_roles: 'user,teacher',
      user_id: room.teacher.id,
    });
    expect((await row(await file(room.student.api, { subject: 'Student' }))).user_roles).toBe('user,student');
    expect((await row(await file(server.admin, { subject: 'Admin' }))).user_roles).toBe('user,admin,root_admin');
    // A URL that is not http(s) is not kept.
    expect((await row(await file(room.student.api, { subject: 'JS url', url: 'javascript:alert(1)' }))).url).toBeNull();
  });

  it('records the real user when a site admin masquerades', async () => {
    const res = await server.admin.post(`${PATH}?as_user_id=${room.student.id}`, { error: { subject: 'Masqueraded' } });
    expect(res.status).toBe(200);
    const r = await row(res.body.id);
    expect(r.user_id).toBe(room.student.id);
    expect(Number(r.real_user_id)).toBeGreaterThan(0);
    expect(r.real_user_id).not.toBe(room.student.id);
  });

  describe('bad input (400 naming the field, nothing stored)', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['no subject', { comments: 'forgot the subject' }, 'subject'],
      ['a blank subject', { subject: '   ' }, 'subject'],
      ['no error hash at all', {}, 'subject'],
      ['a subject over 255 characters', { subject: 's'.repeat(256) }, 'subject'],
      ['comments over 16000 characters', { subject: 'ok', comments: 'c'.repeat(16_001) }, 'comments'],
      ['an email over 255 characters', { subject: 'ok', email: `${'e'.repeat(250)}@example.com` }, 'email'],
      ['a url over 2048 characters', { subject: 'ok', url: `https://example.com/${'u'.repeat(2048)}` }, 'url'],
      ['an http_env over 16000 characters of JSON', { subject: 'ok', http_env: { blob: 'h'.repeat(16_001) } }, 'http_env'],
      ['an unknown severity', { subject: 'ok', user_perceived_severity: 'apocalyptic' }, 'user_perceived_severity'],
      ['a malformed context asset string', { subject: 'ok', context_asset_string: 'course one' }, 'context_asset_string'],
      ['a context asset string over 255 characters', { subject: 'ok', context_asset_string: `course_${'1'.repeat(256)}` }, 'context_asset_string'],
    ];
    it.each(cases)('refuses %s', async (_name, error, attribute) => {
      const before = await total();
      const body = Object.keys(error).length ? { error } : { something: 'else' };
      const res = await server.as(null).post(PATH, body, { json: true });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(res.body.errors[attribute]).toEqual([expect.objectContaining({ attribute })]);
      expect(await total()).toBe(before);
    });

    it("refuses Canvas's honeypot field with 400", async () => {
      const before = await total();
      const res = await server.as(null).post(PATH, { error: { subject: 'Buy now', username: 'bot' } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'bad request' });
      expect(await total()).toBe(before);
    });

    it('refuses a bad token with 401 even though anonymous reports are allowed', async () => {
      const before = await total();
      const res = await server.as('not-a-token').post(PATH, { error: { subject: 'x' } });
      expect(res.status).toBe(401);
      expect(res.body.status).toBe('unauthenticated');
      expect(await total()).toBe(before);
    });

    it('takes the longest allowed values', async () => {
      const id = await file(server.as(null), { subject: 's'.repeat(255), comments: 'c'.repeat(16_000), email: `${'e'.repeat(243)}@example.com` }, { json: true });
      const r = await row(id);
      expect(r.subject).toHaveLength(255);
      expect(r.comments).toHaveLength(16_000);
    });
  });
});

describe('GraphQL', () => {
  const REPORT = `_id id subject comments userPerceivedSeverity email url contextAssetString userRoles userAgent httpEnv userId realUserId createdAt user { _id name }`;

  it('lets anyone file a report through createErrorReport, collecting the environment from the request', async () => {
    const res = await server.as(null).with({ 'User-Agent': 'GqlAgent' }).graphql(
      `mutation($input: CreateErrorReportInput!) { createErrorReport(input: $input) { logged errorReportId errors { attribute message } } }`,
      { input: { subject: 'From GraphQL', userPerceivedSeverity: 'not_urgent' } },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.createErrorReport).toMatchObject({ logged: true, errors: null });
    const r = await row(Number(res.data.createErrorReport.errorReportId));
    expect(env(r)).toMatchObject({ REQUEST_METHOD: 'POST', PATH_INFO: '/graphql', HTTP_USER_AGENT: 'GqlAgent' });
    const bad = await server.as(null).graphql(`mutation { createErrorReport(input: { subject: "" }) { logged errorReportId errors { attribute type } } }`);
    expect(bad.data.createErrorReport).toEqual({ logged: false, errorReportId: null, errors: [{ attribute: 'subject', type: 'blank' }] });
  });

  describe('listing and reading (site admins only)', () => {
    let ids: number[];
    beforeAll(async () => {
      ids = [];
      for (const [subject, severity] of [
        ['First', 'just_a_comment'],
        ['Second', 'extreme_critical_emergency'],
        ['Third', 'just_a_comment'],
        ['Fourth', 'extreme_critical_emergency'],
      ]) {
        ids.push(await file(room.student.api, { subject, user_perceived_severity: severity }));
      }
    });

    it('lists reports newest first, with Relay paging and totalCount', async () => {
      const q = `query($after: String) { errorReportsConnection(first: 2, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { _id subject } } }`;
      const page1 = await server.admin.graphql(q);
      expect(page1.errors).toBeUndefined();
      const conn = page1.data.errorReportsConnection;
      expect(conn.totalCount).toBe(await total());
      expect(conn.nodes.map((n: any) => n.subject)).toEqual(['Fourth', 'Third']);
      expect(conn.pageInfo.hasNextPage).toBe(true);
      const page2 = await server.admin.graphql(q, { after: conn.pageInfo.endCursor });
      expect(page2.data.errorReportsConnection.nodes.map((n: any) => n.subject)).toEqual(['Second', 'First']);
    });

    it('filters by severity', async () => {
      const res = await server.admin.graphql(`{ errorReportsConnection(severity: "extreme_critical_emergency", first: 50) { totalCount nodes { subject userPerceivedSeverity } } }`);
      const nodes = res.data.errorReportsConnection.nodes;
      expect(nodes.slice(0, 2).map((n: any) => n.subject)).toEqual(['Fourth', 'Second']);
      expect(nodes.every((n: any) => n.userPerceivedSeverity === 'extreme_critical_emergency')).toBe(true);
      expect(res.data.errorReportsConnection.totalCount).toBe(nodes.length);
      const bad = await server.admin.graphql(`{ errorReportsConnection(severity: "meh") { totalCount } }`);
      expect(bad.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    });

    it('reads one report by id, global id or node, with its http_env and reporter', async () => {
      const res = await server.admin.graphql(`query($id: ID!) { errorReport(id: $id) { ${REPORT} } }`, { id: String(ids[1]) });
      expect(res.errors).toBeUndefined();
      const r = res.data.errorReport;
      expect(r).toMatchObject({ _id: String(ids[1]), subject: 'Second', userPerceivedSeverity: 'extreme_critical_emergency', userRoles: 'user,student', userId: String(room.student.id), user: { _id: String(room.student.id) } });
      expect(r.httpEnv).toMatchObject({ REQUEST_METHOD: 'POST', PATH_INFO: PATH });
      expect(JSON.stringify(r)).not.toContain(room.student.token);
      const byGlobal = await server.admin.graphql(`query($id: ID!) { errorReport(id: $id) { _id } node(id: $id) { ... on ErrorReport { subject } } }`, { id: r.id });
      expect(byGlobal.data).toEqual({ errorReport: { _id: String(ids[1]) }, node: { subject: 'Second' } });
      const missing = await server.admin.graphql(`{ errorReport(id: "999999") { _id } }`);
      expect(missing.errors?.[0].extensions.code).toBe('NOT_FOUND');
    });

    it('refuses everyone else: FORBIDDEN for teachers, reporters and sub-account admins, UNAUTHENTICATED without a token', async () => {
      const sub = await server.app.ds.getRepository(Account).save(
        Object.assign(new Account(), { name: 'Sub', parentAccountId: 1, rootAccountId: 1, workflowState: 'active', uuid: randomUUID(), defaultTimeZone: null, sisAccountId: null }),
      );
      const subAdmin = await world.user('Sub Admin');
      await AccountService.addAdmin(server.app.ds.manager, sub.id, subAdmin.id);
      for (const who of [room.teacher, room.student, subAdmin]) {
        const list = await who.api.graphql(`{ errorReportsConnection { totalCount nodes { subject } } }`);
        expect(list.data).toBeNull();
        expect(list.errors?.[0].extensions.code).toBe('FORBIDDEN');
        const one = await who.api.graphql(`query($id: ID!) { errorReport(id: $id) { subject } }`, { id: String(ids[0]) });
        expect(one.errors?.[0].extensions.code).toBe('FORBIDDEN');
        const node = await who.api.graphql(`query($id: ID!) { legacyNode(type: ErrorReport, _id: $id) { id } }`, { id: String(ids[0]) });
        expect(node.data.legacyNode).toBeNull();
      }
      const anon = await server.as(null).graphql(`{ errorReportsConnection { totalCount } }`);
      expect(anon.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
    });
  });
});

describe('no REST listing', () => {
  it('has no REST route to read reports (GraphQL only)', async () => {
    expect((await server.admin.get(PATH)).status).toBe(404);
    expect((await server.as(null).get(PATH)).body).not.toEqual(UNAUTHENTICATED);
  });
});

describe('demo seed', () => {
  it('adds one error report from a demo student', async () => {
    const db = testDatabase();
    await db.ready?.();
    const session = await openSession(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }));
    try {
      await demo(session, { write: () => true });
      const reports = await session.app.ds.getRepository(ErrorReport).find();
      expect(reports).toHaveLength(1);
      expect(reports[0]).toMatchObject({ userPerceivedSeverity: 'workaround_possible', userRoles: 'user,student' });
      expect(reports[0].userId).not.toBeNull();
    } finally {
      await closeSession(session);
      await db.drop();
    }
  });
});
