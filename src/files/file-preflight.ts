import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { NotFoundError, RequestError, Validator } from '../common/errors';
import { transaction } from '../db/transaction';
import { raise } from '../events/domain-events';
import type { RequestContext } from '../request/context';
import { parseAnyId } from '../common/relay';
import { Attachment, OnDuplicate } from './attachment.entity';
import { assertManageFiles, FileContext, isFileContextType, lookupFileContext } from './file-context';
import { cleanName, safeFilename } from './file-names';
import { usedBytes } from './file-uploads';
import { folderAtPath, folderOfContext, fullNameFits, lockContextFolders, parseFolderPath } from './folders';
import { CONTENT_TYPE_FORMAT, guessContentType } from './mime';
import { presignedUploads, reservePendingUpload, retireExpiredUploads, uploadExpiresAt } from './pending-uploads';
import { directUploadKey, fileStoreFor } from '../storage';
import { POLICY_TTL_MS, signPolicy } from './upload-policy';

/**
 * Step 1 of Canvas's three-step upload (the preflight), for the files service: checks, the pending
 * attachment, and the ticket step 2 posts with (to the service, or a presigned POST to the bucket).
 */
export interface CreateUploadInput {
  contextType: string;
  contextId: string;
  name?: string | null;
  size?: number | null;
  contentType?: string | null;
  parentFolderId?: string | null;
  parentFolderPath?: string | null;
  onDuplicate?: string | null;
}

export interface UploadTicket {
  file: Attachment;
  uploadUrl: string;
  uploadParams: { name: string; value: string }[];
  fileParam: string;
}

const ON_DUPLICATE: OnDuplicate[] = ['overwrite', 'rename'];

/** POST /api/v1/{groups|courses|users}/:id/files: a pending attachment and a signed upload ticket. */
export async function createUpload(ctx: RequestContext, input: CreateUploadInput): Promise<UploadTicket> {
  if (!isFileContextType(input.contextType)) throw new NotFoundError();
  const fc = await lookupFileContext(ctx, input.contextType, input.contextId);
  await assertManageFiles(ctx, fc);
  const viewer = ctx.authz.requireViewer();

  if (input.parentFolderId != null && input.parentFolderPath != null) throw new RequestError("Can't set folder path and folder id");
  const onDuplicate = (input.onDuplicate ?? 'overwrite') as OnDuplicate;
  if (!ON_DUPLICATE.includes(onDuplicate)) throw new RequestError('invalid on_duplicate option');

  const v = new Validator();
  const displayName = cleanName(input.name);
  v.check(displayName.length <= 255, 'name', 'too_long', 'name is too long (maximum is 255 characters)');
  // The size is required: it is checked against the quota here and caps the bytes step 2 will read.
  if (input.size == null) v.add('size', 'required', 'size is required');
  else v.check(Number.isSafeInteger(input.size) && input.size >= 0, 'size', 'invalid', 'size must be a whole number of bytes');
  const declaredType = input.contentType?.trim() || null;
  if (declaredType != null) {
    v.check(declaredType.length <= 255 && CONTENT_TYPE_FORMAT.test(declaredType), 'content_type', 'invalid', 'content_type must look like type/subtype');
  }
  let segments: string[] = [];
  if (input.parentFolderPath != null) {
    const parsed = parseFolderPath(input.parentFolderPath);
    if (!parsed) v.add('parent_folder_path', 'invalid', 'parent_folder_path has an invalid folder name');
    else if (!fullNameFits(fc, parsed)) v.add('parent_folder_path', 'too_long', 'parent_folder_path is too long');
    else segments = parsed;
  }
  let folderId: number | null = null;
  if (input.parentFolderId != null) {
    folderId = parseAnyId(input.parentFolderId, 'Folder');
    if (folderId == null) throw new NotFoundError();
  }
  v.throwIfInvalid();

  const size = input.size!;
  if ((await usedBytes(ctx.ds.manager, fc)) + size > fc.quotaBytes) throw new RequestError('file size exceeds quota');
  // Presigned: bytes reach the bucket unseen, so pending sizes are reserved (src/files/pending-uploads.ts).
  const presigned = presignedUploads(ctx.app.config);
  if (presigned) await retireExpiredUploads(ctx.ds, ctx.app.config, ctx.log, fc);

  const file = await transaction(ctx.ds, async (em) => {
    if (presigned) {
      await lockContextFolders(em, fc);
      await reservePendingUpload(em, ctx.app.config, fc, viewer.id, size);
    }
    const folder = folderId != null ? await folderOfContext(em, fc, folderId) : await folderAtPath(em, fc, segments);
    return insertAttachment(ctx, em, fc, {
      folderId: folder.id,
      userId: viewer.id,
      displayName,
      // Without a name the type is guessed from the uploaded file's name in step 2.
      contentType: declaredType ?? (displayName ? guessContentType(displayName) : ''),
      size,
      onDuplicate,
    });
  });

  const expiresAt = presigned ? uploadExpiresAt(ctx.app.config, file.createdAt) : Date.now() + POLICY_TTL_MS;
  // S3_UPLOAD=presigned: step 2 goes straight to the bucket, which redirects the client to step 3.
  const direct = await fileStoreFor(ctx.app.config).directUpload(directUploadKey(file.uuid), {
    size,
    contentType: file.contentType,
    redirectUrl: `${ctx.baseUrl}/api/v1/files/${file.id}/create_success?uuid=${file.uuid}`,
    expiresAt,
  });
  if (direct) return { file, uploadUrl: direct.url, uploadParams: direct.fields.map(([name, value]) => ({ name, value })), fileParam: 'file' };
  const policy = signPolicy(ctx.app.tokenKey, { attachmentId: file.id, uuid: file.uuid, expiresAt, maxBytes: size });
  return {
    file,
    uploadUrl: `${ctx.baseUrl}/files_api`,
    uploadParams: [
      { name: 'Filename', value: displayName },
      { name: 'content-type', value: file.contentType },
      { name: 'Policy', value: policy.Policy },
      { name: 'Signature', value: policy.Signature },
    ],
    fileParam: 'file',
  };
}

/**
 * The one place an attachment row is created (Canvas fires `attachment_created` here, at preflight
 * for local storage): a domain event belongs in this transaction when the outbox arrives.
 */
async function insertAttachment(
  ctx: RequestContext,
  em: EntityManager,
  fc: FileContext,
  fields: { folderId: number; userId: number; displayName: string; contentType: string; size: number | null; onDuplicate: OnDuplicate },
): Promise<Attachment> {
  const repo = em.getRepository(Attachment);
  const saved = await repo.save(
    repo.create({
      contextType: fc.type,
      contextId: fc.id,
      rootAccountId: fc.rootAccountId,
      folderId: fields.folderId,
      userId: fields.userId,
      displayName: fields.displayName,
      filename: fields.displayName ? safeFilename(fields.displayName) : '',
      contentType: fields.contentType,
      size: fields.size,
      uuid: randomUUID(),
      storageKey: null,
      onDuplicate: fields.onDuplicate,
      workflowState: 'pending_upload',
      uploadedAt: null,
      deletedAt: null,
    }),
  );
  await raise(em, ctx, { type: 'attachment.created', contextType: fc.type, contextId: fc.id, attachmentId: saved.id, userId: fields.userId });
  return saved;
}
