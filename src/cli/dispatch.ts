import pino from 'pino';
import { Dispatcher } from '../webhooks/dispatcher';
import { rotateSigningKey } from '../webhooks/signing-keys';
import { rotateEd25519Key } from '../webhooks/standard-signatures';
import { CliOutput, CliSession, println } from './common';

/**
 * `dispatch`: a webhook delivery worker. Several may run against one MySQL/MariaDB database (they
 * claim messages with row locks); run the server with WEBHOOK_DISPATCHER=off to leave delivery to
 * them. Stops on SIGTERM/SIGINT after recording in-flight deliveries. `--once` delivers what is due
 * now and exits.
 */
export async function dispatch(session: CliSession, opts: { once: boolean }, out: CliOutput): Promise<void> {
  const { app, config } = session;
  const log = pino({ level: config.LOG_LEVEL });
  const dispatcher = new Dispatcher({ ds: app.ds, config, tokenKey: app.tokenKey, log });
  if (opts.once) {
    const attempts = await dispatcher.drain();
    await dispatcher.stop();
    println(out, JSON.stringify({ attempts, ...dispatcher.stats }));
    return;
  }
  dispatcher.start();
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log.info({ signal }, 'stopping webhook dispatcher');
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      resolve();
    };
    const onTerm = () => stop('SIGTERM');
    const onInt = () => stop('SIGINT');
    process.on('SIGTERM', onTerm);
    process.on('SIGINT', onInt);
  });
  await dispatcher.stop();
}

/**
 * `rotate-webhook-key`: new deliveries are signed with new keys, RS256 (X-Webhook-Signature) and
 * Ed25519 (webhook-signature v1a); the JWKS keeps the previous ones.
 */
export async function rotateWebhookKey(session: CliSession, out: CliOutput): Promise<void> {
  const kid = await rotateSigningKey(session.app.ds, session.app.tokenKey);
  const ed25519Kid = await rotateEd25519Key(session.app.ds, session.app.tokenKey);
  println(out, JSON.stringify({ kid, ed25519Kid }));
}
