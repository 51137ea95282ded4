import type { DataSource } from 'typeorm';
import type { Config } from '../config';
import type { OutboxMessage } from './outbox.entity';
import { withSendTime } from './caliper.format';
import type { DeliveryResults } from './delivery-results';
import { DestinationGuard } from './destination-guard';
import type { Claimed } from './outbox-claim';
import { DeliverySigner } from './signing-keys';
import { SqsTransport } from './sqs-transport';
import { StandardWebhookSigner } from './standard-signatures';
import { unwantedReason } from './subscription-match';
import { signingKeysOf } from './subscription-secrets';
import { DeliveryOutcome, HttpsTransport, Transport } from './transports';
import { activeTraceparent, failSpan, tracingOn, withSpan } from '../tracing/tracing';
import type { WebhookSubscription } from './webhook-subscription.entity';

/**
 * One attempt at one claimed message, for the dispatcher: decides whether it may still be sent, sends
 * it through its subscription's transport (HTTPS or SQS) and records the outcome (delivery-results.ts).
 * The dispatcher's loop, claims and slots stay in dispatcher.ts.
 */
export class ClaimedSender {
  private readonly transports: Record<'https' | 'sqs', Transport>;

  constructor(
    ds: DataSource,
    c: Config,
    private readonly tokenKey: string,
    private readonly results: DeliveryResults,
    /** True once the dispatcher is stopped as if it died: outcomes are then not recorded. */
    private readonly abandoned: () => boolean,
  ) {
    this.transports = {
      https: new HttpsTransport(
        new DestinationGuard(c.WEBHOOK_ALLOW_PRIVATE_NETWORKS),
        new DeliverySigner(ds, tokenKey),
        new StandardWebhookSigner(ds, tokenKey),
        c.WEBHOOK_TIMEOUT_MS,
        c.WEBHOOK_CA_FILE,
        c.WEBHOOK_DESTINATION_CONCURRENCY ?? c.WEBHOOK_CONCURRENCY,
      ),
      sqs: new SqsTransport(c, c.WEBHOOK_TIMEOUT_MS),
    };
  }

  /** Sends one claimed message (unless it may no longer be sent) and records the result. */
  async attempt({ message: m, token, subscription: sub, tool, claimedAt, claimTrace }: Claimed, signal: AbortSignal, answered: (o: DeliveryOutcome) => void): Promise<void> {
    if (!sub || sub.state !== 'Active') return this.finish(m, token, 'cancelled', 'subscription deleted');
    if (sub.deactivatedAt) return this.finish(m, token, 'dead', `subscription deactivated: ${sub.deactivationReason ?? ''}`.trim());
    // Deactivated by this dispatcher since the claim (a 410 to a message sent just before this one).
    const deactivated = this.results.deactivatedSince(sub.id, claimedAt);
    if (deactivated) return this.finish(m, token, 'dead', `subscription deactivated: ${deactivated}`);
    // Queued before the tool lost the capability (or the subscription the event type): not sent.
    const unwanted = unwantedReason(sub, tool, m.eventName);
    if (unwanted) return this.finish(m, token, 'cancelled', unwanted);
    const transport = sub.transportType === 'sqs' ? this.transports.sqs : sub.transportType === 'https' ? this.transports.https : null;
    if (!transport) return this.finish(m, token, 'dead', `unknown transport ${sub.transportType}`);
    // Counted when claimed, so an attempt cut short by a dying dispatcher still counts.
    const attempt = m.attempts;
    const startedAt = new Date();
    const started = performance.now();
    const body = m.format === 'caliper' ? JSON.stringify(withSendTime(JSON.parse(m.payload))) : m.payload;
    const send = (): Promise<DeliveryOutcome> =>
      transport.send({
        messageId: m.messageId,
        subscriptionId: sub.id,
        eventName: m.eventName,
        attempt,
        url: sub.transportUrl,
        body,
        signal,
        hmacKeys: sub.transportType === 'https' ? signingKeysOf(this.tokenKey, sub) : undefined,
        // The delivery's own span when tracing here, else the request's as stored: a receiver that traces continues the story.
        traceparent: activeTraceparent() ?? m.traceparent,
      });
    const outcome = tracingOn() ? await tracedDelivery(m, sub, attempt, claimTrace, send) : await send();
    const timing = { startedAt, durationMs: performance.now() - started };
    // A success frees its slot at once (its row is written with the next batch). A failure only once it
    // is recorded: what it decides (a 410's deactivation, a dead letter) must hold before the next claim.
    if (outcome.ok) {
      answered(outcome);
      if (!this.abandoned()) await this.results.success(m, token, sub, timing, outcome);
      return;
    }
    try {
      if (!this.abandoned()) await this.results.failure(m, token, sub, timing, outcome);
    } finally {
      answered(outcome);
    }
  }

  /** Ends a message without an attempt (its subscription is gone, deactivated or no longer wants it). */
  private async finish(m: OutboxMessage, token: string, status: 'cancelled' | 'dead', reason: string): Promise<void> {
    if (this.abandoned()) return;
    await this.results.finish(m, token, status, reason);
  }

  close(): void {
    for (const t of Object.values(this.transports)) t.close();
  }
}

/**
 * A delivery attempt's span: a child of the span that wrote the message (its stored traceparent), so
 * the request that caused the event and its deliveries are one trace; linked to the claim that took
 * it. Destination host, attempt number and the receiver's status, never the URL's path or query.
 */
function tracedDelivery(m: OutboxMessage, sub: WebhookSubscription, attempt: number, claimTrace: string | null | undefined, send: () => Promise<DeliveryOutcome>): Promise<DeliveryOutcome> {
  let host = '';
  try {
    host = new URL(sub.transportUrl).hostname;
  } catch {
    // an invalid URL: the transport reports it
  }
  const attributes = {
    'webhook.transport': sub.transportType,
    'webhook.event_name': m.eventName,
    'webhook.message_id': m.messageId,
    'webhook.subscription_id': sub.id,
    'webhook.attempt': attempt,
    'server.address': host,
  };
  return withSpan(`webhook deliver ${m.eventName}`, { kind: 'producer', parent: m.traceparent, links: [claimTrace], attributes }, async (span) => {
    const outcome = await send();
    if (outcome.statusCode != null) span?.setAttribute('http.response.status_code', outcome.statusCode);
    if (!outcome.ok) failSpan(span, outcome.errorClass ?? 'failed');
    return outcome;
  });
}
