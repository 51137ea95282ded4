import fs from 'node:fs';
import https from 'node:https';
import { isIP, LookupFunction } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import { MessageAttributeValue, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Config } from '../config';
import { DestinationGuard, RefusedDestination, ResolvedAddress } from './destination-guard';
import { DeliverySigner, SIGNATURE_HEADER } from './signing-keys';

/** One attempt to hand one message to its subscriber. */
export interface DeliveryRequest {
  messageId: string;
  subscriptionId: string;
  eventName: string;
  /** 1 for the first attempt. */
  attempt: number;
  url: string;
  body: string;
  signal: AbortSignal;
}

export interface DeliveryOutcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
}

export interface Transport {
  send(req: DeliveryRequest): Promise<DeliveryOutcome>;
  close(): void;
}

const fail = (error: string, statusCode: number | null = null): DeliveryOutcome => ({ ok: false, statusCode, error: error.slice(0, 1000) });

/** A lookup that answers with addresses already resolved and checked (no second DNS query). */
function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return ((_host: string, options: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (options?.all) cb(null, addresses);
    else cb(null, addresses[0].address, addresses[0].family);
  }) as unknown as LookupFunction;
}

/**
 * HTTPS: `POST` of the JSON document with Content-Type application/json, the subscription and message
 * named in headers, and a signature (X-Webhook-Signature, see signing-keys.ts). Only https URLs;
 * redirects are not followed (a 3xx is a failure); the whole exchange is bounded by the timeout;
 * success is any 2xx.
 */
export class HttpsTransport implements Transport {
  private readonly agent: https.Agent;

  constructor(
    private readonly guard: DestinationGuard,
    private readonly signer: DeliverySigner,
    private readonly timeoutMs: number,
    caFile?: string,
  ) {
    const extra = caFile ? fs.readFileSync(caFile, 'utf8') : null;
    // One secure context for every connection: building one per connection (parsing every root
    // certificate again) costs tens of milliseconds per handshake.
    const secureContext = extra ? createSecureContext({ ca: [...rootCertificates, extra] }) : undefined;
    this.agent = new https.Agent({ keepAlive: true, maxSockets: 32, secureContext });
  }

  async send(req: DeliveryRequest): Promise<DeliveryOutcome> {
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return fail('invalid destination URL');
    }
    if (url.protocol !== 'https:') return fail(`only https destinations are delivered to (got ${url.protocol})`);
    if (url.username || url.password) return fail('destination URLs may not carry credentials');
    let addresses: ResolvedAddress[];
    try {
      addresses = await this.guard.resolve(url.hostname);
    } catch (e) {
      return fail(e instanceof RefusedDestination ? e.message : `cannot resolve ${url.hostname}`);
    }
    const signature = await this.signer.sign({
      subscriptionId: req.subscriptionId,
      messageId: req.messageId,
      eventName: req.eventName,
      attempt: req.attempt,
      destination: req.url,
      body: req.body,
    });
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    // The timeout bounds the exchange with the receiver: connect, send, response.
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const signal = AbortSignal.any([req.signal, deadline]);
    return new Promise<DeliveryOutcome>((resolve) => {
      const r = https.request(
        {
          protocol: 'https:',
          host,
          port: url.port || 443,
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          agent: this.agent,
          lookup: pinnedLookup(addresses),
          servername: isIP(host) ? undefined : host,
          signal,
          headers: {
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(req.body),
            'User-Agent': 'canvas-lms-webhooks/1.0',
            'X-Subscription-Id': req.subscriptionId,
            'X-Message-Id': req.messageId,
            'X-Event-Name': req.eventName,
            'X-Delivery-Attempt': String(req.attempt),
            [SIGNATURE_HEADER]: signature,
          },
        },
        (res) => {
          const status = res.statusCode ?? 0;
          // The response body is read (so the connection can be reused) and ignored.
          res.on('data', () => undefined);
          res.on('error', () => resolve(fail('response interrupted', status)));
          res.on('end', () => {
            if (status >= 200 && status < 300) resolve({ ok: true, statusCode: status, error: null });
            else if (status >= 300 && status < 400) resolve(fail(`HTTP ${status}: redirects are not followed`, status));
            else resolve(fail(`HTTP ${status}`, status));
          });
        },
      );
      r.on('error', (e: NodeJS.ErrnoException) => {
        if (deadline.aborted) resolve(fail(`timed out after ${this.timeoutMs} ms`));
        else if (req.signal.aborted) resolve(fail('delivery abandoned (dispatcher stopping)'));
        else resolve(fail(e.code ? `${e.code}: ${e.message}` : e.message));
      });
      r.end(req.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The region of an AWS queue URL (https://sqs.<region>.amazonaws.com/… or https://<region>.queue.amazonaws.com/…). */
export function queueRegion(queueUrl: string): string | null {
  try {
    const host = new URL(queueUrl).hostname;
    const m = /^sqs\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/.exec(host) ?? /^([a-z0-9-]+)\.queue\.amazonaws\.com(\.cn)?$/.exec(host);
    return m ? m[1] : null;
  } catch {
    return null;
  }
}

/**
 * SQS: SendMessage of the same JSON document to the subscription's queue URL, with the
 * subscription, message and event named in message attributes. With SQS_ENDPOINT every call goes to
 * that (operator-trusted) endpoint; otherwise to AWS's regional endpoint for the queue's region —
 * never to the host written in a subscriber's queue URL.
 */
export class SqsTransport implements Transport {
  private readonly clients = new Map<string, SQSClient>();

  constructor(
    private readonly config: Pick<Config, 'SQS_ENDPOINT' | 'SQS_REGION' | 'SQS_ACCESS_KEY_ID' | 'SQS_SECRET_ACCESS_KEY'>,
    private readonly timeoutMs: number,
  ) {}

  private client(region: string): SQSClient {
    let c = this.clients.get(region);
    if (!c) {
      const { SQS_ENDPOINT, SQS_ACCESS_KEY_ID, SQS_SECRET_ACCESS_KEY } = this.config;
      c = new SQSClient({
        region,
        endpoint: SQS_ENDPOINT,
        useQueueUrlAsEndpoint: false,
        maxAttempts: 1,
        credentials: SQS_ACCESS_KEY_ID && SQS_SECRET_ACCESS_KEY ? { accessKeyId: SQS_ACCESS_KEY_ID, secretAccessKey: SQS_SECRET_ACCESS_KEY } : undefined,
      });
      this.clients.set(region, c);
    }
    return c;
  }

  async send(req: DeliveryRequest): Promise<DeliveryOutcome> {
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return fail('invalid queue URL');
    }
    if (url.protocol !== 'https:' && !this.config.SQS_ENDPOINT) return fail('queue URLs must be https');
    const region = queueRegion(req.url) ?? this.config.SQS_REGION;
    const attr = (v: string): MessageAttributeValue => ({ DataType: 'String', StringValue: v });
    const deadline = AbortSignal.timeout(this.timeoutMs);
    try {
      await this.client(region).send(
        new SendMessageCommand({
          QueueUrl: req.url,
          MessageBody: req.body,
          MessageAttributes: { subscription_id: attr(req.subscriptionId), message_id: attr(req.messageId), event_name: attr(req.eventName) },
        }),
        { abortSignal: AbortSignal.any([req.signal, deadline]) },
      );
      return { ok: true, statusCode: null, error: null };
    } catch (e) {
      if (deadline.aborted) return fail(`timed out after ${this.timeoutMs} ms`);
      if (req.signal.aborted) return fail('delivery abandoned (dispatcher stopping)');
      const err = e as Error & { $metadata?: { httpStatusCode?: number } };
      return fail(`${err.name}: ${err.message}`, err.$metadata?.httpStatusCode ?? null);
    }
  }

  close(): void {
    for (const c of this.clients.values()) c.destroy();
    this.clients.clear();
  }
}
