import type { Installation } from '../auth/installation';

interface WarnLog {
  warn(msg: string): void;
}

/**
 * What an operator must hear about the installation once the service listens: the LMS_ADMIN_TOKEN
 * state, and a generated admin token (printed once, on the console rather than in the structured
 * log, and never stored in plaintext). Said by the process that set the installation up: the single
 * server, or a cluster's primary (not by each worker).
 */
export function announceInstallation(log: WarnLog, installation: Installation, address: string): void {
  // LMS_ADMIN_TOKEN is issued once per value (src/app/bootstrap.ts): a revoked one is not brought back.
  if (installation.adminTokenState === 'revoked') log.warn('LMS_ADMIN_TOKEN was revoked (deleted, regenerated or expired) and stays so; set a new value to issue a new admin token');
  if (installation.adminTokenState === 'foreign') log.warn("LMS_ADMIN_TOKEN is another user's token and was left as it is; set a new value to issue an admin token");
  if (!installation.generatedAdminToken) return;
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
