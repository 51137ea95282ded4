import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { migrations } from '../migrations';
import { processDatabases } from './support/process';

/**
 * `npm run typeorm -- <command>` as an operator runs it, minus the build (`npm test` builds first):
 * the TypeORM CLI on the compiled data source, so no TypeScript loader (ts-node) is needed.
 */
const ROOT = path.join(__dirname, '..');
const script: string = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.typeorm;
const databaseUrl = processDatabases('lms-typeorm-cli-');

function typeorm(command: string, DATABASE_URL: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [build, cli] = script.split(' && ');
  expect(build).toBe('npm run build --silent');
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    const child = spawn('sh', ['-c', `${cli} ${command}`], {
      cwd: ROOT,
      env: { PATH: `${path.join(ROOT, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`, DATABASE_URL },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('npm run typeorm', () => {
  it('loads the compiled data source without ts-node; migration:show lists every migration, pending then run', async () => {
    const DATABASE_URL = await databaseUrl({ blank: true });
    const names = migrations.map((m) => m.name);
    expect(names.length).toBeGreaterThan(0);

    const pending = await typeorm('migration:show', DATABASE_URL);
    expect({ code: pending.code, stderr: pending.stderr }).toEqual({ code: 0, stderr: '' });
    expect(pending.stdout.trim().split('\n')).toEqual(names.map((n) => `[ ] ${n}`));

    const run = await typeorm('migration:run', DATABASE_URL);
    expect(run.code).toBe(0);
    for (const n of names) expect(run.stdout).toContain(`Migration ${n} has been executed successfully.`);
    // Statements are not printed, let alone their parameters.
    expect(run.stdout).not.toMatch(/^query:/m);

    const done = await typeorm('migration:show', DATABASE_URL);
    expect(done.code).toBe(0);
    expect(done.stdout.trim().split('\n')).toEqual(names.map((n, i) => expect.stringMatching(new RegExp(`^\\[X\\] ${i + 1} ${n}$`))));
  });
});
