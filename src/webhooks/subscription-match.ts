import type { EntityManager } from 'typeorm';
import { Account } from '../accounts/account.entity';
import { capabilityAllows, eventTypeKey } from '../lti/capabilities';
import { ToolProxy } from '../lti/tool-proxy.entity';
import { WebhookSubscription } from './webhook-subscription.entity';

/** Where an event happened, for matching subscriptions: its assignment, course and account chain. */
export interface EventScope {
  assignmentId: number | null;
  courseId: number | null;
  /** The account the context belongs to (the course's account); its ancestors match too. */
  accountId: number | null;
  rootAccountId: number;
}

/** Event type names are matched case-insensitively: the spec's SUBMISSION_CREATED or Canvas's submission_created. */
export function subscribesTo(sub: Pick<WebhookSubscription, 'eventTypes'>, eventName: string): boolean {
  let types: unknown;
  try {
    types = JSON.parse(sub.eventTypes);
  } catch {
    return false;
  }
  return Array.isArray(types) && types.some((t) => typeof t === 'string' && t.trim().toLowerCase() === eventName);
}

/** A subscription in an event's scope, with its tool's capabilities as they are now. */
export interface Candidate {
  sub: WebhookSubscription;
  capabilities: readonly string[];
}

function parseCapabilities(json: unknown): string[] {
  try {
    const caps: unknown = JSON.parse(String(json));
    return Array.isArray(caps) ? caps.filter((c): c is string => typeof c === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * Whether a subscription gets an event: it lists the event type and its tool's capabilities still
 * allow that type in the subscription's context type. Narrowing a tool's capabilities trims its
 * subscriptions (subscription-entitlement.ts); this check also holds for a subscription written
 * concurrently with the narrowing, under the old capabilities.
 */
export function wants(sub: Pick<WebhookSubscription, 'eventTypes' | 'contextType'>, capabilities: readonly string[], eventName: string): boolean {
  const key = eventTypeKey(eventName);
  return key != null && subscribesTo(sub, key) && capabilityAllows(capabilities, key, sub.contextType === 'assignment');
}

/**
 * Why a message of `eventName`, already written for `sub`, should no longer be sent to it (by the
 * dispatcher or on graphql-ws), or null when it should: the subscription was deleted, its tool proxy
 * was deleted, or it no longer wants the event type (changed EventTypes, narrowed capabilities).
 * Deactivation is the caller's to handle (the dispatcher dead-letters; graphql-ws drops).
 */
export function unwantedReason(
  sub: WebhookSubscription | null,
  tool: Pick<ToolProxy, 'workflowState' | 'capabilities'> | null,
  eventName: string,
): string | null {
  if (!sub || sub.state !== 'Active') return 'subscription deleted';
  if (!tool || tool.workflowState !== 'active') return 'tool proxy deleted';
  const key = eventTypeKey(eventName);
  // The capability first: narrowing also trims the type from the subscription, and it is the cause.
  if (!key || !capabilityAllows(parseCapabilities(tool.capabilities), key, sub.contextType === 'assignment')) {
    return `the tool's capabilities no longer allow ${eventName} in a ${sub.contextType} context`;
  }
  if (!subscribesTo(sub, key)) return `the subscription no longer lists ${eventName}`;
  return null;
}

/**
 * Whether a message published for graphql-ws still goes to its tool, judged as the dispatcher
 * judges a queued one, with the subscription and tool proxy read now (deactivated ones get none).
 */
export async function liveMessageWanted(em: EntityManager, subscriptionId: string, eventName: string): Promise<boolean> {
  const sub = await em.getRepository(WebhookSubscription).findOneBy({ id: subscriptionId });
  if (!sub || sub.deactivatedAt) return false;
  const tool = await em.getRepository(ToolProxy).findOne({ select: { id: true, workflowState: true, capabilities: true }, where: { id: sub.toolProxyId } });
  return unwantedReason(sub, tool, eventName) == null;
}

/** The account and its ancestors. */
async function accountChain(em: EntityManager, accountId: number): Promise<Set<number>> {
  const chain = new Set<number>();
  let next: number | null = accountId;
  while (next != null && !chain.has(next)) {
    chain.add(next);
    const acct: Account | null = await em.getRepository(Account).findOneBy({ id: next });
    next = acct?.parentAccountId ?? null;
  }
  return chain;
}

/**
 * Active subscriptions (not deleted, not deactivated, of an active tool proxy) whose context covers
 * the scope: the assignment's, its course's, and those of the course's account chain up to the root
 * account (root_account subscriptions are account subscriptions of the root), each with its tool's
 * current capabilities (for `wants`). One query; the account chain is only walked when an account
 * subscription of this root account exists.
 */
export async function subscriptionsInScope(em: EntityManager, scope: EventScope): Promise<Candidate[]> {
  const qb = em
    .getRepository(WebhookSubscription)
    .createQueryBuilder('s')
    .innerJoin(ToolProxy, 'p', "p.id = s.tool_proxy_id AND p.workflow_state = 'active'")
    .addSelect('p.capabilities', 'tool_capabilities')
    .where("s.state = 'Active'")
    .andWhere('s.deactivated_at IS NULL')
    .andWhere('s.root_account_id = :root', { root: scope.rootAccountId });
  const alternatives = ["s.match_type = 'Account'"];
  if (scope.assignmentId != null) alternatives.push("(s.match_type = 'Assignment' AND s.match_id = :assignment)");
  if (scope.courseId != null) alternatives.push("(s.match_type = 'Course' AND s.match_id = :course)");
  qb.andWhere(`(${alternatives.join(' OR ')})`, { assignment: scope.assignmentId, course: scope.courseId });
  const { entities, raw } = await qb.orderBy('s.created_at', 'ASC').addOrderBy('s.id', 'ASC').getRawAndEntities<{ s_id: string; tool_capabilities: unknown }>();
  const capabilities = new Map(raw.map((r) => [r.s_id, parseCapabilities(r.tool_capabilities)]));
  const rows = entities.map((sub) => ({ sub, capabilities: capabilities.get(sub.id) ?? [] }));
  if (!rows.some((c) => c.sub.matchType === 'Account')) return rows;
  const chain = scope.accountId != null ? await accountChain(em, scope.accountId) : new Set<number>();
  chain.add(scope.rootAccountId);
  return rows.filter((c) => c.sub.matchType !== 'Account' || chain.has(c.sub.matchId));
}
