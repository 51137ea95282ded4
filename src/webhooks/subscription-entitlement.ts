import { EntityManager, In } from 'typeorm';
import { nowToSecond } from '../db/columns';
import { type DomainEventHandler } from '../events/domain-events';
import { allowedEventTypes } from '../lti/capabilities';
import { WebhookSubscription } from './webhook-subscription.entity';

/**
 * When an admin narrows a tool proxy's capabilities, its subscriptions follow them in the same
 * transaction: each keeps only the event types the new capabilities allow in its context type, and
 * one left with none is deleted (State Deleted, as when its tool proxy is deleted). This is Canvas's
 * rule that capabilities decide what a tool may subscribe to (Lti::SubscriptionsValidator), applied
 * to subscriptions that already exist, as Canvas's tool proxy re-registration drops the resource
 * handlers and placements a new proxy no longer declares. So GET /api/lti/subscriptions lists what
 * the tool actually receives, and widening the capabilities again restores nothing by itself: the
 * tool subscribes again, validated as any new subscription.
 *
 * Messages already written stay in the outbox; the dispatcher and graphql-ws check each against the
 * subscription and capabilities as they are when it is sent (subscription-match.ts, unwantedReason).
 */
export async function narrowSubscriptions(em: EntityManager, toolProxyId: number, capabilities: readonly string[]): Promise<{ trimmed: number; deleted: number }> {
  const subs = await em.getRepository(WebhookSubscription).find({ where: { toolProxyId, state: 'Active' } });
  const deleted: string[] = [];
  /** New EventTypes JSON → the subscriptions that get it (one UPDATE per distinct list). */
  const trimmed = new Map<string, string[]>();
  for (const sub of subs) {
    const types = sub.eventTypeList;
    const kept = allowedEventTypes(capabilities, types, sub.contextType);
    if (kept.length === types.length) continue;
    if (!kept.length) deleted.push(sub.id);
    else {
      const json = JSON.stringify(kept);
      trimmed.set(json, [...(trimmed.get(json) ?? []), sub.id]);
    }
  }
  const now = nowToSecond();
  const repo = em.getRepository(WebhookSubscription);
  for (let i = 0; i < deleted.length; i += 500) await repo.update({ id: In(deleted.slice(i, i + 500)) }, { state: 'Deleted', updatedAt: now });
  for (const [eventTypes, ids] of trimmed) {
    for (let i = 0; i < ids.length; i += 500) await repo.update({ id: In(ids.slice(i, i + 500)) }, { eventTypes, updatedAt: now });
  }
  return { trimmed: [...trimmed.values()].reduce((n, ids) => n + ids.length, 0), deleted: deleted.length };
}

/** A deleted tool proxy's live subscriptions stop (State Deleted) in the same transaction. */
async function stopSubscriptions(em: EntityManager, toolProxyId: number): Promise<void> {
  await em.getRepository(WebhookSubscription).update({ toolProxyId, state: 'Active' }, { state: 'Deleted', updatedAt: nowToSecond() });
}

export const subscriptionEntitlementHandler: DomainEventHandler = async (em, _ctx, event) => {
  if (event.type === 'tool_proxy.capabilities_changed') await narrowSubscriptions(em, event.toolProxyId, event.capabilities);
  else if (event.type === 'tool_proxy.deleted') await stopSubscriptions(em, event.toolProxyId);
};
