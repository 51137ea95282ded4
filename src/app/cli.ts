import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { Config, ConfigError, loadConfig } from '../config';
import { CliError, CliOutput, CliSession, closeSession, println, serverBaseUrl, showGeneratedAdminToken } from '../cli/common';
import { prepareApp } from './bootstrap';
import { stopTracing } from './tracing';
import { dataModel } from './database';
import { DemoResult, seedDemo } from '../cli/demo';
import { DEMO_WORLD, type DemoExtension, type DemoWorldDefinition } from '../courses/demo-world';
import { DEMO_EXTENSIONS } from './demos';
import { dispatch, replayWebhooks, rotateWebhookKey } from '../cli/dispatch';
import { migrateFiles } from '../cli/files';
import { migrate } from '../cli/migrate';
import { createUser, issueToken } from '../cli/users';
import { webhookReceiver } from '../cli/webhook-receiver';
import { DEMO_RECEIVER } from '../webhooks/webhook.demo';

export { CliError, closeSession } from '../cli/common';
export type { CliOutput, CliSession } from '../cli/common';
export { seedDemoWorld } from '../cli/demo';
export { DEMO_EXTENSIONS } from './demos';
export { DEMO_WORLD } from '../courses/demo-world';
export type { DemoResult, DemoRow } from '../cli/demo';
export type { DemoContext, DemoExtension, DemoWorldDefinition, SeededDemoWorld } from '../courses/demo-world';

/** `npm run demo`: the demo world and every area's demo rows (src/app/demos.ts). */
export function demo(session: CliSession, out: CliOutput, def: DemoWorldDefinition = DEMO_WORLD, extensions: DemoExtension[] = DEMO_EXTENSIONS): Promise<DemoResult> {
  return seedDemo(session, out, def, extensions);
}
export { migrate } from '../cli/migrate';
export { migrateFiles } from '../cli/files';
export type { FilesMigrateResult } from '../cli/files';
export { createUser, issueToken } from '../cli/users';
export { receiverCertificate, startWebhookReceiver, webhookReceiver } from '../cli/webhook-receiver';

/** Opens the database through prepareApp: pending migrations run and the installation is ensured. */
export async function openSession(config: Config): Promise<CliSession> {
  const { app, installation } = await prepareApp(config);
  return { config, app, installation };
}

/** Opens a session for one command and always destroys the data source afterwards. */
export async function withSession<T>(config: Config, fn: (session: CliSession) => Promise<T>): Promise<T> {
  const session = await openSession(config);
  try {
    return await fn(session);
  } finally {
    await closeSession(session);
    // The command's spans are sent before the process ends (when tracing is on).
    await stopTracing();
  }
}

export const USAGE = `Operator CLI for the LMS (configuration from the environment, as for \`npm start\`).

Usage: npm run cli -- <command> [options]

Commands:
  migrate                       Run pending database migrations on DATABASE_URL.
  create-user --name <name> --login <login> [--admin]
                                Create a user with a login in the root account
                                (--admin: also a root account admin). Prints {"id":…}.
  issue-token --user <id|login> [--purpose <text>] [--expires-at <ISO 8601>]
                                Issue an access token and print it (shown only once).
  demo                          Seed a demo course with a teacher, students and an
                                observer, and print their logins with fresh tokens.
                                Same as \`npm run demo\`; safe to run again.
  dispatch [--once]             Deliver webhook messages from the outbox until SIGTERM
                                (--once: deliver what is due now, print a summary, exit).
                                Run several for scale-out, the server with
                                WEBHOOK_DISPATCHER=off.
  webhooks replay (--subscription <id> | --tool <id>) --from <ISO 8601> --to <ISO 8601>
                 [--dead-only] [--reactivate]
                                Re-queue the webhook messages of a subscription (or of all
                                subscriptions of a tool proxy) whose event time lies in
                                [from, to), with their original message ids (receivers
                                deduplicate). --dead-only: only dead-lettered ones;
                                --reactivate: also deactivated subscriptions (reactivated).
                                Prints {"requeued":…,"subscriptions":…,"skipped":…}.
  files migrate                 Copy the bytes of stored files from FILES_DIR into the
                                S3 bucket (FILES_STORAGE=s3 and the S3_* settings), under
                                the same keys; safe to run again. Prints the counts.
  rotate-webhook-key            Sign webhook deliveries with new keys from now on, RS256
                                and Ed25519 (the JWKS keeps publishing the previous ones).
                                Prints {"kid":…,"ed25519Kid":…}.
  webhook-receiver [--port 4443] [--host 127.0.0.1] [--service <url>] [--dir <path>]
                                A local HTTPS receiver for trying webhooks (the demo's
                                subscription points at it): prints each message and
                                whether its signature verifies against the JWKS of
                                --service (default: the configured HOST and PORT).
                                Keeps its self-signed certificate in --dir (default
                                ./data/webhook-receiver). Runs until SIGINT/SIGTERM.
  help                          Show this text.

Environment: DATABASE_URL (default sqlite:./data/lms.sqlite), LMS_ADMIN_TOKEN, LMS_SECRET_KEY.
`;

export interface CliIo {
  out: CliOutput;
  err: CliOutput;
  /** Defaults to process.env. */
  env?: NodeJS.ProcessEnv;
}

type Command = (config: Config, io: CliIo) => Promise<unknown>;

/** Parses one command's options strictly; unknown options and stray arguments are refused. */
function options<T extends NonNullable<Parameters<typeof parseArgs>[0]>['options']>(command: string, args: string[], spec: T) {
  try {
    return parseArgs({ args, options: { ...spec, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false }).values;
  } catch (e) {
    throw new CliError(`${command}: ${(e as Error).message}\nRun \`npm run cli -- help\` for usage.`);
  }
}

/** Runs a command that needs the full application (migrated database, installation, token key). */
const inSession =
  (fn: (session: CliSession, io: CliIo) => Promise<unknown>): Command =>
  (config, io) =>
    withSession(config, async (session) => {
      try {
        return await fn(session, io);
      } finally {
        // stderr, so stdout stays just the JSON or token a script may capture (demo prints it on stdout itself).
        showGeneratedAdminToken(session, io.err);
      }
    });

/** Parses argv into a runnable command (or null for help), before anything touches the database. */
function parseCommand(argv: string[]): Command | null {
  const [name, ...rest] = argv;
  switch (name) {
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      return null;
    case 'migrate': {
      if (options(name, rest, {}).help) return null;
      return (config, io) => migrate(config, io.out, dataModel);
    }
    case 'create-user': {
      const v = options(name, rest, { name: { type: 'string' }, login: { type: 'string' }, admin: { type: 'boolean' } });
      if (v.help) return null;
      if (!v.login) throw new CliError('create-user: --login is required, e.g. create-user --name "Jane Doe" --login jane@example.com');
      return inSession((s, io) => createUser(s, { name: v.name as string | undefined, login: v.login as string, admin: Boolean(v.admin) }, io.out));
    }
    case 'issue-token': {
      const v = options(name, rest, { user: { type: 'string' }, purpose: { type: 'string' }, 'expires-at': { type: 'string' } });
      if (v.help) return null;
      if (!v.user) throw new CliError('issue-token: --user is required (a user id or a login).');
      return inSession((s, io) =>
        issueToken(s, { user: v.user as string, purpose: v.purpose as string | undefined, expiresAt: v['expires-at'] as string | undefined }, io.out),
      );
    }
    case 'dispatch': {
      const v = options(name, rest, { once: { type: 'boolean' } });
      if (v.help) return null;
      return inSession((s, io) => dispatch(s, { once: Boolean(v.once) }, io.out));
    }
    case 'webhooks': {
      const [sub, ...args] = rest;
      if (sub !== 'replay') throw new CliError(`webhooks: unknown subcommand${sub ? ` "${sub}"` : ''} (only \`webhooks replay\`).\nRun \`npm run cli -- help\` for usage.`);
      const v = options('webhooks replay', args, {
        subscription: { type: 'string' },
        tool: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        'dead-only': { type: 'boolean' },
        reactivate: { type: 'boolean' },
      });
      if (v.help) return null;
      if (Boolean(v.subscription) === Boolean(v.tool)) throw new CliError('webhooks replay: give --subscription <id> or --tool <id> (one of them).');
      const when = (name: 'from' | 'to') => {
        const raw = v[name] as string | undefined;
        const at = raw && /^\d{4}-\d{2}-\d{2}/.test(raw) ? new Date(raw) : null;
        if (!at || Number.isNaN(at.getTime())) throw new CliError(`webhooks replay: --${name} must be an ISO 8601 time, e.g. 2024-05-01T00:00:00Z.`);
        return at;
      };
      const from = when('from');
      const to = when('to');
      if (from.getTime() >= to.getTime()) throw new CliError('webhooks replay: --to must be later than --from.');
      if (v.tool && !/^\d{1,15}$/.test(v.tool as string)) throw new CliError('webhooks replay: --tool must be a tool proxy id (a number).');
      return inSession((s, io) =>
        replayWebhooks(
          s,
          { subscriptionId: v.subscription as string | undefined, toolProxyId: v.tool ? Number(v.tool) : undefined, from, to, onlyDead: Boolean(v['dead-only']), reactivate: Boolean(v.reactivate) },
          io.out,
        ),
      );
    }
    case 'files': {
      const [sub, ...args] = rest;
      if (sub !== 'migrate') throw new CliError(`files: unknown subcommand${sub ? ` "${sub}"` : ''} (only \`files migrate\`).\nRun \`npm run cli -- help\` for usage.`);
      if (options('files migrate', args, {}).help) return null;
      return inSession((s, io) => migrateFiles(s, io.out, io.err));
    }
    case 'rotate-webhook-key': {
      if (options(name, rest, {}).help) return null;
      return inSession((s, io) => rotateWebhookKey(s, io.out));
    }
    case 'demo': {
      if (options(name, rest, {}).help) return null;
      return inSession((s, io) => demo(s, io.out));
    }
    case 'webhook-receiver': {
      const v = options(name, rest, { port: { type: 'string' }, host: { type: 'string' }, service: { type: 'string' }, dir: { type: 'string' } });
      if (v.help) return null;
      const rawPort = (v.port as string | undefined) ?? String(DEMO_RECEIVER.port);
      if (!/^\d{1,5}$/.test(rawPort) || Number(rawPort) > 65535) throw new CliError(`webhook-receiver: --port must be a port number (got "${rawPort}").`);
      const port = Number(rawPort);
      const host = (v.host as string | undefined)?.trim() || DEMO_RECEIVER.host;
      // No database: the receiver is a stand-in for a tool's endpoint.
      return (config, io) =>
        webhookReceiver({ port, host, service: (v.service as string | undefined) ?? serverBaseUrl(config), dir: (v.dir as string | undefined) ?? DEMO_RECEIVER.dir }, io.out);
    }
    default:
      throw new CliError(`Unknown command "${name}".\n\n${USAGE}`);
  }
}

/** Runs the CLI with the given arguments (without node and script) and returns the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  try {
    const command = parseCommand(argv);
    if (!command) {
      io.out.write(USAGE);
      return 0;
    }
    const config = loadConfig(io.env ?? process.env);
    await command(config, io);
    return 0;
  } catch (e) {
    if (e instanceof CliError) {
      println(io.err, e.message);
      return e.exitCode;
    }
    if (e instanceof ConfigError) {
      println(io.err, e.message);
      return 1;
    }
    println(io.err, `Failed: ${(e as Error)?.message ?? String(e)}`);
    if (process.env.DEBUG) println(io.err, String((e as Error)?.stack ?? ''));
    return 1;
  }
}

if (require.main === module) {
  // `npm run demo | head` closes the pipe early; the work is committed by then, so that is not a failure.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
  });
  void runCli(process.argv.slice(2), { out: process.stdout, err: process.stderr }).then((code) => {
    process.exitCode = code;
  });
}
