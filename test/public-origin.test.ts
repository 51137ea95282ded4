import http from 'node:http';
import { ConfigError, loadConfig } from '../src/config';
import { parseLinks } from './support/api';
import { assertion, authorizePath, createProxy, JWT_BEARER } from './support/lti';
import { startTestServer, TestServer } from './support/server';
import { wsClient, wsRequest } from './support/ws';

/**
 * Absolute URLs come from PUBLIC_URL when set, else from the request's host; X-Forwarded-Host and
 * X-Forwarded-Proto count only when the peer is a proxy TRUST_PROXY names.
 */
const SPOOFED = { 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https' };
const LIST = '/api/v1/users/self/user_generated_tokens';

/** A raw request with any Host header (fetch does not let a test choose it). */
function rawGet(url: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string; link?: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${path}`, { headers }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, link: res.headers.link as string | undefined }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('without TRUST_PROXY or PUBLIC_URL', () => {
  let server: TestServer;
  beforeAll(async () => (server = await startTestServer()));
  afterAll(() => server.close());

  it('ignores X-Forwarded-Host/-Proto from a client: links use the host it connected to', async () => {
    const res = await server.admin.with(SPOOFED).get(LIST);
    expect(res.status).toBe(200);
    expect(res.headers.get('link')).not.toContain('evil.example');
    expect(parseLinks(res.headers.get('link')).current).toMatch(new RegExp(`^${server.url}${LIST}\\?`));
    const me = await server.admin.with(SPOOFED).get('/api/v1/users/self');
    expect(me.body.avatar_url.startsWith(`${server.url}/`)).toBe(true);
  });

  it('answers a Host header that is no host name with a 400, never a 500', async () => {
    for (const path of [LIST, '/graphql?query=%7B__typename%7D']) {
      const res = await rawGet(server.url, path, { Host: 'a b@c/d', Authorization: `Bearer ${server.adminToken}` });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toEqual({ errors: [{ message: 'Invalid Host header' }] });
    }
  });
});

describe('with TRUST_PROXY naming the proxy', () => {
  it('believes X-Forwarded-Host/-Proto from a listed proxy only', async () => {
    const trusted = await startTestServer({ TRUST_PROXY: 'loopback' });
    const other = await startTestServer({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.7' });
    try {
      const viaProxy = await trusted.admin.with({ 'X-Forwarded-Host': 'lms.example.edu', 'X-Forwarded-Proto': 'https' }).get(LIST);
      expect(parseLinks(viaProxy.headers.get('link')).current).toMatch(/^https:\/\/lms\.example\.edu\/api\/v1\//);
      const notListed = await other.admin.with(SPOOFED).get(LIST);
      expect(notListed.headers.get('link')).not.toContain('evil.example');
      expect(parseLinks(notListed.headers.get('link')).current.startsWith(`${other.url}/`)).toBe(true);
    } finally {
      await trusted.close();
      await other.close();
    }
  });
});

describe('with PUBLIC_URL', () => {
  const PUBLIC = 'https://lms.example.edu';
  let server: TestServer;
  // Even a trusted proxy's headers do not override the configured public origin.
  beforeAll(async () => (server = await startTestServer({ PUBLIC_URL: `${PUBLIC}/`, TRUST_PROXY: 'loopback' })));
  afterAll(() => server.close());

  it('uses it for Link headers and URL fields whatever the request says', async () => {
    const res = await server.admin.with(SPOOFED).get(LIST);
    expect(parseLinks(res.headers.get('link')).current).toMatch(new RegExp(`^${PUBLIC}${LIST}\\?`));
    const me = await server.admin.with(SPOOFED).get('/api/v1/users/self');
    expect(me.body.avatar_url.startsWith(`${PUBLIC}/`)).toBe(true);
    const gql = await server.admin.with(SPOOFED).graphql('{ viewer { avatarUrl } }');
    expect(gql.data.viewer.avatarUrl.startsWith(`${PUBLIC}/`)).toBe(true);
  });

  it('uses it in graphql-ws contexts', async () => {
    const { client } = wsClient(server.url, server.adminToken);
    try {
      const res = await wsRequest(client, '{ viewer { avatarUrl } }');
      expect(res.data.viewer.avatarUrl.startsWith(`${PUBLIC}/`)).toBe(true);
    } finally {
      await client.dispose();
    }
  });

  it('is the LTI audience: a tool authorizes against the public URL and its token works at any host', async () => {
    const proxy = await createProxy(server);
    const path = authorizePath('accounts', 1);
    const grant = async (aud: string) =>
      server.as(null).post(path, { grant_type: JWT_BEARER, assertion: await assertion(proxy.shared_secret, { sub: proxy.guid, aud }) });
    expect((await grant(`${server.url}${path}`)).status).toBe(400);
    const ok = await grant(`${PUBLIC}${path}`);
    expect(ok.status).toBe(200);
    const subs = await server.as(ok.body.access_token).with(SPOOFED).get('/api/lti/subscriptions');
    expect(subs.status).toBe(200);
  });
});

describe('configuration', () => {
  it('refuses a TRUST_PROXY or PUBLIC_URL it cannot use, naming the variable', () => {
    for (const env of [{ TRUST_PROXY: 'everyone' }, { TRUST_PROXY: '10.0.0.0/33' }, { PUBLIC_URL: 'https://lms.example.edu/lms' }, { PUBLIC_URL: 'ftp://lms.example.edu' }]) {
      const name = Object.keys(env)[0];
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(name);
    }
    expect(loadConfig({ TRUST_PROXY: '2', PUBLIC_URL: 'http://localhost:8080' }).TRUST_PROXY).toBe('2');
  });
});
