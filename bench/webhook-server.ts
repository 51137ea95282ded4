/**
 * The server under test of `npm run bench:webhooks`, in its own process (child_process.fork): the
 * real prepareApp + buildServer with the webhook dispatcher switched on and off by the bench (so a
 * burst can be queued first and then drained, timed from the dispatcher's start).
 *
 * argv[2], when given, is another build's dist/ directory (BENCH_COMPARE): the same bench then runs
 * the dispatcher of an earlier commit, against the same kind of database, in the same run.
 *
 * Messages (each answered with { id, ok, ... }): start { env }, seed { subscriptions, url, format },
 * dispatch { on }, stats (the dispatcher's totals: deliveries, claims, empty claims), profileStart,
 * profileStop { file }, close.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { answerParent, fromDist } from './child-side';

interface Msg {
  id: number;
  type: 'start' | 'seed' | 'dispatch' | 'stats' | 'profileStart' | 'profileStop' | 'close';
  env?: Record<string, string>;
  subscriptions?: number;
  url?: string;
  format?: string;
  on?: boolean;
  file?: string;
}

const { loadConfig } = fromDist<typeof import('../src/config')>('src/config');
const { prepareApp } = fromDist<typeof import('../src/app/bootstrap')>('src/app/bootstrap');
const { buildServer } = fromDist<typeof import('../src/app/server')>('src/app/server');
const { Dispatcher } = fromDist<typeof import('../src/webhooks/dispatcher')>('src/webhooks/dispatcher');
const { Account } = fromDist<typeof import('../src/accounts/account.entity')>('src/accounts/account.entity');
const { ToolProxy } = fromDist<typeof import('../src/lti/tool-proxy.entity')>('src/lti/tool-proxy.entity');
const { encryptSecret } = fromDist<typeof import('../src/lti/lti-keys')>('src/lti/lti-keys');
const { WebhookSubscription } = fromDist<typeof import('../src/webhooks/webhook-subscription.entity')>('src/webhooks/webhook-subscription.entity');

type App = Awaited<ReturnType<typeof prepareApp>>['app'];
let app: App | undefined;
let config: ReturnType<typeof loadConfig> | undefined;
let close: (() => Promise<void>) | undefined;
let dispatcher: InstanceType<typeof Dispatcher> | undefined;

/** A tool with `n` root-account subscriptions to grade_change, all delivering to `url`. */
async function seed(n: number, url: string, format: string): Promise<void> {
  const ds = app!.ds;
  const root = await ds.getRepository(Account).findOneByOrFail({ id: 1 });
  const tool = await ds.getRepository(ToolProxy).save(
    ds.getRepository(ToolProxy).create({
      guid: randomUUID(),
      name: 'Bench tool',
      sharedSecretEncrypted: encryptSecret(app!.tokenKey, randomBytes(32).toString('hex')),
      capabilities: JSON.stringify(['vnd.instructure.webhooks.root_account.all']),
      contextType: 'Account',
      contextId: root.id,
      accountId: root.id,
      rootAccountId: root.id,
      createdById: null,
      workflowState: 'active',
    }),
  );
  for (let i = 0; i < n; i++) {
    await ds.getRepository(WebhookSubscription).insert(
      WebhookSubscription.draft({
        toolProxyId: tool.id,
        contextType: 'root_account',
        contextId: root.uuid,
        matchType: 'Account',
        matchId: root.id,
        rootAccountId: root.id,
        eventTypes: JSON.stringify(['grade_change']),
        format,
        transportType: 'https',
        transportUrl: url,
        developerKey: tool.developerKey,
      }),
    );
  }
}

async function handle(msg: Msg): Promise<object | undefined> {
  switch (msg.type) {
    case 'start': {
      config = loadConfig(msg.env!);
      app = (await prepareApp(config)).app;
      const server = await buildServer(app);
      await server.fastify.listen({ port: 0, host: '127.0.0.1' });
      close = async () => {
        await dispatcher?.stop();
        await server.close();
        await app!.pubsub.close();
        await app!.ds.destroy();
      };
      return { port: (server.fastify.server.address() as AddressInfo).port, concurrency: config.WEBHOOK_CONCURRENCY, batch: config.WEBHOOK_BATCH_SIZE };
    }
    case 'seed':
      await seed(msg.subscriptions!, msg.url!, msg.format!);
      return {};
    case 'dispatch':
      if (msg.on) {
        dispatcher ??= new Dispatcher({ ds: app!.ds, config: config!, tokenKey: app!.tokenKey, pubsub: app!.pubsub } as never);
        dispatcher.start();
      } else await dispatcher?.stop();
      return {};
    case 'stats':
      return { ...dispatcher?.stats };
  }
}

answerParent<Msg>({
  handle,
  close: async () => {
    await close?.();
    close = undefined;
  },
  profileIntervalUs: 500,
});
