import { eventTypeKey, WebhookEventType } from '../lti/capabilities';

/** What a tool sends under `subscription[…]`, before validation (any field may be missing or odd). */
export interface SubscriptionInput {
  contextId?: string | null;
  contextType?: string | null;
  eventTypes?: string[] | null;
  format?: string | null;
  transportMetadata?: { url?: string | null } | null;
  transportType?: string | null;
}

export const CONTEXT_TYPES = ['assignment', 'course', 'account', 'root_account'] as const;
export type SubscriptionContextType = (typeof CONTEXT_TYPES)[number];
export const FORMATS = ['live-event', 'caliper'] as const;
export const TRANSPORT_TYPES = ['https', 'sqs'] as const;

/** A subscription whose values are all well formed (the context is not resolved yet). */
export interface CheckedSubscription {
  contextType: SubscriptionContextType;
  contextId: string;
  /** As sent, without repeats; `events` holds their canonical keys in the same order. */
  eventTypes: string[];
  events: WebhookEventType[];
  format: (typeof FORMATS)[number];
  transportType: (typeof TRANSPORT_TYPES)[number];
  url: string;
}

export interface SubscriptionProblem {
  field: string;
  message: string;
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;
/**
 * An SQS queue URL's path is exactly /<12-digit account id>/<queue name> (standard queues: no .fifo):
 * nothing before the account, so which account it names (SQS_ALLOWED_ACCOUNT_IDS) is never in doubt.
 */
const SQS_PATH = /^\/\d{12}\/[A-Za-z0-9_-]{1,80}$/;
/**
 * The same, on the URL as written (SQS reads the text it is sent, not a parser's normalised form): no
 * dot segments, percent-escapes or backslashes that would make the account read here differ from it.
 */
const QUEUE_URL_TEXT = /^https?:\/\/[^/?#\\@\s]+\/(\d{12})\/[A-Za-z0-9_-]{1,80}$/i;

function parseUrl(raw: string): URL | null {
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}

/** An absolute https URL with a host and no credentials in it. */
export function httpsUrlProblem(raw: string): string | null {
  const u = parseUrl(raw);
  if (!u || u.protocol !== 'https:' || !u.hostname) return 'must be an absolute https URL';
  if (u.username || u.password) return 'must not contain credentials';
  return null;
}

/**
 * An SQS queue URL: https://sqs.<region>.amazonaws.com/<account>/<queue> or any https host with that
 * path (VPC endpoints, compatible services); plain http only for a loopback host, where local
 * SQS-compatible servers (local-aws-sqs, ElasticMQ) answer.
 */
export function sqsUrlProblem(raw: string): string | null {
  const u = parseUrl(raw);
  if (!u || !u.hostname || (u.protocol !== 'https:' && !(u.protocol === 'http:' && LOOPBACK.test(u.hostname)))) {
    return 'must be an SQS queue URL (https://sqs.<region>.amazonaws.com/<account id>/<queue name>)';
  }
  if (u.username || u.password || u.search || u.hash) return 'must be a plain SQS queue URL';
  if (u.pathname.endsWith('.fifo')) return 'FIFO queues are not supported: use a standard queue';
  if (!SQS_PATH.test(u.pathname) || !QUEUE_URL_TEXT.test(raw)) return 'must be an SQS queue URL (https://sqs.<region>.amazonaws.com/<account id>/<queue name>)';
  return null;
}

/**
 * The queue owner accounts SQS_ALLOWED_ACCOUNT_IDS lists (validated by the config schema): a queue URL
 * is https://<host>/<account id>/<queue name>, and SQS writes to that account's queue whatever host is
 * named, with whatever rights the service's credentials have there. Unset, the set is empty.
 */
export function allowedQueueAccounts(raw: string | undefined): ReadonlySet<string> {
  return new Set((raw ?? '').split(',').map((a) => a.trim()).filter(Boolean));
}

/** The owner account of a queue URL as written (its path exactly /<12 digits>/<name>), or null. */
export function queueAccountId(queueUrl: string): string | null {
  return QUEUE_URL_TEXT.exec(queueUrl)?.[1] ?? null;
}

/** Why a queue may not be written to with the service's credentials, or null when it may. */
export function queueAccountProblem(queueUrl: string, allowed: ReadonlySet<string>): string | null {
  if (allowed.size === 0) return 'is an SQS queue, and this service delivers to none';
  const account = queueAccountId(queueUrl);
  if (!account || !allowed.has(account)) return 'names a queue of an AWS account this service does not deliver to';
  return null;
}

const clean = (v: string | null | undefined): string => (v == null ? '' : String(v).trim());

/**
 * The value checks of a create or update (all of them, so a tool learns every problem at once):
 * ContextType and ContextId, EventTypes (spec upper case or Canvas lower case), Format,
 * TransportType and TransportMetadata.Url. Capabilities and the context itself are checked after.
 */
export function checkSubscription(input: SubscriptionInput): { value: CheckedSubscription | null; problems: SubscriptionProblem[] } {
  const problems: SubscriptionProblem[] = [];
  const bad = (field: string, message: string) => problems.push({ field, message });

  const contextType = clean(input.contextType).toLowerCase() as SubscriptionContextType;
  if (!CONTEXT_TYPES.includes(contextType)) bad('ContextType', `must be one of ${CONTEXT_TYPES.join(', ')}`);
  const contextId = clean(input.contextId);
  if (!contextId) bad('ContextId', 'is required');
  else if (contextType === 'root_account' ? !/^[\w-]{1,64}$/.test(contextId) : !/^\d{1,15}$/.test(contextId)) {
    bad('ContextId', contextType === 'root_account' ? 'must be the root account uuid' : 'must be a numeric id');
  }

  const eventTypes: string[] = [];
  const events: WebhookEventType[] = [];
  if (!Array.isArray(input.eventTypes) || input.eventTypes.length === 0) bad('EventTypes', 'must be a non-empty list of event types');
  else {
    for (const raw of input.eventTypes) {
      const key = typeof raw === 'string' ? eventTypeKey(raw) : null;
      if (!key) bad('EventTypes', `unknown event type: ${String(raw)}`);
      else if (!events.includes(key)) {
        events.push(key);
        eventTypes.push(raw.trim());
      }
    }
  }

  const format = clean(input.format).toLowerCase() as CheckedSubscription['format'];
  if (!FORMATS.includes(format)) bad('Format', `must be one of ${FORMATS.join(', ')}`);
  const transportType = clean(input.transportType).toLowerCase() as CheckedSubscription['transportType'];
  if (!TRANSPORT_TYPES.includes(transportType)) bad('TransportType', `must be one of ${TRANSPORT_TYPES.join(', ')}`);

  const url = clean(input.transportMetadata?.url);
  if (!url) bad('TransportMetadata', 'must be an object with a Url');
  else if (url.length > 2048) bad('TransportMetadata', 'Url is too long (maximum is 2048 characters)');
  else if (transportType === 'https') {
    const p = httpsUrlProblem(url);
    if (p) bad('TransportMetadata', `Url ${p}`);
  } else if (transportType === 'sqs') {
    const p = sqsUrlProblem(url);
    if (p) bad('TransportMetadata', `Url ${p}`);
  }

  if (problems.length) return { value: null, problems };
  return { value: { contextType, contextId, eventTypes, events, format, transportType, url }, problems };
}
