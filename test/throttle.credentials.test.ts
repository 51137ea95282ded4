import { randomBytes } from 'node:crypto';
import type { ApiResponse } from './support/api';
import { startTestServer, TestServer } from './support/server';
import { SMALL_BUCKET } from './support/throttle';
import { World, WorldUser } from './support/world';

/**
 * The throttle charges the credential that really authenticates a request (issue 19, item 2): REST
 * authenticates with the Authorization header, else the body's access_token, else the query string's;
 * /graphql with the header only; an unknown or invalid token with nothing, so its request counts
 * against the caller's IP. Each test comes from its own address (TRUST_PROXY trusts the loopback
 * peer's X-Forwarded-For), so IP buckets do not carry over between tests.
 */

const REPORTS = '/api/v1/error_reports';
const CONCURRENT = 20;

let server: TestServer;
let world: World;
beforeAll(async () => {
  // Two error reports fill a bucket (SMALL_BUCKET); the token cache is on, as in production.
  // A point of GraphQL cost is a unit, so three `{ __typename }` fill a bucket too.
  server = await startTestServer({ ...SMALL_BUCKET, GRAPHQL_COST_PER_RATE_LIMIT_UNIT: '1', TRUST_PROXY: 'loopback', TOKEN_CACHE_MS: '5000' });
  world = new World(server);
});
afterAll(() => server.close());

let lastIp = 0;
/** An address of its own for a test (TEST-NET-3). */
const freshIp = () => `203.0.113.${++lastIp}`;

/** Posts an error report as a form, with the given headers, query string and extra form fields. */
async function report(ip: string, opts: { header?: string; query?: string; form?: Record<string, string> } = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': ip };
  if (opts.header) headers.Authorization = `Bearer ${opts.header}`;
  const body = new URLSearchParams({ 'error[subject]': 'Throttle key test', ...opts.form }).toString();
  const res = await fetch(`${server.url}${REPORTS}${opts.query ? `?${opts.query}` : ''}`, { method: 'POST', headers, body });
  return { status: res.status, headers: res.headers, text: await res.text(), body: undefined };
}

const statuses = (responses: ApiResponse[]) => responses.map((r) => r.status).sort();
const decoy = () => `access_token=decoy${randomBytes(8).toString('hex')}`;

describe('REST', () => {
  let withHeader: WorldUser;
  let inBody: WorldUser;
  beforeAll(async () => {
    withHeader = await world.user('Header Client');
    inBody = await world.user('Body Client');
  });

  it("charges the body's access_token, not a decoy in the query string, like the same requests with a header", async () => {
    const ip = freshIp();
    const viaHeader = await Promise.all(Array.from({ length: CONCURRENT }, () => report(ip, { header: withHeader.token })));
    // Two reports fill a token's bucket, however many arrive at once.
    expect(statuses(viaHeader)).toEqual([...Array(2).fill(200), ...Array(CONCURRENT - 2).fill(429)]);

    const viaBody = await Promise.all(Array.from({ length: CONCURRENT }, () => report(freshIp(), { query: decoy(), form: { access_token: inBody.token } })));
    expect(statuses(viaBody)).toEqual(statuses(viaHeader));
    // The accepted ones were the body token's user's (the token that authenticated them).
    const mine = await server.app.ds.query('SELECT COUNT(*) AS n FROM error_reports WHERE user_id = ?', [inBody.id]);
    expect(Number(mine[0].n)).toBe(2);
    // And the body token's bucket is the one that is full.
    expect((await report(freshIp(), { header: inBody.token })).status).toBe(429);
  });

  it("charges unknown tokens, in the header or the body, to the caller's IP", async () => {
    const ip = freshIp();
    const unknown = () => `unknown${randomBytes(8).toString('hex')}`;
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await report(ip, { header: unknown() }));
    // Refused as unauthenticated, and counted: the third finds the IP's bucket full.
    expect(answers.map((r) => r.status)).toEqual([401, 401, 429]);
    expect((await report(ip, { form: { access_token: unknown() } })).status).toBe(429);
    expect((await report(ip)).status).toBe(429);
    // Another address has a bucket of its own.
    expect((await report(freshIp())).status).toBe(200);
  });

  it('charges a revoked token to the IP', async () => {
    const u = await world.user('Revoked Client');
    const tokens = await server.admin.get(`/api/v1/users/${u.id}/user_generated_tokens`);
    expect(tokens.status).toBe(200);
    expect(tokens.body.length).toBe(1);
    expect((await server.admin.delete(`/api/v1/users/${u.id}/tokens/${tokens.body[0].id}`)).status).toBe(200);
    const ip = freshIp();
    expect((await report(ip)).status).toBe(200);
    expect((await report(ip)).status).toBe(200);
    expect((await report(ip, { header: u.token })).status).toBe(429);
  });
});

describe('GraphQL over HTTP', () => {
  const graphql = (ip: string, opts: { query?: string; token?: string; bodyToken?: string } = {}) =>
    fetch(`${server.url}/graphql${opts.query ? `?${opts.query}` : ''}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': ip, ...(opts.token ? { Authorization: `Bearer ${opts.token}` } : {}) },
      body: JSON.stringify({ query: '{ __typename }', ...(opts.bodyToken ? { access_token: opts.bodyToken } : {}) }),
    });

  it("ignores access_token, as /graphql does when it authenticates: the request is the IP's", async () => {
    const u = await world.user('GraphQL Body Client');
    const ip = freshIp();
    // The IP's bucket is full …
    for (let i = 0; i < 3; i++) expect((await graphql(ip)).status).toBe(200);
    // … so a decoy in the query string, or a real token where /graphql does not read one, is refused.
    expect((await graphql(ip, { query: decoy() })).status).toBe(429);
    expect((await graphql(ip, { query: `access_token=${u.token}` })).status).toBe(429);
    expect((await graphql(ip, { bodyToken: u.token })).status).toBe(429);
    // The header is /graphql's credential: that token's own bucket.
    expect((await graphql(ip, { token: u.token })).status).toBe(200);
  });
});
