import fs from 'node:fs';
import https from 'node:https';
import { isIP, LookupFunction } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import { DestinationGuard, RefusedDestination, ResolvedAddress } from './destination-guard';
import { parseRetryAfter, SLOW_DOWN_STATUSES } from './retry-timing';
import { DeliverySigner, SIGNATURE_HEADER } from './signing-keys';
import type { StandardWebhookSigner } from './standard-signatures';
import { AttemptErrorClass, RESPONSE_BODY_BYTES } from './webhook-attempt.entity';

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
  /** HMAC keys of the subscription's Standard Webhooks secrets (v1 signatures); none without a secret. */
  hmacKeys?: Buffer[];
  /** The W3C trace context to pass on (HTTPS: a `traceparent` header; SQS: a message attribute). */
  traceparent?: string | null;
}

export interface DeliveryOutcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  /** Why it failed, in a word (null on success). */
  errorClass: AttemptErrorClass | null;
  /** The first RESPONSE_BODY_BYTES of the receiver's answer (HTTPS only). */
  responseBody?: string | null;
  /** How long a 429 or 503 asked us to wait (its Retry-After), in milliseconds. */
  retryAfterMs?: number | null;
}

export interface Transport {
  send(req: DeliveryRequest): Promise<DeliveryOutcome>;
  close(): void;
}

/** A failed attempt's outcome (its error cut to 1,000 characters). */
export const fail = (error: string, errorClass: AttemptErrorClass, statusCode: number | null = null, more: Partial<DeliveryOutcome> = {}): DeliveryOutcome => ({
  ok: false,
  statusCode,
  error: error.slice(0, 1000),
  errorClass,
  ...more,
});

/** The class of a socket-level error, from its code. */
export function networkErrorClass(code: string | undefined): AttemptErrorClass {
  if (!code) return 'connection';
  if (code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT') return 'timeout';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns';
  if (/^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|ERR_OSSL_)/.test(code)) return 'tls';
  return 'connection';
}

/** A lookup that answers with addresses already resolved and checked (no second DNS query). */
function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return ((_host: string, options: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (options?.all) cb(null, addresses);
    else cb(null, addresses[0].address, addresses[0].family);
  }) as unknown as LookupFunction;
}

/**
 * HTTPS: `POST` of the JSON document with Content-Type application/json, the subscription and message
 * named in headers, Canvas's signature (X-Webhook-Signature, see signing-keys.ts) and the Standard
 * Webhooks headers (webhook-id, webhook-timestamp, webhook-signature; standard-signatures.ts). Only https URLs;
 * redirects are not followed (a 3xx is a failure); the whole exchange is bounded by the timeout;
 * success is any 2xx.
 */
export class HttpsTransport implements Transport {
  private readonly agent: https.Agent;

  constructor(
    private readonly guard: DestinationGuard,
    private readonly signer: DeliverySigner,
    private readonly standard: StandardWebhookSigner,
    private readonly timeoutMs: number,
    caFile?: string,
    /** Connections kept per destination: as many as deliveries may be in flight to one. */
    maxSockets = 32,
  ) {
    const extra = caFile ? fs.readFileSync(caFile, 'utf8') : null;
    // One secure context for every connection: building one per connection (parsing every root
    // certificate again) costs tens of milliseconds per handshake.
    const secureContext = extra ? createSecureContext({ ca: [...rootCertificates, extra] }) : undefined;
    // Keep-alive: connections to a destination are reused (a TLS handshake costs more CPU than a delivery).
    this.agent = new https.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: 'lifo', secureContext });
  }

  async send(req: DeliveryRequest): Promise<DeliveryOutcome> {
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return fail('invalid destination URL', 'invalid_destination');
    }
    if (url.protocol !== 'https:') return fail(`only https destinations are delivered to (got ${url.protocol})`, 'invalid_destination');
    if (url.username || url.password) return fail('destination URLs may not carry credentials', 'invalid_destination');
    let addresses: ResolvedAddress[];
    try {
      addresses = await this.guard.resolve(url.hostname);
    } catch (e) {
      return e instanceof RefusedDestination ? fail(e.message, 'refused_destination') : fail(`cannot resolve ${url.hostname}`, 'dns');
    }
    // Canvas's JWT (X-Webhook-Signature) and the Standard Webhooks headers, on every attempt.
    const [signature, standard] = await Promise.all([
      this.signer.sign({
        subscriptionId: req.subscriptionId,
        messageId: req.messageId,
        eventName: req.eventName,
        attempt: req.attempt,
        destination: req.url,
        body: req.body,
      }),
      this.standard.headers(req.messageId, req.body, req.hmacKeys ?? []),
    ]);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (req.signal.aborted) return fail('delivery abandoned (dispatcher stopping)', 'abandoned');
    return new Promise<DeliveryOutcome>((settle) => {
      // The timeout bounds the exchange with the receiver: connect, send, response. A timer and one
      // abort listener, not AbortSignal.timeout + AbortSignal.any + the request's `signal` option:
      // those three cost the event loop about a twentieth of a burst's time.
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        r.destroy(new Error('timed out'));
      }, this.timeoutMs);
      const onAbort = () => r.destroy(new Error('abandoned'));
      req.signal.addEventListener('abort', onAbort, { once: true });
      const resolve = (o: DeliveryOutcome) => {
        clearTimeout(timer);
        req.signal.removeEventListener('abort', onAbort);
        settle(o);
      };
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
          headers: {
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(req.body),
            'User-Agent': 'canvas-lms-webhooks/1.0',
            'X-Subscription-Id': req.subscriptionId,
            'X-Message-Id': req.messageId,
            'X-Event-Name': req.eventName,
            'X-Delivery-Attempt': String(req.attempt),
            [SIGNATURE_HEADER]: signature,
            ...standard,
            ...(req.traceparent ? { traceparent: req.traceparent } : {}),
          },
        },
        (res) => {
          const status = res.statusCode ?? 0;
          // The whole body is read (so the connection can be reused); its first 1 KB is kept for the
          // attempt log.
          const kept: Buffer[] = [];
          let keptBytes = 0;
          res.on('data', (chunk: Buffer) => {
            if (keptBytes >= RESPONSE_BODY_BYTES) return;
            const part = chunk.subarray(0, RESPONSE_BODY_BYTES - keptBytes);
            kept.push(part);
            keptBytes += part.length;
          });
          const responseBody = () => (keptBytes ? Buffer.concat(kept).toString('utf8') : null);
          res.on('error', () =>
            resolve(timedOut ? fail(`timed out after ${this.timeoutMs} ms`, 'timeout', status) : fail('response interrupted', 'connection', status, { responseBody: responseBody() })),
          );
          res.on('end', () => {
            const more = { responseBody: responseBody() };
            if (status >= 200 && status < 300) resolve({ ok: true, statusCode: status, error: null, errorClass: null, ...more });
            else if (status >= 300 && status < 400) resolve(fail(`HTTP ${status}: redirects are not followed`, 'redirect', status, more));
            else {
              const retryAfterMs = SLOW_DOWN_STATUSES.has(status) ? parseRetryAfter(res.headers['retry-after']) : null;
              resolve(fail(`HTTP ${status}`, 'http_status', status, { ...more, retryAfterMs }));
            }
          });
        },
      );
      r.on('error', (e: NodeJS.ErrnoException) => {
        if (timedOut) resolve(fail(`timed out after ${this.timeoutMs} ms`, 'timeout'));
        else if (req.signal.aborted) resolve(fail('delivery abandoned (dispatcher stopping)', 'abandoned'));
        else resolve(fail(e.code ? `${e.code}: ${e.message}` : e.message, networkErrorClass(e.code)));
      });
      r.end(req.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
