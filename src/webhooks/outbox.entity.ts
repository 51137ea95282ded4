import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { IntColumn, NullableInt, NullableString, StringColumn, TextColumn } from '../db/columns';

/**
 * pending: waiting for its next attempt (next_attempt_at). delivering: claimed by a dispatcher until
 * next_attempt_at (its lease); a lease that runs out makes it claimable again. delivered, dead (retries
 * exhausted or the subscription deactivated; an operator may redeliver) and cancelled (the
 * subscription was deleted) are final.
 */
export type OutboxStatus = 'pending' | 'delivering' | 'delivered' | 'dead' | 'cancelled';

/** Millisecond precision: retry and lease times are compared in the claim query on both engines. */
const PreciseTime = (nullable: boolean) => Column({ type: 'datetime', precision: 3, nullable });

/**
 * One message for one webhook subscription, written in the transaction of the change that caused
 * it (a transactional outbox): the rendered document as the subscriber receives it and its
 * delivery state. The message id stays the same on every attempt, so receivers can deduplicate.
 */
@Entity('outbox_messages')
@Index(['status', 'nextAttemptAt'])
@Index(['subscriptionId', 'id'])
export class OutboxMessage {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Index({ unique: true })
  @StringColumn(36)
  messageId: string;

  @StringColumn(36)
  subscriptionId: string;

  /** The tool proxy owning the subscription (live graphql-ws subscribers are keyed by it). */
  @IntColumn()
  toolProxyId: number;

  /** Canvas's live event name, e.g. submission_created. */
  @StringColumn(64)
  eventName: string;

  /** live-event or caliper, as the subscription was when the event happened. */
  @StringColumn(16)
  format: string;

  /** The JSON document delivered (Caliper's sendTime is set at each send). */
  @TextColumn({ nullable: false })
  payload: string;

  @StringColumn(16, { default: 'pending' })
  status: OutboxStatus;

  @IntColumn({ default: 0 })
  attempts: number;

  /** When a pending message is due, or when a delivering one's lease runs out. */
  @PreciseTime(false)
  nextAttemptAt: Date;

  /** Retries stop here and the message is dead-lettered. */
  @PreciseTime(false)
  retryUntil: Date;

  /** Identifies the claim: a dispatcher records a result only while its claim is the current one. */
  @NullableString(64)
  leaseToken: string | null;

  @NullableString(128)
  claimedBy: string | null;

  @NullableString(1024)
  lastError: string | null;

  /** HTTP status of the last attempt (null for SQS, network errors and refusals). */
  @NullableInt()
  lastStatusCode: number | null;

  @PreciseTime(true)
  firstAttemptAt: Date | null;

  @PreciseTime(true)
  lastAttemptAt: Date | null;

  @PreciseTime(true)
  deliveredAt: Date | null;

  /**
   * The W3C traceparent of the request that wrote the message (null without tracing): its deliveries
   * are spans of that trace, and the HTTPS delivery passes it on to the receiver.
   */
  @NullableString(64)
  traceparent: string | null;

  @PreciseTime(false)
  createdAt: Date;

  @PreciseTime(false)
  updatedAt: Date;
}
