import { MessageAttributeValue, SendMessageBatchCommand, SendMessageBatchRequestEntry, SQSClient } from '@aws-sdk/client-sqs';
import type { Config } from '../config';
import { allowedQueueAccounts, queueAccountProblem } from './subscriptions.validator';
import { DeliveryOutcome, DeliveryRequest, fail, networkErrorClass, Transport } from './transports';

/** SQS takes at most 10 entries per SendMessageBatch. */
export const SQS_BATCH_ENTRIES = 10;
/** And at most this many bytes of bodies and attributes in one call (AWS's older, smaller limit, to be safe). */
const SQS_BATCH_BYTES = 256 * 1024;

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

interface Pending {
  req: DeliveryRequest;
  entry: SendMessageBatchRequestEntry;
  bytes: number;
  resolve: (o: DeliveryOutcome) => void;
}

/**
 * SQS: the same JSON document to the subscription's queue URL, with the subscription, message and
 * event named in message attributes. With SQS_ENDPOINT every call goes to that (operator-trusted)
 * endpoint; otherwise to AWS's regional endpoint for the queue's region — never to the host written in
 * a subscriber's queue URL — and only to queues of the accounts SQS_ALLOWED_ACCOUNT_IDS lists, checked
 * again here though subscriptions are checked when made: a row written before the list changed, or
 * by anything but the API, is not sent with the service's credentials either.
 *
 * Messages go in SendMessageBatch calls of up to 10: sends to one queue made in the same turn of the
 * event loop (a claim launches its messages together) are gathered, so a burst costs a tenth of the
 * calls. Each entry has its own outcome: SQS may accept some entries of a call and refuse others
 * (`Failed`), and only the refused ones count as failed attempts and are retried.
 */
export class SqsTransport implements Transport {
  private readonly clients = new Map<string, SQSClient>();
  /** Sends waiting for the end of this turn, by region and queue URL. */
  private readonly waiting = new Map<string, { region: string; queueUrl: string; items: Pending[] }>();
  private flushScheduled = false;
  private readonly allowedAccounts: ReadonlySet<string>;

  constructor(
    private readonly config: Pick<Config, 'SQS_ENDPOINT' | 'SQS_REGION' | 'SQS_ACCESS_KEY_ID' | 'SQS_SECRET_ACCESS_KEY' | 'SQS_ALLOWED_ACCOUNT_IDS'>,
    private readonly timeoutMs: number,
  ) {
    this.allowedAccounts = allowedQueueAccounts(config.SQS_ALLOWED_ACCOUNT_IDS);
  }

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

  send(req: DeliveryRequest): Promise<DeliveryOutcome> {
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return Promise.resolve(fail('invalid queue URL', 'invalid_destination'));
    }
    if (url.protocol !== 'https:' && !this.config.SQS_ENDPOINT) return Promise.resolve(fail('queue URLs must be https', 'invalid_destination'));
    const refused = queueAccountProblem(req.url, this.allowedAccounts);
    if (refused) return Promise.resolve(fail(`not sent: the queue URL ${refused} (SQS_ALLOWED_ACCOUNT_IDS)`, 'refused_destination'));
    if (req.signal.aborted) return Promise.resolve(fail('delivery abandoned (dispatcher stopping)', 'abandoned'));
    const region = queueRegion(req.url) ?? this.config.SQS_REGION;
    const attr = (v: string): MessageAttributeValue => ({ DataType: 'String', StringValue: v });
    const attributes: Record<string, MessageAttributeValue> = { subscription_id: attr(req.subscriptionId), message_id: attr(req.messageId), event_name: attr(req.eventName) };
    if (req.traceparent) attributes.traceparent = attr(req.traceparent);
    const bytes = Buffer.byteLength(req.body) + req.subscriptionId.length + req.messageId.length + req.eventName.length + (req.traceparent?.length ?? 0) + 80;
    return new Promise<DeliveryOutcome>((resolve) => {
      const key = `${region} ${req.url}`;
      let queue = this.waiting.get(key);
      if (!queue) this.waiting.set(key, (queue = { region, queueUrl: req.url, items: [] }));
      // Entry ids only need to be unique within one call; they are set when the call is made up.
      queue.items.push({ req, entry: { Id: '', MessageBody: req.body, MessageAttributes: attributes }, bytes, resolve });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Sends what was gathered this turn: per queue, calls of up to 10 entries and SQS_BATCH_BYTES. */
  private flush(): void {
    this.flushScheduled = false;
    const queues = [...this.waiting.values()];
    this.waiting.clear();
    for (const q of queues) {
      let call: Pending[] = [];
      let bytes = 0;
      for (const p of q.items) {
        if (p.req.signal.aborted) {
          p.resolve(fail('delivery abandoned (dispatcher stopping)', 'abandoned'));
          continue;
        }
        if (call.length && (call.length === SQS_BATCH_ENTRIES || bytes + p.bytes > SQS_BATCH_BYTES)) {
          void this.sendBatch(q.region, q.queueUrl, call);
          call = [];
          bytes = 0;
        }
        call.push(p);
        bytes += p.bytes;
      }
      if (call.length) void this.sendBatch(q.region, q.queueUrl, call);
    }
  }

  private async sendBatch(region: string, queueUrl: string, call: Pending[]): Promise<void> {
    call.forEach((p, i) => (p.entry.Id = `m${i}`));
    const deadline = AbortSignal.timeout(this.timeoutMs);
    // A stopping dispatcher aborts every delivery of its own at once, so the call ends when the first does.
    const abortSignal = AbortSignal.any([deadline, ...call.map((p) => p.req.signal)]);
    try {
      const res = await this.client(region).send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: call.map((p) => p.entry) }), { abortSignal });
      const refused = new Map((res.Failed ?? []).map((f) => [f.Id, f]));
      const accepted = new Set((res.Successful ?? []).map((s) => s.Id));
      for (const p of call) {
        const f = refused.get(p.entry.Id);
        if (f) p.resolve(fail(`${f.Code ?? 'Failed'}: ${f.Message ?? 'refused by SQS'}`, 'transport'));
        else if (accepted.has(p.entry.Id)) p.resolve({ ok: true, statusCode: null, error: null, errorClass: null });
        else p.resolve(fail('SQS answered neither success nor failure for this entry', 'transport'));
      }
    } catch (e) {
      let outcome: DeliveryOutcome;
      if (deadline.aborted) outcome = fail(`timed out after ${this.timeoutMs} ms`, 'timeout');
      else if (abortSignal.aborted) outcome = fail('delivery abandoned (dispatcher stopping)', 'abandoned');
      else {
        const err = e as Error & { $metadata?: { httpStatusCode?: number }; code?: string };
        const statusCode = err.$metadata?.httpStatusCode ?? null;
        outcome = fail(`${err.name}: ${err.message}`, statusCode == null && err.code ? networkErrorClass(err.code) : 'transport', statusCode);
      }
      for (const p of call) p.resolve(outcome);
    }
  }

  close(): void {
    for (const c of this.clients.values()) c.destroy();
    this.clients.clear();
  }
}
