import 'reflect-metadata';
import { prepareApp } from './bootstrap';
import { ConfigError, loadConfig } from './config';
import { buildServer } from './server';
import { Dispatcher } from './webhooks/dispatcher';

async function main(): Promise<void> {
  const config = loadConfig();
  const { app, installation } = await prepareApp(config);
  const server = await buildServer(app);
  const log = server.fastify.log;
  // Webhook deliveries from this process, unless dedicated `cli dispatch` workers do them.
  const dispatcher =
    config.WEBHOOK_DISPATCHER === 'on' ? new Dispatcher({ ds: app.ds, config, tokenKey: app.tokenKey, log: log.child({ component: 'webhooks' }) }) : null;

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'draining in-flight requests and closing websocket connections');
    try {
      await server.close();
      // In-flight deliveries finish (bounded by their timeout) and are recorded before the database closes.
      await dispatcher?.stop();
      await app.pubsub.close();
      await app.ds.destroy();
      log.info('stopped');
      process.exit(0);
    } catch (e) {
      log.error({ err: { message: (e as Error).message } }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  const address = await server.fastify.listen({ port: config.PORT, host: config.HOST });
  dispatcher?.start();
  log.info({ address, database: config.DATABASE_URL.startsWith('mysql') ? 'mysql' : 'sqlite' }, 'listening');
  // LMS_ADMIN_TOKEN is issued once per value (src/bootstrap.ts): a revoked one is not brought back.
  if (installation.adminTokenState === 'revoked') log.warn('LMS_ADMIN_TOKEN was revoked (deleted, regenerated or expired) and stays so; set a new value to issue a new admin token');
  if (installation.adminTokenState === 'foreign') log.warn("LMS_ADMIN_TOKEN is another user's token and was left as it is; set a new value to issue an admin token");
  if (installation.generatedAdminToken) {
    // Shown once, on the console rather than in the structured log, and never stored in plaintext.
    process.stdout.write(
      [
        '',
        '================================================================',
        ' Site admin access token (shown only this once; keep it safe):',
        ` ${installation.generatedAdminToken}`,
        ` Try: curl -H "Authorization: Bearer <token>" ${address}/api/v1/users/self`,
        '================================================================',
        '',
      ].join('\n'),
    );
  }
}

main().catch((e) => {
  if (e instanceof ConfigError) console.error(e.message);
  else console.error(`Failed to start: ${(e as Error).message}`);
  process.exit(1);
});
