import { In } from 'typeorm';
import { ConflictError, NotFoundError, ValidationError } from '../common/errors';
import { Assignment } from '../content/assignments/assignment.entity';
import { Course } from '../courses/course.entity';
import { ToolProxy } from '../lti/tool-proxy.entity';
import { transaction } from '../db/transaction';
import { OutboxMessage, OutboxStatus } from './outbox.entity';
import { announceOutboxWritten } from './outbox-signal';
import type { RequestContext } from '../request/context';
import { ConnectionResult } from '../common/relay';
import { keyWindow, SortKey } from '../common/keyset';
import { keysetPage } from '../db/keyset-page';
import { publishedJwks } from './signing-keys';
import { publishedEd25519Jwks } from './standard-signatures';
import { replayOutbox, ReplayResult, subscriptionsOfTool } from './outbox-replay';
import { WebhookAttempt } from './webhook-attempt.entity';
import { WebhookSubscription } from './webhook-subscription.entity';

/** Newest first: the order of a subscription's deliveries and its cursors' keys. */
const DELIVERY_ORDER: SortKey[] = [{ expr: 'm.id', dir: 'DESC' }];

const STATUSES: OutboxStatus[] = ['pending', 'delivering', 'delivered', 'dead', 'cancelled'];

/** What operators see of a message: the stored row with its document parsed (attempts: see attempts()). */
export interface DeliveryView extends Omit<OutboxMessage, 'payload' | 'nextAttemptAt' | 'attempts'> {
  attemptCount: number;
  nextAttemptAt: Date | null;
  payload: Record<string, unknown>;
}

function view({ attempts, ...m }: OutboxMessage): DeliveryView {
  return { ...m, attemptCount: attempts, nextAttemptAt: m.status === 'pending' ? m.nextAttemptAt : null, payload: JSON.parse(m.payload) as Record<string, unknown> };
}

/** Operators' view of webhook deliveries: account admins over the subscription's context, and site admins. */
export class WebhookDeliveryService {
  constructor(private readonly ctx: RequestContext) {}

  /** The subscription, when the caller administers an account its context belongs to; 404 otherwise. */
  private async administered(subscriptionId: string): Promise<WebhookSubscription> {
    this.ctx.authz.requireViewer();
    const sub = /^[\w-]{1,36}$/.test(subscriptionId) ? await this.ctx.ds.getRepository(WebhookSubscription).findOneBy({ id: subscriptionId }) : null;
    if (!sub) throw new NotFoundError();
    if (await this.ctx.authz.isSiteAdmin()) return sub;
    let accountId: number | null = null;
    if (sub.matchType === 'Account') accountId = sub.matchId;
    else {
      const courseId = sub.matchType === 'Course' ? sub.matchId : (await this.ctx.ds.getRepository(Assignment).findOneBy({ id: sub.matchId }))?.courseId;
      accountId = courseId != null ? ((await this.ctx.ds.getRepository(Course).findOneBy({ id: courseId }))?.accountId ?? null) : null;
    }
    if (accountId == null || !(await this.ctx.authz.isAccountAdmin(accountId))) throw new NotFoundError();
    return sub;
  }

  /** A subscription's deliveries, newest first. */
  async list(args: { subscriptionId: string; status?: string[] | null; first?: number | null; after?: string | null }): Promise<ConnectionResult<DeliveryView>> {
    const sub = await this.administered(args.subscriptionId);
    const statuses = args.status?.length ? args.status : null;
    if (statuses?.some((s) => !STATUSES.includes(s as OutboxStatus))) {
      throw ValidationError.of('status', 'inclusion', `status must be one of ${STATUSES.join(', ')}`);
    }
    // A key set page walked down the (subscription, id) index from the cursor, the status checked on
    // the entries walked: first + 1 rows however many the subscription has sent, the total counted
    // only when asked.
    return keysetPage(
      this.ctx.ds,
      {
        entity: OutboxMessage,
        alias: 'm',
        where: statuses ? `m.subscription_id = ? AND m.status IN (${statuses.map(() => '?').join(', ')})` : 'm.subscription_id = ?',
        params: [sub.id, ...(statuses ?? [])],
        order: DELIVERY_ORDER,
        keyOf: (m) => [m.id],
      },
      keyWindow(args, DELIVERY_ORDER.length),
      view,
    );
  }

  /**
   * Sends a dead-lettered (or cancelled) message again, with the same message id and a fresh retry
   * window. A deactivated subscription is only redelivered to when `reactivate` is asked for.
   */
  async redeliver(messageId: string, reactivate: boolean): Promise<{ delivery: DeliveryView }> {
    const m = await this.ctx.ds.getRepository(OutboxMessage).findOneBy({ messageId });
    if (!m) throw new NotFoundError();
    const sub = await this.administered(m.subscriptionId);
    if (m.status !== 'dead' && m.status !== 'cancelled') throw new ConflictError(`only dead-lettered messages can be redelivered (this one is ${m.status})`);
    if (sub.state !== 'Active') throw new ConflictError('the subscription was deleted');
    if (sub.deactivatedAt && !reactivate) throw new ConflictError('the subscription is deactivated; redeliver with reactivate: true to reactivate it');
    const now = new Date();
    const saved = await transaction(this.ctx.ds, async (em) => {
      if (sub.deactivatedAt) {
        await em.getRepository(WebhookSubscription).update({ id: sub.id }, { deactivatedAt: null, deactivationReason: null, consecutiveFailures: 0 });
      }
      await em.getRepository(OutboxMessage).update(
        { id: m.id, status: In(['dead', 'cancelled']) },
        { status: 'pending', nextAttemptAt: now, retryUntil: new Date(now.getTime() + this.ctx.app.config.WEBHOOK_RETRY_WINDOW_MS), leaseToken: null, updatedAt: now },
      );
      return em.getRepository(OutboxMessage).findOneByOrFail({ id: m.id });
    });
    announceOutboxWritten(this.ctx.app.pubsub, 1);
    return { delivery: view(saved) };
  }

  /**
   * Re-queues the messages of one subscription, or of every subscription of one tool proxy, whose
   * event time lies in [from, to) (outbox-replay.ts): same message ids, fresh retry window. Callers
   * who may not administer the subscription or tool get NOT_FOUND, as for the rest of this service.
   */
  async replay(input: {
    subscriptionId?: string | null;
    toolProxyId?: string | null;
    from: Date;
    to: Date;
    onlyDead?: boolean | null;
    reactivate?: boolean | null;
  }): Promise<ReplayResult> {
    this.ctx.authz.requireViewer();
    if (Boolean(input.subscriptionId) === Boolean(input.toolProxyId)) {
      throw ValidationError.of('subscriptionId', 'required', 'give either subscriptionId or toolProxyId');
    }
    if (!(input.from instanceof Date) || !(input.to instanceof Date) || !(input.from.getTime() < input.to.getTime())) {
      throw ValidationError.of('to', 'invalid', 'to must be later than from');
    }
    let subs: WebhookSubscription[];
    if (input.subscriptionId) subs = [await this.administered(input.subscriptionId)];
    else {
      const id = /^\d{1,15}$/.test(input.toolProxyId!) ? Number(input.toolProxyId) : null;
      const tool = id != null ? await this.ctx.ds.getRepository(ToolProxy).findOneBy({ id }) : null;
      if (!tool || !((await this.ctx.authz.isSiteAdmin()) || (await this.ctx.authz.isAccountAdmin(tool.accountId)))) throw new NotFoundError();
      subs = await subscriptionsOfTool(this.ctx.ds, tool.id);
    }
    const result = await replayOutbox(this.ctx.ds, subs, {
      from: input.from,
      to: input.to,
      onlyDead: Boolean(input.onlyDead),
      reactivate: Boolean(input.reactivate),
      retryWindowMs: this.ctx.app.config.WEBHOOK_RETRY_WINDOW_MS,
    });
    if (result.requeued) announceOutboxWritten(this.ctx.app.pubsub, result.requeued);
    return result;
  }

  /**
   * A delivery's attempts, oldest first, batched across the deliveries of one response. Only reached
   * through a delivery list() or redeliver() returned, which checked the caller may see it.
   */
  async attempts(delivery: DeliveryView): Promise<(WebhookAttempt & { succeeded: boolean })[]> {
    const rows = await this.ctx.loaders.manyBy(WebhookAttempt, 'outboxMessageId', {}, { id: 'ASC' }).load(delivery.id);
    return rows.map((a) => ({ ...a, succeeded: a.errorClass == null }));
  }

  /**
   * The public keys webhook signatures verify against: the RS256 keys of X-Webhook-Signature, then
   * the Ed25519 keys (OKP) of the Standard Webhooks v1a signatures, newest first within each.
   */
  async jwks() {
    const [rsa, ed25519] = await Promise.all([publishedJwks(this.ctx.ds, this.ctx.app.tokenKey), publishedEd25519Jwks(this.ctx.ds, this.ctx.app.tokenKey)]);
    return { keys: [...rsa.keys, ...ed25519] };
  }
}
