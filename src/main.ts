import 'reflect-metadata';
import { prepareApp } from './bootstrap';
import { ConfigError, loadConfig } from './config';
import { buildServer } from './server';

async function main(): Promise<void> {
  const config = loadConfig();
  const { app, installation } = await prepareApp(config);
  const server = await buildServer(app);
  const log = server.fastify.log;

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'draining in-flight requests and closing websocket connections');
    try {
      await server.close();
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
  log.info({ address, database: config.DATABASE_URL.startsWith('mysql') ? 'mysql' : 'sqlite' }, 'listening');
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
