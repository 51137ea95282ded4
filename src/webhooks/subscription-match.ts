import type { EntityManager } from 'typeorm';
import { Account } from '../accounts/account.entity';
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
export function subscribesTo(sub: WebhookSubscription, eventName: string): boolean {
  let types: unknown;
  try {
    types = JSON.parse(sub.eventTypes);
  } catch {
    return false;
  }
  return Array.isArray(types) && types.some((t) => typeof t === 'string' && t.trim().toLowerCase() === eventName);
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
 * account (root_account subscriptions are account subscriptions of the root). One query; the account
 * chain is only walked when an account subscription of this root account exists.
 */
export async function subscriptionsInScope(em: EntityManager, scope: EventScope): Promise<WebhookSubscription[]> {
  const qb = em
    .getRepository(WebhookSubscription)
    .createQueryBuilder('s')
    .innerJoin(ToolProxy, 'p', "p.id = s.tool_proxy_id AND p.workflow_state = 'active'")
    .where("s.state = 'Active'")
    .andWhere('s.deactivated_at IS NULL')
    .andWhere('s.root_account_id = :root', { root: scope.rootAccountId });
  const alternatives = ["s.match_type = 'Account'"];
  if (scope.assignmentId != null) alternatives.push("(s.match_type = 'Assignment' AND s.match_id = :assignment)");
  if (scope.courseId != null) alternatives.push("(s.match_type = 'Course' AND s.match_id = :course)");
  qb.andWhere(`(${alternatives.join(' OR ')})`, { assignment: scope.assignmentId, course: scope.courseId });
  const rows = await qb.orderBy('s.created_at', 'ASC').addOrderBy('s.id', 'ASC').getMany();
  if (!rows.some((s) => s.matchType === 'Account')) return rows;
  const chain = scope.accountId != null ? await accountChain(em, scope.accountId) : new Set<number>();
  chain.add(scope.rootAccountId);
  return rows.filter((s) => s.matchType !== 'Account' || chain.has(s.matchId));
}
