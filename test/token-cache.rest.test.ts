import { createHash, randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tokenFlushOf, type FlushKey } from '../src/auth/token-flush';
import { User } from '../src/users/user.entity';
import { requireRedis, subscriberCount, TEST_REDIS_URL as REDIS_URL } from './support/redis';
import { startTestServer, TestServer } from './support/server';
import { World, WorldUser } from './support/world';

/**
 * The per-process token cache (src/auth/token-cache.ts) never outlives a write made through the
 * service: a revoked or regenerated token and a changed user are seen by the very next request on
 * this instance, and on another one as soon as the flush has crossed Redis. The cache is given a
 * minute here, so only the invalidation can explain a prompt refusal.
 */
const LONG = { TOKEN_CACHE_MS: '60000' };

async function issue(u: WorldUser) {
  const res = await u.api.post('/api/v1/users/self/tokens', { token: { purpose: 'cached' } });
  expect(res.status).toBe(200);
  return res.body as { id: number; visible_token: string };
}

describe('one instance', () => {
  let server: TestServer;
  let world: World;
  beforeAll(async () => {
    server = await startTestServer(LONG);
    world = new World(server);
  });
  afterAll(() => server.close());

  it('refuses a revoked token on the next request', async () => {
    const u = await world.user('Cache Revoked');
    const t = await issue(u);
    const api = server.as(t.visible_token);
    expect((await api.get('/api/v1/users/self')).status).toBe(200);
    expect((await api.get('/api/v1/users/self')).status).toBe(200);
    expect((await u.api.delete(`/api/v1/users/self/tokens/${t.id}`)).status).toBe(200);
    expect((await api.get('/api/v1/users/self')).status).toBe(401);
    // GraphQL over HTTP authenticates the same way.
    expect((await api.graphql('{ viewer { _id } }')).status).toBe(401);
  });

  it('refuses the old secret of a regenerated token on the next request and takes the new one', async () => {
    const u = await world.user('Cache Regenerated');
    const t = await issue(u);
    const old = server.as(t.visible_token);
    expect((await old.get('/api/v1/users/self')).status).toBe(200);
    const res = await u.api.put(`/api/v1/users/self/tokens/${t.id}`, { token: { regenerate: 'true' } });
    expect(res.status).toBe(200);
    expect((await old.get('/api/v1/users/self')).status).toBe(401);
    expect((await server.as(res.body.visible_token).get('/api/v1/users/self')).body.id).toBe(u.id);
  });

  // No API changes or deletes users yet; a service would write through the entity, as here.
  it('shows a change to the user on the next request, and refuses a deleted user', async () => {
    const u = await world.user('Cache Before');
    expect((await u.api.get('/api/v1/users/self')).body.name).toBe('Cache Before');
    await server.app.ds.getRepository(User).update({ id: u.id }, { name: 'Cache After' });
    expect((await u.api.get('/api/v1/users/self')).body.name).toBe('Cache After');
    await server.app.ds.getRepository(User).update({ id: u.id }, { workflowState: 'deleted' });
    expect((await u.api.get('/api/v1/users/self')).status).toBe(401);
  });

  it("drops only the touched token: revoking one user's token leaves another user's cached token cached", async () => {
    const u = await world.user('Cache Keyed Writer');
    const v = await world.user('Cache Keyed Bystander');
    const t = await issue(u);
    const revoked = server.as(t.visible_token);
    expect((await revoked.get('/api/v1/users/self')).status).toBe(200);
    // Twice each: the first request of a token also writes its last_used_at.
    await v.api.get('/api/v1/users/self');
    await v.api.get('/api/v1/users/self');
    const cachedCost = async () => {
      const before = server.queryCount();
      expect((await v.api.get('/api/v1/users/self')).status).toBe(200);
      return server.queryCount() - before;
    };
    const warm = await cachedCost();
    expect((await u.api.delete(`/api/v1/users/self/tokens/${t.id}`)).status).toBe(200);
    expect((await revoked.get('/api/v1/users/self')).status).toBe(401);
    // A renamed user is another write: still only that user's entries go.
    const row = (await server.app.ds.getRepository(User).findOneBy({ id: u.id }))!;
    row.name = 'Cache Keyed Writer Renamed';
    await server.app.ds.getRepository(User).save(row);
    expect((await u.api.get('/api/v1/users/self')).body.name).toBe('Cache Keyed Writer Renamed');
    // The bystander's token is not looked up again.
    expect(await cachedCost()).toBe(warm);
  });

  it('does not let one request change what another sees', async () => {
    const u = await world.user('Cache Shared');
    const [a, b] = await Promise.all([u.api.get('/api/v1/users/self'), u.api.get('/api/v1/users/self')]);
    expect(a.body).toEqual(b.body);
  });
});

/**
 * Resolves once `s` has heard, from another instance, a flush naming the token or user (or all).
 * Another instance hears a write a Redis round trip after the writer's response (token-flush.ts):
 * a request sent to it in between may still be answered from its cache, so these tests wait for
 * the flush to arrive, then expect the very next request to see the write. With no flush (or one
 * naming something else) the cache, given a minute, would keep answering with the old row.
 */
function heardBy(s: TestServer, named: { token?: number; user?: number }): Promise<void> {
  const names = (k: FlushKey) => 'all' in k || ('token' in k && k.token === named.token) || ('user' in k && k.user === named.user);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (off(), reject(new Error(`no flush of ${JSON.stringify(named)} reached the other instance`))), 5_000);
    const off = tokenFlushOf(s.app).on((keys) => {
      if (!keys.some(names)) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}

describe('two instances sharing a database, through Redis', () => {
  let dir: string | undefined;
  let a: TestServer;
  let b: TestServer;
  let world: World;

  beforeAll(async () => {
    await requireRedis();
    // In-memory SQLite cannot be shared between two data sources; a file can.
    const mysql = process.env.DATABASE_URL?.startsWith('mysql://');
    dir = mysql ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), 'lms-token-cache-'));
    const env = { ...LONG, REDIS_URL, LMS_SECRET_KEY: randomBytes(32).toString('hex') };
    a = await startTestServer(dir ? { ...env, DATABASE_URL: `sqlite:${path.join(dir, 'shared.db')}` } : env);
    b = await startTestServer({ ...env, DATABASE_URL: a.app.config.DATABASE_URL });
    world = new World(a);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses on one instance a token revoked on the other, once the flush has crossed Redis', async () => {
    const u = await world.user('Cache Two Instances');
    const t = await issue(u);
    expect((await b.as(t.visible_token).get('/api/v1/users/self')).body.id).toBe(u.id);
    const heard = heardBy(b, { token: t.id });
    expect((await a.as(t.visible_token).delete(`/api/v1/users/self/tokens/${t.id}`)).status).toBe(200);
    await heard;
    expect((await b.as(t.visible_token).get('/api/v1/users/self')).status).toBe(401);
  });

  it("drops on the other instance only the touched token's entry", async () => {
    const u = await world.user('Cache Keyed Remote Writer');
    const v = await world.user('Cache Keyed Remote Bystander');
    const t = await issue(u);
    expect((await b.as(t.visible_token).get('/api/v1/users/self')).status).toBe(200);
    await b.as(v.token).get('/api/v1/users/self');
    await b.as(v.token).get('/api/v1/users/self');
    const cachedCost = async () => {
      const before = b.queryCount();
      expect((await b.as(v.token).get('/api/v1/users/self')).status).toBe(200);
      return b.queryCount() - before;
    };
    const warm = await cachedCost();
    const heard = heardBy(b, { token: t.id });
    expect((await a.as(t.visible_token).delete(`/api/v1/users/self/tokens/${t.id}`)).status).toBe(200);
    await heard;
    // The flush has reached b (its entry for the revoked token is gone) ...
    expect((await b.as(t.visible_token).get('/api/v1/users/self')).status).toBe(401);
    // ... and left the bystander's entry there.
    expect(await cachedCost()).toBe(warm);
  });

  it('listens for flushes before an instance takes its first request', async () => {
    // Redis drops a message nobody is subscribed to yet: an instance that subscribed only when its first
    // request came would miss a revoke made elsewhere meanwhile, and serve that token from its cache.
    const topic = `TOKEN_CACHE_FLUSH_${createHash('sha256').update(a.app.tokenKey).digest('hex').slice(0, 16)}`;
    const redis = new Redis(REDIS_URL);
    try {
      const listeners = () => subscriberCount(redis, topic);
      const before = await listeners();
      expect(before).toBeGreaterThanOrEqual(2);
      const c = await startTestServer({ ...LONG, REDIS_URL, LMS_SECRET_KEY: a.app.config.LMS_SECRET_KEY!, DATABASE_URL: a.app.config.DATABASE_URL });
      try {
        // No request has reached c: it is already subscribed.
        expect(await listeners()).toBe(before + 1);
      } finally {
        await c.close();
      }
    } finally {
      redis.disconnect();
    }
  });

  it('shows on one instance a user changed on the other', async () => {
    const u = await world.user('Cache Renamed Before');
    expect((await b.as(u.token).get('/api/v1/users/self')).body.name).toBe('Cache Renamed Before');
    const heard = heardBy(b, { user: u.id });
    await a.app.ds.getRepository(User).update({ id: u.id }, { name: 'Cache Renamed After' });
    await heard;
    expect((await b.as(u.token).get('/api/v1/users/self')).body.name).toBe('Cache Renamed After');
  });
});

