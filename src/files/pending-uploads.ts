import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { DataSource, EntityManager } from 'typeorm';
import type { Runtime } from '../request/runtime';
import { RequestError } from '../common/errors';
import type { Config } from '../config';
import { nowToSecond } from '../db/columns';
import { transaction } from '../db/transaction';
import { Attachment } from './attachment.entity';
import type { FileContext } from './file-context';
import { overQuota, usedBytes } from './file-uploads';
import { directUploadKey, fileStoreFor } from '../storage';

/**
 * Presigned uploads (S3_UPLOAD=presigned) put bytes in the bucket that the service only sees when the
 * uploader confirms. Unchecked, a student could preflight again and again and park any amount under
 * `uploads/<uuid>` without ever confirming (twenty 4 MiB preflights against a 50 MiB quota once
 * stored 80 MiB). So, with presigned uploads only (proxied bytes are counted as they arrive):
 * - every pending preflight's declared size is reserved against its context's quota until it is
 *   confirmed or retired;
 * - one user has at most S3_UPLOAD_MAX_PENDING unconfirmed preflights per context;
 * - a preflight expires with its presigned POST (S3_UPLOAD_EXPIRY_SECONDS): create_success refuses it,
 *   and it is retired (its object deleted from the bucket, its row marked deleted) by the next preflight
 *   in its context and by a sweep every process runs at start and every minute.
 */

/** How often each process looks for expired preflights to retire. */
export const SWEEP_INTERVAL_MS = 60_000;
/**
 * Retired this long after expiry, not at once: the bucket's clock may trail ours (it enforces the POST's
 * expiry), and a confirmation that began just before expiry may still be copying the bytes.
 */
const RETIRE_GRACE_MS = 60_000;
/** Rows per sweep statement, and statements per sweep (the next sweep goes on). */
const SWEEP_BATCH = 100;
const SWEEP_ROUNDS = 20;

type Log = Pick<FastifyBaseLogger, 'warn'> | undefined;

export function presignedUploads(config: Config): boolean {
  return config.FILES_STORAGE === 's3' && config.S3_UPLOAD === 'presigned';
}

/** When a presigned preflight made at `createdAt` stops taking bytes (epoch ms). */
export function uploadExpiresAt(config: Config, createdAt: Date): number {
  return createdAt.getTime() + config.S3_UPLOAD_EXPIRY_SECONDS * 1000;
}

/** At create_success: an expired presigned preflight is not confirmed (its reservation has lapsed). */
export function assertUploadOpen(config: Config, att: Attachment): void {
  if (presignedUploads(config) && att.workflowState === 'pending_upload' && Date.now() >= uploadExpiresAt(config, att.createdAt)) {
    throw new RequestError('the upload has expired; start it again');
  }
}

/**
 * At preflight, inside its transaction: the context's folder lock is held (lockContextFolders), so
 * concurrent preflights of one context reserve one after another. Refuses a user's preflight past the
 * cap, and a size that does not fit in the quota less what is stored and what is reserved.
 */
export async function reservePendingUpload(em: EntityManager, config: Config, fc: FileContext, userId: number, size: number): Promise<void> {
  if (!presignedUploads(config)) return;
  const row = await em
    .getRepository(Attachment)
    .createQueryBuilder('a')
    .select('COALESCE(SUM(a.size), 0)', 'reserved')
    .addSelect('COALESCE(SUM(CASE WHEN a.user_id = :user THEN 1 ELSE 0 END), 0)', 'mine')
    .where('a.context_type = :type AND a.context_id = :id AND a.workflow_state = :pending', { type: fc.type, id: fc.id, pending: 'pending_upload', user: userId })
    .getRawOne<{ reserved: string | number | null; mine: string | number | null }>();
  const max = config.S3_UPLOAD_MAX_PENDING;
  if (Number(row?.mine ?? 0) >= max) {
    throw new RequestError(`too many uploads are pending: confirm or wait for earlier ones (at most ${max} at a time)`);
  }
  if ((await usedBytes(em, fc)) + Number(row?.reserved ?? 0) + size > fc.quotaBytes) throw overQuota();
}

/**
 * Retires expired presigned preflights (of one context, or all): the object first, then the row, so a
 * failure in between leaves a row the next sweep retries rather than an object nothing points at. The
 * row changes only while still pending (a confirmation that won keeps its file). Never throws: a
 * bucket that cannot be reached is logged and the rows wait for the next sweep (still reserved).
 */
export async function retireExpiredUploads(ds: DataSource, config: Config, log: Log, fc?: FileContext): Promise<number> {
  if (!presignedUploads(config)) return 0;
  const store = fileStoreFor(config);
  const cutoff = new Date(Date.now() - config.S3_UPLOAD_EXPIRY_SECONDS * 1000 - RETIRE_GRACE_MS);
  let retired = 0;
  try {
    for (let round = 0; round < SWEEP_ROUNDS; round++) {
      const qb = ds
        .getRepository(Attachment)
        .createQueryBuilder('a')
        .select(['a.id', 'a.uuid'])
        .where('a.workflow_state = :pending AND a.created_at < :cutoff', { pending: 'pending_upload', cutoff });
      if (fc) qb.andWhere('a.context_type = :type AND a.context_id = :id', { type: fc.type, id: fc.id });
      const rows = await qb.orderBy('a.id', 'ASC').limit(SWEEP_BATCH).getMany();
      for (const r of rows) {
        await store.remove(directUploadKey(r.uuid));
        const now = nowToSecond();
        const done = await transaction(ds, (em) =>
          em.getRepository(Attachment).update({ id: r.id, workflowState: 'pending_upload' }, { workflowState: 'deleted', deletedAt: now, updatedAt: now }),
        );
        retired += done.affected ?? 0;
      }
      if (rows.length < SWEEP_BATCH) break;
    }
  } catch (e) {
    log?.warn({ err: { name: (e as Error).name } }, 'could not retire expired presigned uploads');
  }
  return retired;
}

/** The sweep of every process with presigned uploads: once when the server is ready, then every minute. */
export function scheduleUploadSweep(fastify: FastifyInstance, app: Runtime): void {
  if (!presignedUploads(app.config)) return;
  const log = fastify.log.child({ component: 'files' });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | null = null;
  const sweep = () => {
    running ??= retireExpiredUploads(app.ds, app.config, log).finally(() => (running = null));
  };
  fastify.addHook('onReady', async () => {
    sweep();
    timer = setInterval(sweep, SWEEP_INTERVAL_MS);
    timer.unref();
  });
  // Before the store and the database close.
  fastify.addHook('onClose', async () => {
    clearInterval(timer);
    await running;
  });
}
