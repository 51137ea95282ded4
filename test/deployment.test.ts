import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config';

/**
 * The deployment files name the service's configuration; nothing else notices when they drift from
 * src/config.ts (a renamed variable is silently ignored by the service). CI also runs
 * `docker compose config` on compose.yaml where docker compose exists (.ci/run).
 */
const root = path.join(__dirname, '..');
const compose = fs.readFileSync(path.join(root, 'compose.yaml'), 'utf8');

/** The `KEY: value` lines of the shared service environment (the `x-lms-env` anchor), `${…}` resolved. */
function serviceEnvironment(given: Record<string, string>): Record<string, string> {
  const block = /^x-lms-env: &lms-env\n((?:[ \t]+.*\n)+)/m.exec(compose)?.[1];
  if (!block) throw new Error('compose.yaml has no x-lms-env block');
  const env: Record<string, string> = {};
  for (const line of block.split('\n')) {
    const m = /^\s+([A-Z][A-Z0-9_]*):\s*(.*)$/.exec(line);
    if (!m) continue;
    env[m[1]] = m[2]
      .replace(/^"(.*)"$/, '$1')
      .replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_all, name: string, op?: string, arg?: string) => {
        if (name in given) return given[name];
        if (op === '-') return arg ?? '';
        throw new Error(`compose.yaml needs ${name}`);
      });
  }
  return env;
}

describe('compose.yaml', () => {
  const required = { MARIADB_PASSWORD: 'db-password', LMS_SECRET_KEY: 'k'.repeat(40), MINIO_ROOT_PASSWORD: 'minio-password' };

  it('gives the service only variables it reads, with values it accepts', () => {
    const env = serviceEnvironment(required);
    const config = loadConfig(env) as Record<string, unknown>;
    const unread = Object.keys(env).filter((k) => env[k] !== '' && !(k in config));
    expect(unread).toEqual([]);
    expect(config).toMatchObject({ FILES_STORAGE: 's3', S3_FORCE_PATH_STYLE: 'true', WEBHOOK_DISPATCHER: 'off', REDIS_URL: 'redis://redis:6379' });
    expect(String(config.DATABASE_URL)).toMatch(/^mysql:\/\/lms:db-password@mariadb:3306\/lms$/);
  });

  it('refuses to start without its secrets instead of using defaults', () => {
    for (const name of Object.keys(required)) {
      const { [name as keyof typeof required]: _left, ...rest } = required;
      expect(() => serviceEnvironment(rest)).toThrow(name);
    }
  });
});

describe('Dockerfile', () => {
  const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
  const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));

  it('runs as a non-root user with production dependencies only, and checks readiness', () => {
    expect(finalStage).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    expect(finalStage).toMatch(/HEALTHCHECK[\s\S]*\/health\/ready/);
    // The server must listen beyond the container's loopback.
    expect(loadConfig({ HOST: /HOST=(\S+)/.exec(finalStage)?.[1] }).HOST).toBe('0.0.0.0');
  });
});

describe('docs/DEPLOYMENT.md, one container', () => {
  const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
  const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const doc = fs.readFileSync(path.join(root, 'docs', 'DEPLOYMENT.md'), 'utf8');
  const quickStart = doc.slice(doc.indexOf('## One container'), doc.indexOf('## Scale-out topology'));

  it('mounts the volume where the image keeps its SQLite file and uploads', () => {
    const volume = /^VOLUME \["([^"]+)"\]$/m.exec(finalStage)?.[1];
    expect(volume).toBe('/app/data');
    const config = loadConfig({ DATABASE_URL: /DATABASE_URL=(\S+)/.exec(finalStage)?.[1], FILES_DIR: /FILES_DIR=(\S+)/.exec(finalStage)?.[1] });
    expect(config.DATABASE_URL).toBe(`sqlite:${volume}/lms.sqlite`);
    expect(config.FILES_DIR.startsWith(`${volume}/`)).toBe(true);
    const mounts = [...quickStart.matchAll(/-v [\w.-]+:(\S+)/g)].map((m) => m[1]);
    expect(mounts.length).toBeGreaterThan(0);
    for (const target of mounts) expect(target).toBe(volume);
  });

  it('runs compiled files and CLI commands that exist', () => {
    const { USAGE } = require('../src/app/cli') as { USAGE: string };
    const runs = [...quickStart.matchAll(/node dist\/(\S+)\.js(?: ([a-z-]+))?/g)];
    expect(runs.length).toBeGreaterThan(0);
    for (const [, file, command] of runs) {
      expect(fs.existsSync(path.join(root, `${file}.ts`))).toBe(true);
      if (command) expect(USAGE).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
    expect(quickStart).toContain('issue-token --user admin');
  });
});
