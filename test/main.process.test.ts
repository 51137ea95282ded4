import net from 'node:net';
import { processDatabases, runServiceToExit, startServiceProcess } from './support/process';
import { wsClient, wsRequest } from './support/ws';

/** These tests run the compiled service (`npm test` builds first) as a real process. */
const databaseUrl = processDatabases('lms-main-');

describe('start-up', () => {
  it('creates the root account and prints a generated admin token once, on first start only', async () => {
    // An empty database, as a new deployment's: the first start migrates it (the other tests start on a
    // migrated copy, which is quicker on MariaDB).
    const DATABASE_URL = await databaseUrl({ blank: true });
    const first = await startServiceProcess({ DATABASE_URL });
    const token = /Site admin access token[^\n]*\n\s*(\S+)/.exec(first.stdout())?.[1];
    expect(token).toMatch(/^[A-Za-z0-9]{64}$/);
    const self = await fetch(`${first.url}/api/v1/accounts/self`, { headers: { Authorization: `Bearer ${token}` } });
    expect(self.status).toBe(200);
    expect(((await self.json()) as { id: number }).id).toBe(1);
    // The token never appears in a structured log line.
    const logLines = first.stdout().split('\n').filter((l) => l.startsWith('{'));
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('\n')).not.toContain(token);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = await startServiceProcess({ DATABASE_URL });
    expect(second.stdout()).not.toContain('Site admin access token');
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('makes LMS_ADMIN_TOKEN the admin token, idempotently across restarts', async () => {
    const DATABASE_URL = await databaseUrl();
    const LMS_ADMIN_TOKEN = 'operator-chosen-token-0123456789';
    for (let i = 0; i < 2; i++) {
      const svc = await startServiceProcess({ DATABASE_URL, LMS_ADMIN_TOKEN });
      expect(svc.stdout()).not.toContain('Site admin access token');
      const res = await fetch(`${svc.url}/api/v1/users/self`, { headers: { Authorization: `Bearer ${LMS_ADMIN_TOKEN}` } });
      expect(res.status).toBe(200);
      svc.child.kill('SIGTERM');
      expect(await svc.exited).toBe(0);
    }
  });

  it('refuses a bad configuration value with a message naming the variable', async () => {
    const { code, output } = await runServiceToExit({ DATABASE_URL: 'postgres://nope', PORT: 'abc' });
    expect(code).toBe(1);
    expect(output).toContain('PORT');
    expect(output).toContain('DATABASE_URL');
    expect(output).not.toMatch(/\n\s+at /);
  });

  it('on a busy port prints one clear line, no stack, and exits non-zero', async () => {
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as net.AddressInfo).port;
    try {
      const { code, output } = await runServiceToExit({ DATABASE_URL: await databaseUrl(), HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn' });
      expect(code).toBe(1);
      const lines = output.split('\n').filter((l) => l.trim());
      expect(lines).toEqual([expect.stringMatching(new RegExp(`^Failed to start: port ${port} on 127\\.0\\.0\\.1 is already in use.*set PORT`))]);
    } finally {
      busy.close();
    }
  });
});

describe('graceful shutdown', () => {
  it('on SIGTERM finishes in-flight requests, closes websockets and exits 0', async () => {
    const LMS_ADMIN_TOKEN = 'shutdown-test-token-0123456789';
    // The throttle is off: 20 concurrent requests of one token would reserve more than Canvas's bucket
    // holds (12 × 50 units), and this test is about shutdown, not the throttle (test/throttle.rest.test.ts).
    const svc = await startServiceProcess({ DATABASE_URL: await databaseUrl(), LMS_ADMIN_TOKEN, LOG_LEVEL: 'silent', RATE_LIMIT: 'off' });
    const { client, closed } = wsClient(svc.url, LMS_ADMIN_TOKEN);
    expect((await wsRequest(client, '{ viewer { _id } }')).data).toEqual({ viewer: { _id: '1' } });

    const inFlight = Array.from({ length: 20 }, () =>
      fetch(`${svc.url}/api/v1/users/self`, { headers: { Authorization: `Bearer ${LMS_ADMIN_TOKEN}` } }).then((r) => r.status),
    );
    await new Promise((r) => setTimeout(r, 5));
    svc.child.kill('SIGTERM');
    const statuses = await Promise.allSettled(inFlight);
    const served = statuses.filter((s) => s.status === 'fulfilled').map((s) => (s as PromiseFulfilledResult<number>).value);
    // Every request the server accepted was answered in full.
    expect(served.filter((s) => s !== 200)).toEqual([]);
    expect(await closed).toBe(1001);
    expect(await svc.exited).toBe(0);
    await client.dispose();
  });
});
