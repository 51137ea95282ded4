import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Client } from 'graphql-ws';
import { DataSource } from 'typeorm';
import { appDataSourceOptions } from '../../src/app/database';
import { Api } from './api';
import { startServiceProcess, type ServiceProcess } from './process';
import type { TestServer } from './server';
import { waitFor } from './webhooks';

/**
 * Multi-process topologies (test/topology.test.ts, test/cluster.process.test.ts): server instances and
 * `cli dispatch` workers as real processes of the compiled service (`npm test` builds first), sharing
 * one database.
 */
const CLI = path.join(__dirname, '..', '..', 'dist', 'src', 'app', 'cli.js');

export interface Instance extends ServiceProcess {
  admin: Api;
  as(token: string | null): Api;
  /** Structured log lines (JSON) printed so far. */
  logLines(): Record<string, unknown>[];
  /** Signals the process and resolves with its exit code (null when a signal ended it). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the compiled service; with WEB_CONCURRENCY > 1 it resolves once the primary reports every worker listening. */
export async function startInstance(env: Record<string, string>, adminToken: string): Promise<Instance> {
  const svc = await startServiceProcess({ ...env, LMS_ADMIN_TOKEN: adminToken });
  const logLines = () =>
    svc
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  if (Number(env.WEB_CONCURRENCY ?? 1) > 1) {
    await waitFor('every worker listening', () => svc.child.exitCode !== null || logLines().some((l) => l.msg === 'listening' && l.workers !== undefined));
  }
  if (svc.child.exitCode !== null) throw new Error(`instance exited at start: ${svc.stderr() || svc.stdout()}`);
  return {
    ...svc,
    admin: new Api(svc.url, adminToken),
    as: (token) => new Api(svc.url, token),
    logLines,
    async stop(signal = 'SIGTERM') {
      if (svc.child.exitCode === null && svc.child.signalCode === null) svc.child.kill(signal);
      return svc.exited;
    },
  };
}

export interface CliWorker {
  child: ChildProcess;
  exited: Promise<number | null>;
  output(): string;
}

/** `cli dispatch`: a webhook delivery worker process. */
export function startDispatchWorker(env: Record<string, string>): CliWorker {
  let output = '';
  const child = spawn(process.execPath, [CLI, 'dispatch'], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  return { child, exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))), output: () => output };
}

export interface SharedDatabase {
  ds: DataSource;
  /**
   * The shape of a TestServer that the support helpers read (World: admin/as; toolProxy and
   * subscription: app.ds/app.tokenKey), for rows the API cannot create (tool proxies, webhook subscriptions)
   * and for worlds built through one instance.
   */
  serverFor(instance: Instance): TestServer;
  close(): Promise<void>;
}

/** The test's own connection to the database the instances share (migrated: by them, or a template's copy on MariaDB); `tokenKey` is their LMS_SECRET_KEY. */
export async function sharedDatabase(url: string, tokenKey: string): Promise<SharedDatabase> {
  const flavor = url.startsWith('mysql://') ? 'mariadb' : undefined;
  const ds = new DataSource(appDataSourceOptions(url, undefined, flavor));
  await ds.initialize();
  return {
    ds,
    serverFor: (instance) => ({ url: instance.url, admin: instance.admin, as: instance.as, app: { ds, tokenKey } }) as unknown as TestServer,
    close: () => ds.destroy(),
  };
}

/** Events one subscription has received so far. */
export interface Feed {
  events: any[];
  errors: unknown[];
  close(): void;
}

export function collect(client: Client, query: string, variables: Record<string, unknown> = {}): Feed {
  const events: any[] = [];
  const errors: unknown[] = [];
  const close = client.subscribe({ query, variables }, { next: (r) => (r.errors ? errors.push(...r.errors) : events.push(r.data)), error: (e) => errors.push(e), complete: () => undefined });
  return { events, errors, close };
}

/**
 * Repeats `write` until every feed has received an event: a subscription is set up asynchronously
 * after the socket opens, and nothing outside the server says when it is (no fixed pause is long
 * enough on a loaded machine). Gives up after `attempts`.
 */
export async function untilEveryFeedHears(feeds: Feed[], write: () => Promise<unknown>, attempts = 20): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    await write();
    const deadline = Date.now() + 1_000;
    while (Date.now() < deadline && feeds.some((f) => f.events.length === 0)) await new Promise((r) => setTimeout(r, 25));
    if (feeds.every((f) => f.events.length > 0)) return;
  }
  throw new Error(`${feeds.filter((f) => f.events.length === 0).length} of ${feeds.length} subscriptions heard nothing (errors: ${JSON.stringify(feeds.flatMap((f) => f.errors))})`);
}
