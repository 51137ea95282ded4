import { transaction } from '../src/db/transaction';
import { isDbUnavailable } from '../src/db/unavailable';
import { startTestServer, TestServer } from './support/server';

/**
 * A transaction InnoDB keeps choosing as a deadlock's victim is run again (test/groups.concurrency has
 * the real deadlock); one that still loses after every attempt is contention, answered like an
 * unreachable database (503, Retry-After), not a 500.
 */
let server: TestServer;
beforeAll(async () => (server = await startTestServer()));
afterAll(() => server.close());

const deadlock = () => Object.assign(new Error('Deadlock found when trying to get lock; try restarting transaction'), { code: 'ER_LOCK_DEADLOCK' });

it('runs a deadlocked transaction again on MariaDB, and reports a lost one as unavailable', async () => {
  let calls = 0;
  const failure = await transaction(server.app.ds, async () => {
    calls++;
    throw deadlock();
  }).catch((e: unknown) => e);
  expect(isDbUnavailable(failure)).toBe(true);
  // SQLite runs its transactions one at a time and never deadlocks: nothing to run again there.
  expect(calls).toBe(server.db.kind === 'mysql' ? 8 : 1);
});

it('commits the attempt that wins after losing to deadlocks', async () => {
  let calls = 0;
  const result = await transaction(server.app.ds, async (em) => {
    calls++;
    if (calls < 3 && server.db.kind === 'mysql') throw deadlock();
    return (await em.query('SELECT 1 AS one'))[0].one;
  });
  expect(Number(result)).toBe(1);
  expect(calls).toBe(server.db.kind === 'mysql' ? 3 : 1);
});
