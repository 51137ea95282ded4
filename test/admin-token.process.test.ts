import { processDatabases, startServiceProcess } from './support/process';

/**
 * LMS_ADMIN_TOKEN is issued once per value: once the operator's token is deleted or regenerated
 * through the API it stays revoked across restarts. Runs the compiled service (`npm test` builds
 * first) as a real process, restarted against the same database.
 */
// Each case starts the service two or three times.
jest.setTimeout(120_000);

const databaseUrl = processDatabases('lms-admin-token-');

const auth = (token: string) => ({ headers: { Authorization: `Bearer ${token}` } });

async function restart(env: Record<string, string>, check: (url: string) => Promise<void>): Promise<string> {
  const svc = await startServiceProcess(env);
  try {
    await check(svc.url);
  } finally {
    svc.child.kill('SIGTERM');
    expect(await svc.exited).toBe(0);
  }
  return svc.stdout();
}

describe('LMS_ADMIN_TOKEN across restarts', () => {
  it('stays revoked once deleted through the API, and a new value issues a new token', async () => {
    const DATABASE_URL = await databaseUrl();
    const LMS_ADMIN_TOKEN = 'operator-token-to-revoke-0123456789';
    await restart({ DATABASE_URL, LMS_ADMIN_TOKEN }, async (url) => {
      expect((await fetch(`${url}/api/v1/users/self`, auth(LMS_ADMIN_TOKEN))).status).toBe(200);
      const del = await fetch(`${url}/api/v1/users/self/tokens/${LMS_ADMIN_TOKEN.slice(0, 5)}`, { method: 'DELETE', ...auth(LMS_ADMIN_TOKEN) });
      expect(del.status).toBe(200);
      expect((await fetch(`${url}/api/v1/users/self`, auth(LMS_ADMIN_TOKEN))).status).toBe(401);
    });

    const log = await restart({ DATABASE_URL, LMS_ADMIN_TOKEN }, async (url) => {
      expect((await fetch(`${url}/api/v1/users/self`, auth(LMS_ADMIN_TOKEN))).status).toBe(401);
    });
    expect(log).toContain('LMS_ADMIN_TOKEN was revoked');
    expect(log).not.toContain(LMS_ADMIN_TOKEN);

    const NEXT = 'operator-token-replacement-0123456789';
    await restart({ DATABASE_URL, LMS_ADMIN_TOKEN: NEXT }, async (url) => {
      expect((await fetch(`${url}/api/v1/users/self`, auth(NEXT))).status).toBe(200);
      expect((await fetch(`${url}/api/v1/users/self`, auth(LMS_ADMIN_TOKEN))).status).toBe(401);
    });
  });

  it('stays revoked once regenerated through the API (the old value no longer exists as a token)', async () => {
    const DATABASE_URL = await databaseUrl();
    const LMS_ADMIN_TOKEN = 'operator-token-to-rotate-0123456789';
    let rotated = '';
    await restart({ DATABASE_URL, LMS_ADMIN_TOKEN }, async (url) => {
      const res = await fetch(`${url}/api/v1/users/self/tokens/${LMS_ADMIN_TOKEN.slice(0, 5)}`, {
        method: 'PUT',
        headers: { ...auth(LMS_ADMIN_TOKEN).headers, 'Content-Type': 'application/json' },
        body: JSON.stringify({ token: { regenerate: true } }),
      });
      expect(res.status).toBe(200);
      rotated = ((await res.json()) as { visible_token: string }).visible_token;
    });

    await restart({ DATABASE_URL, LMS_ADMIN_TOKEN }, async (url) => {
      expect((await fetch(`${url}/api/v1/users/self`, auth(LMS_ADMIN_TOKEN))).status).toBe(401);
      expect((await fetch(`${url}/api/v1/users/self`, auth(rotated))).status).toBe(200);
    });
  });
});
