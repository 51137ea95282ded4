import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { EntityManager, In, Not } from 'typeorm';
import { ForbiddenError, NotFoundError, RequestError, Validator } from '../common/errors';
import { numericId } from '../common/ids';
import { nowToSecond } from '../db/columns';
import { pagePerParent } from '../db/page-per-parent';
import { transaction } from '../db/transaction';
import { raise } from '../events/domain-events';
import type { RequestContext } from '../graphql/context';
import { ConnectionResult, pageWindow, parseAnyId } from '../graphql/relay';
import { Attachment, OnDuplicate } from './attachment.entity';
import { assertManageFiles, canReadFiles, FileContext, FileContextType, isFileContextType, loadFileContext, lookupFileContext } from './file-context';
import { adoptDirectUpload, storeReceivedUpload, usedBytes } from './file-uploads';
import { folderAtPath, folderOfContext, fullNameFits, lockContextFolders, parseFolderPath } from './folders';
import { CONTENT_TYPE_FORMAT, guessContentType } from './mime';
import { assertUploadOpen, presignedUploads, reservePendingUpload, retireExpiredUploads, uploadExpiresAt } from './pending-uploads';
import { directUploadKey, FileStore, fileStoreFor } from './storage';
import type { UploadedFile } from './temp-uploads';
import { POLICY_TTL_MS, signPolicy, verifyPolicy } from './upload-policy';

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

/** The multipart field names that carry the bytes (Canvas's local storage also takes the second). */
export const FILE_PARAMS = ['file', 'attachment[uploaded_data]'];
const ON_DUPLICATE: OnDuplicate[] = ['overwrite', 'rename'];
const CONTROL = /[\u0000-\u001f\u007f]/g;

/** A client-given name as a display name: control characters out, trimmed; '' when nothing is left. */
function cleanName(raw: string | null | undefined): string {
  return (raw ?? '').replace(CONTROL, '').trim();
}

/** A display name made safe as a file name (the disk path never uses it). */
function safeFilename(displayName: string): string {
  return displayName.replace(/[/\\]/g, '_').slice(0, 255) || 'file';
}

const invalidPolicy = () => new RequestError('Invalid or expired upload policy');

/** `notes.txt` → `notes-1.txt`, `notes-2.txt` … until a name is free. */
function renamed(name: string, taken: Set<string>): string {
  const dot = name.lastIndexOf('.');
  const [base, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let i = 1; ; i++) {
    const candidate = `${base}-${i}${ext}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/**
 * Files of courses, groups and users: Canvas's three-step upload (preflight, bytes, confirm), reads
 * and downloads. Bytes live in the configured store (FILES_DIR or an S3 bucket); rows in `attachments`.
 */
export class FileService {
  constructor(private readonly ctx: RequestContext) {}

  get storage(): FileStore {
    return fileStoreFor(this.ctx.app.config);
  }

  // ---- step 1: preflight --------------------------------------------------------------------

  /** POST /api/v1/{groups|courses|users}/:id/files: a pending attachment and a signed upload ticket. */
  async createUpload(input: CreateUploadInput): Promise<UploadTicket> {
    if (!isFileContextType(input.contextType)) throw new NotFoundError();
    const fc = await lookupFileContext(this.ctx, input.contextType, input.contextId);
    await assertManageFiles(this.ctx, fc);
    const viewer = this.ctx.authz.requireViewer();

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
    if ((await usedBytes(this.ctx.ds.manager, fc)) + size > fc.quotaBytes) throw new RequestError('file size exceeds quota');
    // Presigned: bytes reach the bucket unseen, so pending sizes are reserved (src/files/pending-uploads.ts).
    const presigned = presignedUploads(this.ctx.app.config);
    if (presigned) await retireExpiredUploads(this.ctx.ds, this.ctx.app.config, this.ctx.log, fc);

    const file = await transaction(this.ctx.ds, async (em) => {
      if (presigned) {
        await lockContextFolders(em, fc);
        await reservePendingUpload(em, this.ctx.app.config, fc, viewer.id, size);
      }
      const folder = folderId != null ? await folderOfContext(em, fc, folderId) : await folderAtPath(em, fc, segments);
      return this.insertAttachment(em, fc, {
        folderId: folder.id,
        userId: viewer.id,
        displayName,
        // Without a name the type is guessed from the uploaded file's name in step 2.
        contentType: declaredType ?? (displayName ? guessContentType(displayName) : ''),
        size,
        onDuplicate,
      });
    });

    const expiresAt = presigned ? uploadExpiresAt(this.ctx.app.config, file.createdAt) : Date.now() + POLICY_TTL_MS;
    // S3_UPLOAD=presigned: step 2 goes straight to the bucket, which redirects the client to step 3.
    const direct = await this.storage.directUpload(directUploadKey(file.uuid), {
      size,
      contentType: file.contentType,
      redirectUrl: `${this.ctx.baseUrl}/api/v1/files/${file.id}/create_success?uuid=${file.uuid}`,
      expiresAt,
    });
    if (direct) return { file, uploadUrl: direct.url, uploadParams: direct.fields.map(([name, value]) => ({ name, value })), fileParam: 'file' };
    const policy = signPolicy(this.ctx.app.tokenKey, { attachmentId: file.id, uuid: file.uuid, expiresAt, maxBytes: size });
    return {
      file,
      uploadUrl: `${this.ctx.baseUrl}/files_api`,
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
  private async insertAttachment(
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
    await raise(em, this.ctx, { type: 'attachment.created', contextType: fc.type, contextId: fc.id, attachmentId: saved.id, userId: fields.userId });
    return saved;
  }

  // ---- step 2: the bytes --------------------------------------------------------------------

  /**
   * The byte limit the multipart hook applies to the file part: the size declared at preflight. Without
   * a valid policy in the fields before the file the upload is refused before any byte is read.
   */
  static uploadLimit(secret: string, policy: unknown, signature: unknown): number {
    const p = verifyPolicy(secret, policy, signature);
    if (!p) throw invalidPolicy();
    return p.maxBytes;
  }

  /**
   * POST <upload_url>: the signed policy authenticates (no viewer). Hands the received temp file to the
   * store, re-checking the declared size and the quota with the real size; on any refusal the bytes
   * are not kept (src/files/file-uploads.ts).
   */
  async completeUpload(encodedPolicy: unknown, signature: unknown, files: UploadedFile[]): Promise<Attachment> {
    const policy = verifyPolicy(this.ctx.app.tokenKey, encodedPolicy, signature);
    if (!policy) throw invalidPolicy();
    const repo = this.ctx.ds.getRepository(Attachment);
    const att = await repo.findOneBy({ id: policy.attachmentId });
    if (!att || att.uuid !== policy.uuid || att.workflowState === 'deleted') throw invalidPolicy();
    if (att.workflowState !== 'pending_upload') throw new RequestError('the file was already uploaded');
    const fc = await loadFileContext(this.ctx, att.contextType, att.contextId);
    if (!fc) throw invalidPolicy();

    const upload = files.find((f) => FILE_PARAMS.includes(f.fieldname));
    if (!upload) throw new RequestError('file is missing');
    if (upload.size > policy.maxBytes) throw new RequestError('file size exceeds the size given at preflight');
    if (upload.size === 0) throw new RequestError('file is empty');
    if (!upload.path) throw new RequestError('file is missing');

    if (!att.displayName) {
      att.displayName = cleanName(path.win32.basename(upload.filename ?? '')).slice(0, 255) || 'file';
      att.filename = safeFilename(att.displayName);
    }
    if (!att.contentType) att.contentType = guessContentType(att.displayName);

    return storeReceivedUpload(this.ctx, att, fc, { ...upload, path: upload.path });
  }

  // ---- step 3: confirm ----------------------------------------------------------------------

  /** GET/POST /api/v1/files/:id/create_success?uuid=…: the uploader makes the file available. */
  async confirm(rawId: string, uuid: string | null | undefined): Promise<{ file: Attachment }> {
    const viewer = this.ctx.authz.requireViewer();
    const found = await this.ctx.loaders.byId(Attachment).load(numericId(rawId));
    if (!found || found.workflowState === 'deleted' || !uuid || found.uuid !== uuid || found.userId !== viewer.id) throw new NotFoundError();
    const fc = await loadFileContext(this.ctx, found.contextType, found.contextId);
    if (!fc) throw new NotFoundError();
    await assertManageFiles(this.ctx, fc);
    if (found.workflowState === 'available') return { file: found };
    assertUploadOpen(this.ctx.app.config, found);
    // With presigned uploads the bytes went to the bucket: this is where they are checked and kept.
    const att = found.workflowState === 'pending_upload' ? await adoptDirectUpload(this.ctx, found, fc) : found;
    if (att.workflowState === 'available') return { file: att };
    if (att.workflowState !== 'uploaded') throw new RequestError('the file has not been uploaded');

    const replaced: string[] = [];
    const file = await transaction(this.ctx.ds, async (em) => {
      const repo = em.getRepository(Attachment);
      const siblings = await repo.find({ where: { folderId: att.folderId, workflowState: 'available', id: Not(att.id) }, select: { id: true, displayName: true, storageKey: true } });
      const clashing = siblings.filter((s) => s.displayName === att.displayName);
      if (clashing.length && att.onDuplicate === 'rename') {
        att.displayName = renamed(att.displayName, new Set(siblings.map((s) => s.displayName)));
        att.filename = safeFilename(att.displayName);
      } else if (clashing.length) {
        await repo.update({ id: In(clashing.map((c) => c.id)) }, { workflowState: 'deleted', deletedAt: nowToSecond(), updatedAt: nowToSecond() });
        for (const c of clashing) if (c.storageKey) replaced.push(c.storageKey);
      }
      att.workflowState = 'available';
      return repo.save(att);
    });
    // Overwritten files are gone for good: their bytes go once the replacement is committed.
    for (const key of replaced) await this.storage.remove(key).catch(() => undefined);
    return { file };
  }

  // ---- reads --------------------------------------------------------------------------------

  /**
   * A file the viewer may see: its context is readable to them, and it is available (or still being
   * uploaded by them). 404 when missing; 403 when the context is not theirs to read.
   */
  async show(raw: string | number): Promise<Attachment> {
    const att = await this.ctx.loaders.byId(Attachment).load(numericId(raw));
    if (!att || att.workflowState === 'deleted') throw new NotFoundError();
    const fc = await loadFileContext(this.ctx, att.contextType, att.contextId);
    if (!fc) throw new NotFoundError();
    const viewer = this.ctx.authz.requireViewer();
    if (att.workflowState !== 'available' && att.userId !== viewer.id) throw new NotFoundError();
    if (!(await canReadFiles(this.ctx, fc))) throw new ForbiddenError();
    return att;
  }

  /**
   * GET of a file's metadata (GET /api/v1/files/:id, or under its course with `courseRaw`: a file of
   * another context is then 404). A student of the file's course opening it has viewed it (module
   * must_view requirements on File items).
   */
  async open(raw: string | number, courseRaw?: string | null): Promise<Attachment> {
    if (courseRaw != null) {
      const course = await this.ctx.services.contentAccess.readableCourse(courseRaw);
      const id = parseAnyId(raw, 'File');
      const att = id == null ? null : await this.ctx.loaders.byId(Attachment).load(id);
      if (!att || att.contextType !== 'Course' || att.contextId !== course.id) throw new NotFoundError();
    }
    const att = await this.show(raw);
    await this.recordView(att);
    return att;
  }

  /** A student's view of an available course file, for module progress; nothing for anyone else. */
  private async recordView(att: Attachment): Promise<void> {
    if (att.contextType !== 'Course' || att.workflowState !== 'available' || !this.ctx.viewer) return;
    const fc = await loadFileContext(this.ctx, att.contextType, att.contextId);
    if (fc?.course) await this.ctx.services.contentAccess.recordView(fc.course, 'File', att.id);
  }

  /** Available files of a context, by name (Group.filesConnection, GET /groups/:id/files). */
  /** Available files of a context by name. Batched across contexts of one type (listForContexts). */
  listForContext(fc: FileContext, args: { first?: number | null; after?: string | null }): Promise<ConnectionResult<Attachment>> {
    this.ctx.authz.requireViewer();
    return this.ctx.loaders.perParent(`files:${fc.type}`, args, (fcs: readonly FileContext[]) => this.listForContexts(fcs, args)).load(fc);
  }

  /** One page of files per context (all of one type) in one statement pair; a context whose files the viewer may not read is refused alone. */
  async listForContexts(fcs: readonly FileContext[], args: { first?: number | null; after?: string | null }): Promise<(ConnectionResult<Attachment> | Error)[]> {
    const readable = await Promise.all(fcs.map((fc) => canReadFiles(this.ctx, fc)));
    const qb = this.ctx.ds
      .getRepository(Attachment)
      .createQueryBuilder('a')
      .where('a.context_type = :type AND a.workflow_state = :available', { type: fcs[0]?.type, available: 'available' });
    const pages = await pagePerParent(qb, 'context_id', [['display_name', 'ASC'], ['id', 'ASC']], fcs.filter((_, i) => readable[i]).map((fc) => fc.id), pageWindow(args));
    return fcs.map((fc, i) => (readable[i] ? pages.get(fc.id)! : new ForbiddenError()));
  }

  /**
   * A file to stream: with the right `verifier` (its uuid, as Canvas's download URLs carry) anyone
   * may fetch it; without one the caller must be able to see it. A download by a signed-in student
   * of the file's course counts as viewing it, as opening its metadata does.
   */
  async forDownload(rawId: string, verifier: string | undefined, opts: { recordView?: boolean } = {}): Promise<Attachment> {
    const att = /^\d{1,15}$/.test(rawId) ? await this.ctx.loaders.byId(Attachment).load(Number(rawId)) : null;
    if (!att || att.workflowState !== 'available' || !att.storageKey) throw new NotFoundError();
    if (verifier !== undefined) {
      if (verifier !== att.uuid) throw new NotFoundError();
    } else await this.show(att.id);
    if (opts.recordView) await this.recordView(att);
    return att;
  }

  /** An available image file of the context (for thumbnails and avatars); null otherwise. */
  async imageOf(contextType: FileContextType, contextId: number, raw: string | number): Promise<Attachment | null> {
    const id = parseAnyId(raw, 'File');
    if (id == null) return null;
    const att = await this.ctx.loaders.byId(Attachment).load(id);
    if (!att || att.contextType !== contextType || att.contextId !== contextId || att.workflowState !== 'available' || !att.isImage) return null;
    return att;
  }

  // ---- URLs ---------------------------------------------------------------------------------

  downloadUrl(att: Attachment): string {
    return `${this.ctx.baseUrl}/files/${att.id}/download?download_frd=1&verifier=${att.uuid}`;
  }

  /** Images only, as Canvas: the image itself (no resizing here). */
  thumbnailUrl(att: Attachment): string | null {
    return att.isImage ? `${this.ctx.baseUrl}/images/thumbnails/${att.id}/${att.uuid}` : null;
  }
}
