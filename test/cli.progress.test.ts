import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../src/app/cli';
import { migrations } from '../migrations';
import { testDatabase, TestDatabase } from './support/db';

/**
 * Long CLI work (migrations, demo seeding; `files migrate` and `webhooks replay` use the same helper,
 * src/cli/progress.ts) draws a progress line on a terminal and nothing else when its output is not one,
 * where only the summary line is printed.
 */
class Sink {
  text = '';
  constructor(readonly isTTY = false) {}
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

function freshDatabase(): TestDatabase {
  const db = testDatabase();
  if (db.kind === 'mysql') return db;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lms-cli-progress-'));
  return { url: `sqlite:${path.join(dir, 'lms.sqlite')}`, kind: 'sqlite', drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

const dbs: TestDatabase[] = [];
afterAll(async () => {
  for (const db of dbs) await db.drop();
});

async function run(tty: boolean, db: TestDatabase, ...argv: string[]) {
  const out = new Sink(tty);
  const err = new Sink(tty);
  const code = await runCli(argv, { out, err, env: { DATABASE_URL: db.url, LOG_LEVEL: 'silent', LMS_ADMIN_TOKEN: 'progress-test-admin-token-0123456789' } });
  return { code, out: out.text, err: err.text };
}

const CONTROL = /[\r\x1b]/;

describe('CLI progress', () => {
  it('prints only the summaries when the output is not a terminal', async () => {
    const db = freshDatabase();
    dbs.push(db);
    const migrated = await run(false, db, 'migrate');
    expect(migrated.code).toBe(0);
    expect(migrated.out).not.toMatch(CONTROL);
    expect(migrated.out).not.toMatch(/Migrating:/);
    expect(migrated.out).toContain(`Ran ${migrations.length} migration(s)`);
    const seeded = await run(false, db, 'demo');
    expect(seeded.code).toBe(0);
    expect(`${seeded.out}${seeded.err}`).not.toMatch(CONTROL);
    expect(seeded.out).not.toMatch(/Seeding the demo:/);
    expect(seeded.out).toContain('Seeded the demo into');
  }, 120_000);

  it('draws x/y progress on a terminal, clears it, then prints the summary', async () => {
    const db = freshDatabase();
    dbs.push(db);
    const migrated = await run(true, db, 'migrate');
    expect(migrated.code).toBe(0);
    expect(migrated.out).toContain(`\r\x1b[KMigrating: ${migrations.length}/${migrations.length}`);
    // The line is cleared before the summary, which stays on its own line.
    expect(migrated.out).toMatch(new RegExp(`\\r\\x1b\\[KRan ${migrations.length} migration\\(s\\)`));
    const seeded = await run(true, db, 'demo');
    expect(seeded.code).toBe(0);
    expect(seeded.out).toMatch(/\r\x1b\[KSeeding the demo: 0\/\d+ course and people/);
    expect(seeded.out).toMatch(/\r\x1b\[KSeeded the demo into/);
  }, 120_000);
});
