import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { Account } from '../accounts/account.entity';
import type { DemoContext, DemoExtension } from '../courses/demo-world';
import { nowToSecond } from '../db/columns';
import { ALL_CAPABILITY, WEBHOOK_EVENT_TYPES } from '../lti/capabilities';
import { encryptSecret, generateSharedSecret } from '../lti/lti-keys';
import { ToolProxy } from '../lti/tool-proxy.entity';
import { checkSubscription } from './subscriptions.validator';
import { WebhookSubscription } from './webhook-subscription.entity';

/** The demo receiver (`npm run cli -- webhook-receiver`) listens here by default; the demo subscription points at it. */
export const DEMO_RECEIVER = { host: '127.0.0.1', port: 4443, path: '/webhooks', dir: './data/webhook-receiver' } as const;
export const DEMO_WEBHOOK_URL = `https://${DEMO_RECEIVER.host}:${DEMO_RECEIVER.port}${DEMO_RECEIVER.path}`;
export const DEMO_TOOL_NAME = 'Demo Plagiarism Tool';

/**
 * The demo's plagiarism tool: a tool proxy with `root_account.all` installed in the root account (as
 * POST /api/v1/accounts/:id/tool_proxies makes it) and one root_account subscription to every event
 * type, live-event format, delivered over HTTPS to the demo receiver (as POST /api/lti/subscriptions
 * stores it, through the same value checks). It hangs off the root account, not the demo course, so
 * it also runs on later demo runs: whatever is missing is created (a database seeded before this
 * extension existed gains it), and a subscription deactivated while the receiver was down is
 * reactivated. The shared secret exists in plaintext only when the proxy is created, so it is
 * printed then and never again.
 */
export async function ensureDemoWebhook(em: EntityManager, { rootAccountId, tokenKey }: Pick<DemoContext, 'rootAccountId' | 'tokenKey'>): Promise<string[]> {
  const root = await em.getRepository(Account).findOneByOrFail({ id: rootAccountId });
  const proxies = em.getRepository(ToolProxy);
  let proxy = await proxies.findOne({
    where: { name: DEMO_TOOL_NAME, contextType: 'Account', contextId: root.id, workflowState: 'active' },
    order: { id: 'ASC' },
  });
  let sharedSecret: string | null = null;
  if (!proxy) {
    sharedSecret = generateSharedSecret();
    proxy = await proxies.save(
      proxies.create({
        guid: randomUUID(),
        name: DEMO_TOOL_NAME,
        sharedSecretEncrypted: encryptSecret(tokenKey, sharedSecret),
        capabilities: JSON.stringify([ALL_CAPABILITY]),
        contextType: 'Account',
        contextId: root.id,
        accountId: root.id,
        rootAccountId: root.id,
        createdById: null,
        workflowState: 'active',
      }),
    );
  }

  const { value: s, problems } = checkSubscription({
    contextType: 'root_account',
    contextId: root.uuid,
    eventTypes: [...WEBHOOK_EVENT_TYPES],
    format: 'live-event',
    transportType: 'https',
    transportMetadata: { url: DEMO_WEBHOOK_URL },
  });
  if (!s) throw new Error(`demo webhook subscription: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`);
  const subs = em.getRepository(WebhookSubscription);
  let sub = await subs.findOne({ where: { toolProxyId: proxy.id, state: 'Active', transportUrl: s.url }, order: { createdAt: 'ASC', id: 'ASC' } });
  let subscriptionNote = 'exists';
  if (!sub) {
    sub = WebhookSubscription.draft({
      toolProxyId: proxy.id,
      contextType: s.contextType,
      contextId: s.contextId,
      matchType: 'Account',
      matchId: root.id,
      rootAccountId: root.id,
      eventTypes: JSON.stringify(s.eventTypes),
      format: s.format,
      transportType: s.transportType,
      transportUrl: s.url,
      developerKey: proxy.developerKey,
    });
    await subs.insert(sub);
    subscriptionNote = 'created';
  } else if (sub.deactivatedAt) {
    // As a tool's PUT of its subscription does: deliveries resume.
    await subs.update({ id: sub.id }, { consecutiveFailures: 0, deactivatedAt: null, deactivationReason: null, updatedAt: nowToSecond() });
    subscriptionNote = 'reactivated';
  }

  const lines = [
    `Webhooks: tool proxy "${proxy.name}" (id ${proxy.id}, ${sharedSecret ? 'created' : 'exists'}) in the root account, with the ${ALL_CAPABILITY} capability;`,
    `  subscription ${sub.id} (${subscriptionNote}): every event type, live-event, delivered to ${s.url}`,
    `  tool guid:     ${proxy.guid}`,
  ];
  if (sharedSecret) lines.push(`  shared secret: ${sharedSecret}   (shown only now; it signs the tool's JWT assertions)`);
  lines.push(
    '  See deliveries arrive: `npm run cli -- webhook-receiver`, then start the service with',
    `  WEBHOOK_ALLOW_PRIVATE_NETWORKS=127.0.0.0/8 WEBHOOK_CA_FILE=${DEMO_RECEIVER.dir}/ca.pem npm start`,
  );
  return lines;
}

export const webhooksDemo: DemoExtension = {
  name: 'webhooks',
  seed: (em, _world, ctx) => ensureDemoWebhook(em, ctx),
  reseed: (em, ctx) => ensureDemoWebhook(em, ctx),
};
