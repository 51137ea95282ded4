import pino from 'pino';
import { Dispatcher } from '../webhooks/dispatcher';
import { replayOutbox, subscriptionsOfTool } from '../webhooks/outbox-replay';
import { WebhookSubscription } from '../webhooks/webhook-subscription.entity';
import { announceOutboxWritten } from '../webhooks/outbox-signal';
import { rotateSigningKey } from '../webhooks/signing-keys';
import { rotateEd25519Key } from '../webhooks/standard-signatures';
import { CliError, CliOutput, CliSession, println } from './common';
import { progress } from './progress';

/**
 * `dispatch`: a webhook delivery worker. Several may run against one MySQL/MariaDB database (they
 * claim messages with row locks); run the server with WEBHOOK_DISPATCHER=off to leave delivery to
 * them. Stops on SIGTERM/SIGINT after recording in-flight deliveries. `--once` delivers what is due
 * now and exits.
 */
export async function dispatch(session: CliSession, opts: { once: boolean }, out: CliOutput): Promise<void> {
  const { app, config } = session;
  const log = pino({ level: config.LOG_LEVEL });
  const dispatcher = new Dispatcher({ ds: app.ds, config, tokenKey: app.tokenKey, log, pubsub: app.pubsub });
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

/**
 * `webhooks replay`: re-queues a subscription's (or a tool's) messages whose event time lies in
 * [from, to), with their original message ids (src/webhooks/outbox-replay.ts). The operator's
 * counterpart of GraphQL replayWebhookMessages, without its permission checks.
 */
export async function replayWebhooks(
  session: CliSession,
  opts: { subscriptionId?: string; toolProxyId?: number; from: Date; to: Date; onlyDead: boolean; reactivate: boolean },
  out: CliOutput,
): Promise<void> {
  const { app, config } = session;
  let subs: WebhookSubscription[];
  if (opts.subscriptionId) {
    const sub = /^[\w-]{1,36}$/.test(opts.subscriptionId) ? await app.ds.getRepository(WebhookSubscription).findOneBy({ id: opts.subscriptionId }) : null;
    if (!sub) throw new CliError(`webhooks replay: no subscription ${JSON.stringify(opts.subscriptionId)}.`);
    subs = [sub];
  } else {
    subs = await subscriptionsOfTool(app.ds, opts.toolProxyId!);
    if (!subs.length) throw new CliError(`webhooks replay: tool proxy ${opts.toolProxyId} has no subscriptions.`);
  }
  const bar = progress(out, 'Replaying: subscriptions');
  const result = await replayOutbox(app.ds, subs, {
    ...opts,
    retryWindowMs: config.WEBHOOK_RETRY_WINDOW_MS,
    onProgress: (r, done) => bar.update(done, subs.length, `(${r.requeued} messages re-queued)`),
  });
  bar.end();
  // Workers on the same Redis claim at once; others at their next poll.
  if (result.requeued) announceOutboxWritten(app.pubsub, result.requeued);
  println(out, JSON.stringify(result));
}
