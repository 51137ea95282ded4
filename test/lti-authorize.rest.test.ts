import { randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { startTestServer, TestServer } from './support/server';
import { World } from './support/world';
import { ALL, assertion, authorizePath, courseIn, createProxy, JWT_BEARER, Proxy, subAccount } from './support/lti';
import { count } from './support/content';
import { LtiNonce } from '../src/lti/lti-nonce.entity';

let server: TestServer;
let world: World;
let proxy: Proxy;

const INVALID_GRANT = { error: 'invalid_grant' };
const now = () => Math.floor(Date.now() / 1000);
const ROOT = authorizePath('accounts', 1);

beforeAll(async () => {
  server = await startTestServer();
  world = new World(server);
  proxy = await createProxy(server, { capabilities: [ALL] });
});
afterAll(() => server.close());

/** POSTs the grant with an assertion for `p` whose claims may be overridden. */
async function grant(claims: Record<string, unknown> = {}, opts: { path?: string; p?: Proxy; secret?: string; alg?: 'HS256' | 'HS512'; headers?: Record<string, string> } = {}) {
  const path = opts.path ?? ROOT;
  const p = opts.p ?? proxy;
  const jwt = await assertion(opts.secret ?? p.shared_secret, { sub: p.guid, aud: `${server.url}${path}`, ...claims }, { alg: opts.alg });
  return server.as(null).with(opts.headers ?? {}).post(path, { grant_type: JWT_BEARER, assertion: jwt });
}

async function expectInvalidGrant(res: { status: number; body: unknown }) {
  expect(res.status).toBe(400);
  expect(res.body).toEqual(INVALID_GRANT);
}

describe('POST /api/lti/accounts/:account_id/authorize', () => {
  it('answers Canvas’s token response with a JWT the service signed (iss Canvas, sub guid, aud host, 1 h)', async () => {
    const before = now();
    const res = await grant();
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
    expect(res.body.token_type).toBe('bearer');
    expect(res.body.expires_in).toBe('3600');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(decodeProtectedHeader(res.body.access_token).alg).toBe('HS256');
    const claims = decodeJwt(res.body.access_token);
    expect(claims).toMatchObject({ iss: 'Canvas', sub: proxy.guid, aud: new URL(server.url).host });
    expect(claims.iat).toBeGreaterThanOrEqual(before);
    expect(claims.nbf).toBe(claims.iat! - 30);
    expect(claims.exp).toBe(claims.iat! + 3600);
    expect(typeof claims.jti).toBe('string');
  });

  it('takes a JSON body as well as a form', async () => {
    const jwt = await assertion(proxy.shared_secret, { sub: proxy.guid, aud: `${server.url}${ROOT}` });
    const res = await server.as(null).post(ROOT, { grant_type: JWT_BEARER, assertion: jwt }, { json: true });
    expect(res.status).toBe(200);
  });

  it('ignores user credentials entirely: an invalid bearer token does not turn it into a 401', async () => {
    const res = await grant({}, { headers: { Authorization: 'Bearer not-a-real-token' } });
    expect(res.status).toBe(200);
  });

  it('builds the expected aud as the Link headers do: a forwarded protocol counts only from a trusted proxy', async () => {
    const path = ROOT;
    const httpsAud = `https://${new URL(server.url).host}${path}`;
    // No TRUST_PROXY: a client's own X-Forwarded-Proto changes nothing.
    await expectInvalidGrant(await grant({ aud: httpsAud }, { headers: { 'X-Forwarded-Proto': 'https' } }));
    expect((await grant({}, { headers: { 'X-Forwarded-Proto': 'https' } })).status).toBe(200);
    const proxied = await startTestServer({ TRUST_PROXY: 'loopback' });
    try {
      const p = await createProxy(proxied, { capabilities: [ALL] });
      const aud = `https://${new URL(proxied.url).host}${path}`;
      const send = async (headers: Record<string, string>) =>
        proxied.as(null).with(headers).post(path, { grant_type: JWT_BEARER, assertion: await assertion(p.shared_secret, { sub: p.guid, aud }) });
      expect((await send({ 'X-Forwarded-Proto': 'https' })).status).toBe(200);
      await expectInvalidGrant(await send({}));
    } finally {
      await proxied.close();
    }
  });

  it('refuses a bad signature', async () => {
    await expectInvalidGrant(await grant({}, { secret: 'x'.repeat(128) }));
  });

  it('refuses an assertion not signed with HS256', async () => {
    await expectInvalidGrant(await grant({}, { alg: 'HS512' }));
  });

  it('refuses a wrong aud: another context, another host, the token path, or none', async () => {
    await expectInvalidGrant(await grant({ aud: `${server.url}${authorizePath('accounts', 2)}` }));
    await expectInvalidGrant(await grant({ aud: `http://evil.example${ROOT}` }));
    await expectInvalidGrant(await grant({ aud: `${server.url}${ROOT}/` }));
    await expectInvalidGrant(await grant({ aud: undefined }));
  });

  it('refuses exp more than 60 s ahead, in the past, or missing', async () => {
    await expectInvalidGrant(await grant({ exp: now() + 120 }));
    await expectInvalidGrant(await grant({ exp: now() - 5 }));
    await expectInvalidGrant(await grant({ exp: undefined }));
    expect((await grant({ exp: now() + 59 })).status).toBe(200);
  });

  it('refuses iat older than 5 minutes, in the future, or missing', async () => {
    await expectInvalidGrant(await grant({ iat: now() - 301 }));
    await expectInvalidGrant(await grant({ iat: now() + 30 }));
    await expectInvalidGrant(await grant({ iat: undefined }));
    expect((await grant({ iat: now() - 240 })).status).toBe(200);
  });

  it('refuses a missing jti, and a jti used before (remembered in the database)', async () => {
    await expectInvalidGrant(await grant({ jti: undefined }));
    const jti = randomUUID();
    expect((await grant({ jti })).status).toBe(200);
    await expectInvalidGrant(await grant({ jti }));
    expect(await count(server, 'lti_nonces')).toBeGreaterThan(0);
    // The same jti from another tool is that tool's own nonce.
    const other = await createProxy(server, { name: 'Other tool' });
    expect((await grant({ jti }, { p: other })).status).toBe(200);
  });

  it('lets exactly one of several concurrent uses of a jti through', async () => {
    const jwt = await assertion(proxy.shared_secret, { sub: proxy.guid, aud: `${server.url}${ROOT}` });
    const results = await Promise.all(Array.from({ length: 6 }, () => server.as(null).post(ROOT, { grant_type: JWT_BEARER, assertion: jwt })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
  });

  it('sweeps remembered jtis once they expire', async () => {
    await server.app.ds.getRepository(LtiNonce).insert({ nonce: 'f'.repeat(64), expiresAt: new Date(Date.now() - 1000) });
    expect((await grant()).status).toBe(200);
    expect(await count(server, 'lti_nonces', 'nonce = ?', ['f'.repeat(64)])).toBe(0);
  });

  it('refuses an unknown or missing sub', async () => {
    await expectInvalidGrant(await grant({ sub: randomUUID() }));
    await expectInvalidGrant(await grant({ sub: undefined }));
  });

  it('refuses a deleted tool proxy', async () => {
    const doomed = await createProxy(server, { name: 'Doomed' });
    expect((await grant({}, { p: doomed })).status).toBe(200);
    expect((await server.admin.delete(`/api/v1/accounts/1/tool_proxies/${doomed.id}`)).status).toBe(200);
    await expectInvalidGrant(await grant({}, { p: doomed }));
  });

  it('refuses a bad grant_type, a missing or malformed assertion, and an unknown context', async () => {
    const jwt = await assertion(proxy.shared_secret, { sub: proxy.guid, aud: `${server.url}${ROOT}` });
    await expectInvalidGrant(await server.as(null).post(ROOT, { grant_type: 'authorization_code', assertion: jwt }));
    await expectInvalidGrant(await server.as(null).post(ROOT, { grant_type: JWT_BEARER }));
    await expectInvalidGrant(await server.as(null).post(ROOT, { grant_type: JWT_BEARER, assertion: 'not.a.jwt' }));
    await expectInvalidGrant(await grant({}, { path: authorizePath('accounts', 999999) }));
    await expectInvalidGrant(await grant({}, { path: authorizePath('courses', 999999) }));
  });
});

describe('installation contexts', () => {
  it('a proxy of a sub-account is refused at the root account and at a sibling, and accepted beneath it', async () => {
    const { account: science } = await subAccount(server, world, 'Science');
    const { account: arts } = await subAccount(server, world, 'Arts');
    const { account: biology } = await subAccount(server, world, 'Biology', science.id);
    const p = await createProxy(server, { accountId: science.id, name: 'Science tool' });
    const course = await courseIn(server, biology.id, 'Cells');
    await expectInvalidGrant(await grant({}, { p }));
    await expectInvalidGrant(await grant({}, { p, path: authorizePath('accounts', arts.id) }));
    expect((await grant({}, { p, path: authorizePath('accounts', science.id) })).status).toBe(200);
    expect((await grant({}, { p, path: authorizePath('accounts', biology.id) })).status).toBe(200);
    expect((await grant({}, { p, path: authorizePath('courses', course.id) })).status).toBe(200);
  });

  it('a proxy installed in a course is accepted there only', async () => {
    const c1 = await courseIn(server, 1, 'History');
    const c2 = await courseIn(server, 1, 'Geography');
    const p = await createProxy(server, { contextType: 'Course', contextId: c1.id, name: 'Course tool' });
    expect((await grant({}, { p, path: authorizePath('courses', c1.id) })).status).toBe(200);
    await expectInvalidGrant(await grant({}, { p, path: authorizePath('courses', c2.id) }));
    await expectInvalidGrant(await grant({}, { p }));
  });

  it('a root-account proxy may authorize at any course of the account', async () => {
    const c = await courseIn(server, 1, 'Physics');
    expect((await grant({}, { path: authorizePath('courses', c.id) })).status).toBe(200);
  });
});

describe('GraphQL ltiAuthorize', () => {
  const AUTHORIZE = `mutation($input: LtiAuthorizeInput!) { ltiAuthorize(input: $input) { accessToken tokenType expiresIn } }`;

  it('grants with the aud of the REST authorize URL, and refuses with invalid_grant', async () => {
    const jwt = await assertion(proxy.shared_secret, { sub: proxy.guid, aud: `${server.url}${ROOT}` });
    const ok = await server.as(null).graphql(AUTHORIZE, { input: { contextType: 'Account', contextId: '1', grantType: JWT_BEARER, assertion: jwt } });
    expect(ok.errors).toBeUndefined();
    expect(ok.data.ltiAuthorize).toMatchObject({ tokenType: 'bearer', expiresIn: '3600' });
    expect(decodeJwt(ok.data.ltiAuthorize.accessToken).sub).toBe(proxy.guid);

    const replay = await server.as(null).graphql(AUTHORIZE, { input: { contextType: 'Account', contextId: '1', grantType: JWT_BEARER, assertion: jwt } });
    expect(replay.data).toBeNull();
    expect(replay.errors![0].extensions).toMatchObject({ code: 'REQUEST_ERROR', status: 400, body: INVALID_GRANT });
  });
});
