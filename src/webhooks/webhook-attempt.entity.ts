import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { IntColumn, NullableInt, NullableString, TextColumn } from '../db/columns';

/**
 * Why an attempt failed, in a few words operators can filter on (null for a success):
 * http_status (a non-2xx answer other than a redirect), redirect, timeout, connection (refused,
 * reset …), dns, tls, refused_destination (the destination guard), invalid_destination, abandoned
 * (the dispatcher stopped mid-attempt) and transport (anything else, e.g. an SQS error).
 */
export type AttemptErrorClass =
  | 'http_status'
  | 'redirect'
  | 'timeout'
  | 'connection'
  | 'dns'
  | 'tls'
  | 'refused_destination'
  | 'invalid_destination'
  | 'abandoned'
  | 'transport';

/** How much of a receiver's answer is kept per attempt. */
export const RESPONSE_BODY_BYTES = 1024;

/**
 * One attempt to deliver one outbox message, as Svix and Stripe keep them: when it started, how long
 * it took, the HTTP status, why it failed, and the first 1 KB of the answer. Written in the
 * transaction that records the attempt's result (under the claim's lease token), removed with its
 * message when retention purges it.
 */
@Entity('webhook_attempts')
@Index(['outboxMessageId', 'id'])
export class WebhookAttempt {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  /** outbox_messages.id */
  @IntColumn()
  outboxMessageId: number;

  /** 1 for the first attempt (the message's claim count when it was made). */
  @IntColumn()
  attempt: number;

  @Column({ type: 'datetime', precision: 3 })
  startedAt: Date;

  @IntColumn()
  durationMs: number;

  /** HTTP status (null for SQS, network errors and refused destinations). */
  @NullableInt()
  statusCode: number | null;

  @NullableString(32)
  errorClass: AttemptErrorClass | null;

  @NullableString(1024)
  error: string | null;

  /** The first RESPONSE_BODY_BYTES bytes of the answer, as UTF-8 text. */
  @TextColumn()
  responseBody: string | null;
}
