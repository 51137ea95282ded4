import type { Runtime } from '../request/runtime';
import { ADMIN_LOGIN, type Installation } from '../auth/installation';
import type { Config } from '../config';
import { dbKind } from '../db/data-source';
import { closeFileStore } from '../storage';

/** Where a command writes: process.stdout in the real CLI, a buffer in tests. */
export interface CliOutput {
  write(text: string): unknown;
  /** A terminal (process.stdout.isTTY): progress lines are drawn only there (src/cli/progress.ts). */
  isTTY?: boolean;
}

/** A refusal the operator should read: printed without a stack, exit code 1. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** An open application (database migrated, installation rows present, token key known). */
export interface CliSession {
  config: Config;
  app: Runtime;
  installation: Installation;
  /** Set once the admin token generated on this run has been shown, so it is shown only once. */
  adminTokenShown?: boolean;
}

export async function closeSession(session: CliSession): Promise<void> {
  closeFileStore(session.config);
  await session.app.pubsub.close();
  if (session.app.ds.isInitialized) await session.app.ds.destroy();
}

export function println(out: CliOutput, text = ''): void {
  out.write(`${text}\n`);
}

/**
 * When this run installed an empty database, prepareApp generated the site admin's token; `npm start`
 * will not print it later (the installation exists by then), so the CLI has to show it now.
 */
export function showGeneratedAdminToken(session: CliSession, out: CliOutput): void {
  const token = session.installation.generatedAdminToken;
  if (!token || session.adminTokenShown) return;
  session.adminTokenShown = true;
  println(out, '================================================================');
  println(out, ` This run installed the database. Site admin (login "${ADMIN_LOGIN}") access token,`);
  println(out, ' shown only this once (npm start will not print it again; keep it safe):');
  println(out, ` ${token}`);
  println(out, '================================================================');
}

/** A fixed-width text table; the last column is not padded. */
export function formatTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const render = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [render(headers), render(widths.map((w) => '-'.repeat(w))), ...rows.map(render)].join('\n');
}

/** The database a URL names, without credentials (MySQL URLs may carry a password). */
export function describeDatabase(url: string): string {
  if (dbKind(url) === 'sqlite') return url;
  try {
    const u = new URL(url);
    return `mysql://${u.host}${u.pathname}`;
  } catch {
    return 'mysql database';
  }
}

/** The base URL a client would use: PUBLIC_URL when configured, else the local listener. */
export function serverBaseUrl(config: Config): string {
  if (config.PUBLIC_URL) return new URL(config.PUBLIC_URL).origin;
  const host = ['0.0.0.0', '::', ''].includes(config.HOST) ? '127.0.0.1' : config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  return `http://${host}:${config.PORT}`;
}
