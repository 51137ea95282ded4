import { IsNull, MoreThan } from 'typeorm';
import { Account } from '../accounts/account.entity';
import { NotFoundError, RequestError, UnauthenticatedError } from '../common/errors';
import { Assignment } from '../content/assignments/assignment.entity';
import { Course } from '../courses/course.entity';
import { nowToSecond } from '../db/columns';
import { transaction } from '../db/transaction';
import type { RequestContext } from '../request/context';
import { capabilityAllows } from '../lti/capabilities';
import { ToolProxy } from '../lti/tool-proxy.entity';
import { toolReaches, ToolTarget } from '../lti/tool-reach';
import { destinationGuard } from './destination-guard';
import { generateSecret, rotatedSecretColumns, sealSecret } from './subscription-secrets';
// Registers the reaction to narrowed capabilities wherever subscriptions exist.
import { WebhookSubscription } from './webhook-subscription.entity';
import { allowedQueueAccounts, CheckedSubscription, checkSubscription, queueAccountProblem, SubscriptionInput, SubscriptionProblem } from './subscriptions.validator';

/** Canvas's page size for the subscription list (not configurable by the caller). */
export const SUBSCRIPTION_PAGE_SIZE = 100;
const OWNER_TYPE = 'external_tool';

/** The record as Canvas's subscription service returns it (camelCase here; PascalCase in REST). */
export interface SubscriptionRecord {
  id: string;
  contextId: string;
  contextType: string;
  eventTypes: string[];
  format: string;
  transportMetadata: { url: string };
  transportType: string;
  ownerId: string;
  ownerType: string;
  developerKey: string;
  rootAccountId: number;
  rootAccountUuid: string;
  associatedIntegrationId: string;
  state: string;
  createdAt: Date;
  updatedAt: Date;
  updatedBy: string;
  updatedByType: string;
  /** Set when deliveries stopped: the endpoint answered 410 Gone or kept failing (cleared by a PUT). */
  deactivatedAt: Date | null;
  deactivationReason: string | null;
  /** The Standard Webhooks secret, only in the response that created or rotated it. */
  signingSecret?: string | null;
}

export interface SubscriptionPage {
  nodes: SubscriptionRecord[];
  endKey: string | null;
}

/** Canvas's bodies: a missing `subscription`, bad values (400), and capability or context refusals (401). */
const missing = () => new RequestError('subscription is missing', 400, { errors: [{ message: 'subscription is missing' }] });
const invalid = (errors: SubscriptionProblem[]) => new RequestError('Invalid subscription', 400, { error: 'Invalid subscription', errors });
const unauthorized = (errors?: SubscriptionProblem[]) =>
  new RequestError('Unauthorized subscription', 401, errors ? { error: 'Unauthorized subscription', errors } : { error: 'Unauthorized subscription' });

interface Resolved {
  target: ToolTarget;
  matchType: 'Assignment' | 'Course' | 'Account';
  matchId: number;
  rootAccountId: number;
}

/**
 * The webhook subscription API of a tool (authenticated by its JWT access token, ctx.tool): Canvas's
 * Lti::SubscriptionsApiController and SubscriptionsValidator, with the subscription service's
 * storage in our database. A tool sees only its own subscriptions.
 */
export class WebhookSubscriptionService {
  constructor(private readonly ctx: RequestContext) {}

  private tool(): ToolProxy {
    if (!this.ctx.tool) throw new UnauthenticatedError();
    return this.ctx.tool;
  }

  // ---- validation -------------------------------------------------------------------------------

  /** The context a subscription names, or null when it does not exist (deleted counts as missing). */
  private async resolveContext(s: CheckedSubscription): Promise<Resolved | null> {
    const loaders = this.ctx.loaders;
    if (s.contextType === 'root_account') {
      const root = await this.ctx.ds.getRepository(Account).findOneBy({ uuid: s.contextId, parentAccountId: IsNull() });
      if (!root || root.uuid !== s.contextId || root.workflowState === 'deleted') return null;
      return { target: { type: 'Account', accountId: root.id }, matchType: 'Account', matchId: root.id, rootAccountId: root.id };
    }
    const id = Number(s.contextId);
    if (s.contextType === 'account') {
      const acct = await loaders.byId(Account).load(id);
      if (!acct || acct.workflowState === 'deleted') return null;
      return { target: { type: 'Account', accountId: acct.id }, matchType: 'Account', matchId: acct.id, rootAccountId: acct.resolvedRootId };
    }
    let course: Course | null;
    if (s.contextType === 'assignment') {
      const assignment = await loaders.byId(Assignment).load(id);
      if (!assignment || assignment.workflowState === 'deleted') return null;
      course = await loaders.byId(Course).load(assignment.courseId);
    } else {
      course = await loaders.byId(Course).load(id);
    }
    if (!course || course.workflowState === 'deleted') return null;
    // An assignment is checked as its course, as Canvas does.
    return { target: { type: 'Course', course }, matchType: s.contextType === 'assignment' ? 'Assignment' : 'Course', matchId: id, rootAccountId: course.rootAccountId };
  }

  /**
   * Values first (400 Invalid subscription), then the context: one the tool cannot reach and one
   * that does not exist are the same 401, so a tool learns nothing of other schools' ids; then each
   * event type against the capabilities (401).
   */
  private async validate(tool: ToolProxy, input: SubscriptionInput | null | undefined): Promise<{ s: CheckedSubscription; r: Resolved }> {
    if (!input) throw missing();
    const { value: s, problems } = checkSubscription(input);
    if (!s) throw invalid(problems);
    await this.checkDestination(s);
    const r = await this.resolveContext(s);
    if (!r || !(await toolReaches(this.ctx, tool, r.target))) throw unauthorized();
    const caps = tool.capabilityList;
    const refused = s.events.filter((e) => !capabilityAllows(caps, e, s.contextType === 'assignment'));
    if (refused.length) {
      throw unauthorized(refused.map((e) => ({ field: 'EventTypes', message: `the tool lacks a capability for ${e} in a ${s.contextType} context` })));
    }
    return { s, r };
  }

  /**
   * An HTTPS endpoint must be on the public internet: a host that is, or now resolves to, an address
   * deliveries would refuse is an invalid value (400), unless the operator allow-lists it. The
   * message does not say what a name resolved to. An SQS queue's host is not checked (the SQS
   * transport only ever calls SQS_ENDPOINT or AWS), but its owner account is: the service writes it
   * with its own credentials, so only accounts in SQS_ALLOWED_ACCOUNT_IDS (the dispatcher checks again).
   */
  private async checkDestination(s: CheckedSubscription): Promise<void> {
    if (s.transportType === 'sqs') {
      const refused = queueAccountProblem(s.url, allowedQueueAccounts(this.ctx.app.config.SQS_ALLOWED_ACCOUNT_IDS));
      if (refused) throw invalid([{ field: 'TransportMetadata', message: `Url ${refused}` }]);
    }
    if (s.transportType !== 'https') return;
    const guard = destinationGuard(this.ctx.app.config.WEBHOOK_ALLOW_PRIVATE_NETWORKS);
    if (await guard.refuses(new URL(s.url).hostname)) {
      throw invalid([{ field: 'TransportMetadata', message: 'Url must not point to a private, loopback, link-local or reserved address' }]);
    }
  }

  private fields(
    s: CheckedSubscription,
    r: Resolved,
  ): Pick<WebhookSubscription, 'contextType' | 'contextId' | 'matchType' | 'matchId' | 'rootAccountId' | 'eventTypes' | 'format' | 'transportType' | 'transportUrl'> {
    return {
      contextType: s.contextType,
      contextId: s.contextId,
      matchType: r.matchType,
      matchId: r.matchId,
      rootAccountId: r.rootAccountId,
      eventTypes: JSON.stringify(s.eventTypes),
      format: s.format,
      transportType: s.transportType,
      transportUrl: s.url,
    };
  }

  // ---- operations -------------------------------------------------------------------------------

  /** POST /api/lti/subscriptions. */
  async create(input: SubscriptionInput | null | undefined): Promise<SubscriptionRecord> {
    const tool = this.tool();
    const { s, r } = await this.validate(tool, input);
    // Shown once, in this response; stored encrypted.
    const secret = generateSecret();
    const row = await transaction(this.ctx.ds, async (em) => {
      const repo = em.getRepository(WebhookSubscription);
      const created = WebhookSubscription.draft({
        signingSecret: sealSecret(this.ctx.app.tokenKey, secret),
        toolProxyId: tool.id,
        ...this.fields(s, r),
        developerKey: tool.developerKey,
      });
      await repo.insert(created);
      return created;
    });
    return { ...(await this.record(row, tool)), signingSecret: secret };
  }

  /**
   * A new Standard Webhooks secret for one of the tool's subscriptions, shown once in the answer.
   * The previous one keeps signing (a second v1 signature) for WEBHOOK_SECRET_GRACE_MS, so the
   * receiver can switch over without rejecting messages.
   */
  async rotateSecret(rawId: string): Promise<SubscriptionRecord> {
    const tool = this.tool();
    const row = await this.own(tool, rawId);
    const secret = generateSecret();
    const columns = rotatedSecretColumns(this.ctx.app.tokenKey, row, secret, this.ctx.app.config.WEBHOOK_SECRET_GRACE_MS);
    Object.assign(row, columns, { updatedAt: nowToSecond() });
    await transaction(this.ctx.ds, (em) => em.getRepository(WebhookSubscription).update({ id: row.id }, { ...columns, updatedAt: row.updatedAt }));
    return { ...(await this.record(row, tool)), signingSecret: secret };
  }

  /** One live subscription of the calling tool; anything else (another tool's, deleted) is 404. */
  private async own(tool: ToolProxy, rawId: string): Promise<WebhookSubscription> {
    const id = String(rawId).trim().toLowerCase();
    const row = /^[0-9a-f-]{36}$/.test(id) ? await this.ctx.ds.getRepository(WebhookSubscription).findOneBy({ id, toolProxyId: tool.id }) : null;
    if (!row || row.id !== id || row.state !== 'Active') throw new NotFoundError();
    return row;
  }

  async show(rawId: string): Promise<SubscriptionRecord> {
    const tool = this.tool();
    return this.record(await this.own(tool, rawId), tool);
  }

  /**
   * PUT: the full subscription again, validated as on create. Resubmitting also clears a
   * deactivation (a tool that fixed its endpoint gets deliveries again).
   */
  async update(rawId: string, input: SubscriptionInput | null | undefined): Promise<SubscriptionRecord> {
    const tool = this.tool();
    const row = await this.own(tool, rawId);
    const { s, r } = await this.validate(tool, input);
    Object.assign(row, this.fields(s, r), { consecutiveFailures: 0, deactivatedAt: null, deactivationReason: null, updatedAt: nowToSecond() });
    await transaction(this.ctx.ds, (em) => em.getRepository(WebhookSubscription).save(row));
    return this.record(row, tool);
  }

  /** DELETE: State becomes Deleted (the row stays for delivery history); later GETs are 404. */
  async delete(rawId: string): Promise<SubscriptionRecord> {
    const tool = this.tool();
    const row = await this.own(tool, rawId);
    row.state = 'Deleted';
    row.updatedAt = nowToSecond();
    await transaction(this.ctx.ds, (em) => em.getRepository(WebhookSubscription).update({ id: row.id }, { state: row.state, updatedAt: row.updatedAt }));
    return this.record(row, tool);
  }

  /** GET /api/lti/subscriptions: the calling tool's live subscriptions, 100 per page by Id. */
  list(startKey: string | null | undefined): Promise<SubscriptionPage> {
    return this.page(this.tool(), startKey);
  }

  /** A page of a proxy's live subscriptions after StartKey (JSON {"Id","DeveloperKey"}). */
  async page(tool: ToolProxy, startKey: string | null | undefined): Promise<SubscriptionPage> {
    const after = startKey == null || startKey === '' ? null : this.parseStartKey(tool, startKey);
    const rows = await this.ctx.ds.getRepository(WebhookSubscription).find({
      where: { toolProxyId: tool.id, state: 'Active', ...(after ? { id: MoreThan(after) } : {}) },
      order: { id: 'ASC' },
      take: SUBSCRIPTION_PAGE_SIZE + 1,
    });
    const more = rows.length > SUBSCRIPTION_PAGE_SIZE;
    const shown = rows.slice(0, SUBSCRIPTION_PAGE_SIZE);
    const nodes = await Promise.all(shown.map((row) => this.record(row, tool)));
    const last = shown[shown.length - 1];
    return { nodes, endKey: more && last ? JSON.stringify({ Id: last.id, DeveloperKey: tool.developerKey }) : null };
  }

  private parseStartKey(tool: ToolProxy, raw: string): string {
    const bad = () => new RequestError('Invalid StartKey', 400, { error: 'Invalid StartKey' });
    let key: unknown;
    try {
      key = JSON.parse(raw);
    } catch {
      throw bad();
    }
    if (!key || typeof key !== 'object' || Array.isArray(key)) throw bad();
    const { Id, DeveloperKey } = key as Record<string, unknown>;
    if (typeof Id !== 'string' || !/^[0-9a-fA-F-]{1,36}$/.test(Id)) throw bad();
    if (DeveloperKey !== undefined && String(DeveloperKey) !== tool.developerKey) throw bad();
    return Id.toLowerCase();
  }

  /** The stored record in Canvas's shape; the owner fields name the tool proxy. */
  async record(row: WebhookSubscription, tool?: ToolProxy): Promise<SubscriptionRecord> {
    const proxy = tool && tool.id === row.toolProxyId ? tool : await this.ctx.loaders.byId(ToolProxy).load(row.toolProxyId);
    const root = await this.ctx.loaders.byId(Account).load(row.rootAccountId);
    const guid = proxy?.guid ?? '';
    return {
      id: row.id,
      contextId: row.contextId,
      contextType: row.contextType,
      eventTypes: row.eventTypeList,
      format: row.format,
      transportMetadata: { url: row.transportUrl },
      transportType: row.transportType,
      ownerId: guid,
      ownerType: OWNER_TYPE,
      developerKey: row.developerKey,
      rootAccountId: row.rootAccountId,
      rootAccountUuid: root?.uuid ?? '',
      associatedIntegrationId: guid,
      state: row.state,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
      updatedBy: guid,
      updatedByType: OWNER_TYPE,
      deactivatedAt: row.deactivatedAt,
      deactivationReason: row.deactivationReason,
    };
  }
}
