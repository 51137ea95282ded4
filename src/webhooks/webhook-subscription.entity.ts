import { randomUUID } from 'node:crypto';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { DateTimeColumn, IntColumn, NullableString, StringColumn, TextColumn, nowToSecond } from '../db/columns';

/** What a new subscription must be given: what the tool asked for and whose it is. */
type WebhookSubscriptionGiven =
  | 'toolProxyId'
  | 'contextType'
  | 'contextId'
  | 'matchType'
  | 'matchId'
  | 'rootAccountId'
  | 'eventTypes'
  | 'format'
  | 'transportType'
  | 'transportUrl'
  | 'developerKey';

/** The columns WebhookSubscription.draft fills when not given. */
type WebhookSubscriptionDefaulted =
  | 'id'
  | 'state'
  | 'consecutiveFailures'
  | 'deactivatedAt'
  | 'deactivationReason'
  | 'signingSecret'
  | 'previousSigningSecret'
  | 'previousSecretUntil'
  | 'createdAt'
  | 'updatedAt';

/**
 * A tool's subscription to change notifications, as Canvas's subscription service stores it. The id
 * is a UUID string (`Id`), as that service issues them.
 */
@Entity('webhook_subscriptions')
@Index(['toolProxyId', 'state', 'id'])
@Index(['contextType', 'contextId', 'state'])
@Index(['matchType', 'matchId', 'state'])
export class WebhookSubscription {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @IntColumn()
  toolProxyId: number;

  /** assignment, course, account or root_account, as the tool sent it (lower case). */
  @StringColumn(32)
  contextType: string;

  /** As sent (a numeric id, or the root account's uuid for root_account). */
  @StringColumn(64)
  contextId: string;

  /** The resolved context the subscription covers, for matching events: Course, Account or Assignment. */
  @StringColumn(16)
  matchType: string;

  @IntColumn()
  matchId: number;

  @IntColumn()
  rootAccountId: number;

  /** JSON array of event type names as sent (matched case-insensitively). */
  @TextColumn({ nullable: false })
  eventTypes: string;

  /** live-event or caliper. */
  @StringColumn(16)
  format: string;

  /** https or sqs. */
  @StringColumn(8)
  transportType: string;

  @StringColumn(2048)
  transportUrl: string;

  /** Developer key of the owning tool (its global id string), part of the list paging key. */
  @StringColumn(64)
  developerKey: string;

  /** Active or Deleted (Canvas's State). */
  @StringColumn(16, { default: 'Active' })
  state: 'Active' | 'Deleted';

  /** Deliveries that failed in a row; past a limit the subscription is deactivated. */
  @IntColumn({ default: 0 })
  consecutiveFailures: number;

  @DateTimeColumn()
  deactivatedAt: Date | null;

  @NullableString(255)
  deactivationReason: string | null;

  /**
   * The Standard Webhooks `whsec_…` secret (v1 HMAC signatures), AES-256-GCM encrypted under a key
   * derived from the server secret (subscription-secrets.ts). Null for subscriptions made before
   * secrets existed: they get v1a (Ed25519) signatures only, until the tool rotates one in.
   */
  @NullableString(512)
  signingSecret: string | null;

  /** The secret before the last rotation, also signed with until previousSecretUntil (encrypted). */
  @NullableString(512)
  previousSigningSecret: string | null;

  @DateTimeColumn()
  previousSecretUntil: Date | null;

  @Column({ type: 'datetime' })
  createdAt: Date;

  @Column({ type: 'datetime' })
  updatedAt: Date;

  /**
   * A new, active subscription: a fresh UUID, no failures, no secret (v1a signatures only until one
   * is set) and created now (to the second, as the columns keep it); `fields` sets the rest.
   */
  static draft(fields: Pick<WebhookSubscription, WebhookSubscriptionGiven> & Partial<Pick<WebhookSubscription, WebhookSubscriptionDefaulted>>): WebhookSubscription {
    const now = nowToSecond();
    return Object.assign(new WebhookSubscription(), {
      id: randomUUID(),
      state: 'Active',
      consecutiveFailures: 0,
      deactivatedAt: null,
      deactivationReason: null,
      signingSecret: null,
      previousSigningSecret: null,
      previousSecretUntil: null,
      createdAt: now,
      updatedAt: now,
      ...fields,
    });
  }

  get eventTypeList(): string[] {
    return JSON.parse(this.eventTypes) as string[];
  }
}
