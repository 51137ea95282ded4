import type { EntityManager } from 'typeorm';
import { RequestError } from '../common/errors';
import { nowToSecond } from '../db/columns';
import { transaction } from '../db/transaction';
import type { RequestContext } from '../request/context';
import { Attachment } from './attachment.entity';
import type { FileContext } from './file-context';
import { lockContextFolders } from './folders';
import { guessContentType } from './mime';
import { directUploadKey, FileStore, fileStoreFor, newStorageKey } from '../storage';
import type { UploadedFile } from './temp-uploads';

/**
 * Step 2 of the upload, the bytes, for both ways they arrive: through the service (a temp file the
 * multipart hook received, capped at the declared size) or straight into the bucket with a presigned
 * POST (found when the uploader confirms). Either way the bytes are stored under a fresh key first,
 * then one short transaction re-checks the attachment's state and the quota with the real size and
 * records the key; on any refusal the bytes are removed again, so nothing refused is kept.
 */

const HAS_BYTES = ['uploaded', 'available'] as const;
const alreadyUploaded = () => new RequestError('the file was already uploaded');
export const overQuota = () => new RequestError('file size exceeds quota');
const overDeclared = () => new RequestError('file size exceeds the size given at preflight');
const isMysql = (em: EntityManager) => em.connection.options.type !== 'better-sqlite3';

/** Bytes stored in the context (uploaded and available files), optionally leaving one file out. */
export async function usedBytes(em: EntityManager, fc: FileContext, excludeId?: number): Promise<number> {
  const qb = em
    .getRepository(Attachment)
    .createQueryBuilder('a')
    .select('COALESCE(SUM(a.size), 0)', 'total')
    .where('a.context_type = :type AND a.context_id = :id', { type: fc.type, id: fc.id })
    .andWhere('a.workflow_state IN (:...states)', { states: [...HAS_BYTES] });
  if (excludeId != null) qb.andWhere('a.id <> :exclude', { exclude: excludeId });
  const row = await qb.getRawOne<{ total: string | number | null }>();
  return Number(row?.total ?? 0);
}

/**
 * Records bytes already stored under `key` as the attachment's, in a transaction that holds the
 * context's folder lock: the attachment must still be pending (a concurrent upload of the same ticket
 * may have won) and the context's quota must hold the real size. Refused → the key is removed.
 */
async function commitStoredBytes(ctx: RequestContext, store: FileStore, att: Attachment, fc: FileContext, key: string, size: number): Promise<Attachment> {
  try {
    return await transaction(ctx.ds, async (em) => {
      await lockContextFolders(em, fc);
      const repo = em.getRepository(Attachment);
      // Read under the lock (FOR UPDATE on MySQL: the latest committed row, not the snapshot).
      const current = await repo.findOne({ where: { id: att.id }, ...(isMysql(em) ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
      if (!current || current.workflowState !== 'pending_upload') throw alreadyUploaded();
      if ((await usedBytes(em, fc, att.id)) + size > fc.quotaBytes) throw overQuota();
      att.size = size;
      att.storageKey = key;
      att.workflowState = 'uploaded';
      att.uploadedAt = nowToSecond();
      return repo.save(att);
    });
  } catch (e) {
    await store.remove(key).catch((err) => ctx.log?.warn({ err: { name: (err as Error).name } }, 'could not remove refused upload bytes'));
    throw e;
  }
}

/** A cheap quota check before moving bytes anywhere (the committing transaction checks again under lock). */
async function assertFits(ctx: RequestContext, fc: FileContext, att: Attachment, size: number): Promise<void> {
  if ((await usedBytes(ctx.ds.manager, fc, att.id)) + size > fc.quotaBytes) throw overQuota();
}

/** The proxied upload: the received temp file goes to the store, then is recorded. */
export async function storeReceivedUpload(ctx: RequestContext, att: Attachment, fc: FileContext, upload: UploadedFile & { path: string }): Promise<Attachment> {
  await assertFits(ctx, fc, att, upload.size);
  const store = fileStoreFor(ctx.app.config);
  const key = newStorageKey(att.uuid);
  try {
    await store.adoptTempFile(key, upload.path, { size: upload.size, contentType: att.contentType });
  } catch (e) {
    await store.remove(key).catch(() => undefined);
    throw e;
  }
  return commitStoredBytes(ctx, store, att, fc, key, upload.size);
}

/**
 * The presigned upload, at confirmation: the bytes the bucket took for this attachment (if any) are
 * checked against the declared size (the bucket's content-length-range already enforces it; checked
 * again for servers that ignore POST policies), copied to a fresh key and recorded. Returns the
 * attachment, `uploaded` when bytes were found and kept; unchanged when there are none yet.
 */
export async function adoptDirectUpload(ctx: RequestContext, att: Attachment, fc: FileContext): Promise<Attachment> {
  const store = fileStoreFor(ctx.app.config);
  if (store.kind !== 's3') return att;
  const source = directUploadKey(att.uuid);
  const size = await store.sizeOf(source);
  if (size == null) return att;
  const refuse = async (err: RequestError): Promise<never> => {
    await store.remove(source);
    throw err;
  };
  if (size === 0) await refuse(new RequestError('file is empty'));
  if (size > (att.size ?? 0)) await refuse(overDeclared());
  await assertFits(ctx, fc, att, size).catch((e) => (e instanceof RequestError ? refuse(e) : Promise.reject(e)));
  // The bucket knows no file name: a preflight without a name gets a plain one.
  if (!att.displayName) {
    att.displayName = 'file';
    att.filename = 'file';
  }
  if (!att.contentType) att.contentType = guessContentType(att.displayName);

  const key = newStorageKey(att.uuid);
  await store.copy(source, key);
  let saved: Attachment;
  try {
    saved = await commitStoredBytes(ctx, store, att, fc, key, size);
  } catch (e) {
    if (e instanceof RequestError && e.message === alreadyUploaded().message) {
      // A concurrent confirmation recorded it first: its row is the answer.
      return (await ctx.ds.getRepository(Attachment).findOneBy({ id: att.id })) ?? att;
    }
    if (e instanceof RequestError) await store.remove(source).catch(() => undefined);
    throw e;
  }
  await store.remove(source).catch(() => undefined);
  return saved;
}
