import { timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import { In, Not } from 'typeorm';
import { ForbiddenError, NotFoundError, RequestError } from '../common/errors';
import { numericId } from '../common/ids';
import { nowToSecond } from '../db/columns';
import { pagePerParent } from '../db/page-per-parent';
import { transaction } from '../db/transaction';
import { raise } from '../events/domain-events';
import type { RequestContext } from '../request/context';
import { ConnectionResult, parseAnyId } from '../common/relay';
import { Attachment } from './attachment.entity';
import { assertManageFiles, canReadFiles, FileContext, FileContextType, loadFileContext } from './file-context';
import { cleanName, renamed, safeFilename } from './file-names';
import { createUpload, CreateUploadInput, UploadTicket } from './file-preflight';
import { adoptDirectUpload, storeReceivedUpload } from './file-uploads';
import { guessContentType } from './mime';
import { assertUploadOpen } from './pending-uploads';
import { FileStore, fileStoreFor } from '../storage';
import type { UploadedFile } from './temp-uploads';
import { verifyPolicy } from './upload-policy';
import { ContentAccess } from '../content/content-access';

export type { CreateUploadInput, UploadTicket } from './file-preflight';

/** The multipart field names that carry the bytes (Canvas's local storage also takes the second). */
export const FILE_PARAMS = ['file', 'attachment[uploaded_data]'];

const invalidPolicy = () => new RequestError('Invalid or expired upload policy');

/**
 * Files of courses, groups and users: Canvas's three-step upload (preflight, bytes, confirm), reads
 * and downloads. Bytes live in the configured store (FILES_DIR or an S3 bucket); rows in `attachments`.
 */
export class FileService {
  constructor(private readonly ctx: RequestContext) {}

  get storage(): FileStore {
    return fileStoreFor(this.ctx.app.config);
  }

  // ---- step 1: preflight (src/files/file-preflight.ts) ----------------------------------------

  /** POST /api/v1/{groups|courses|users}/:id/files: a pending attachment and a signed upload ticket. */
  createUpload(input: CreateUploadInput): Promise<UploadTicket> {
    return createUpload(this.ctx, input);
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
   * are not kept (src/files/file-uploads.ts). The file is then available at once: Canvas's protocol
   * reads a 201 at step 2 as a finished upload, and clients (canvasapi among them) stop there. A later
   * create_success finds it available and only answers its JSON.
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

    return this.makeAvailable(await storeReceivedUpload(this.ctx, att, fc, { ...upload, path: upload.path }));
  }

  // ---- step 3: confirm ----------------------------------------------------------------------

  /**
   * GET/POST /api/v1/files/:id/create_success?uuid=…: the upload becomes the available file. As in
   * Canvas, the id with its uuid (122 random bits, handed only to the uploader at preflight) is the
   * credential: a bucket's success_action_redirect is followed without the caller's token. A signed-in
   * caller still confirms only their own upload, and keeps needing the right to manage the files.
   */
  async confirm(rawId: string, uuid: string | null | undefined): Promise<{ file: Attachment }> {
    const viewer = this.ctx.viewer;
    const found = await this.ctx.loaders.byId(Attachment).load(numericId(rawId));
    if (!found || found.workflowState === 'deleted' || !uuid || !sameSecret(found.uuid, uuid)) throw new NotFoundError();
    if (viewer && found.userId !== viewer.id) throw new NotFoundError();
    const fc = await loadFileContext(this.ctx, found.contextType, found.contextId);
    if (!fc) throw new NotFoundError();
    if (viewer) await assertManageFiles(this.ctx, fc);
    if (found.workflowState === 'available') return { file: found };
    assertUploadOpen(this.ctx.app.config, found);
    // With presigned uploads the bytes went to the bucket: this is where they are checked and kept.
    const att = found.workflowState === 'pending_upload' ? await adoptDirectUpload(this.ctx, found, fc) : found;
    if (att.workflowState === 'available') return { file: att };
    if (att.workflowState !== 'uploaded') throw new RequestError('the file has not been uploaded');
    return { file: await this.makeAvailable(att) };
  }

  /** Stored bytes become the available file, replacing or renaming around a same-named one (on_duplicate). */
  private async makeAvailable(att: Attachment): Promise<Attachment> {
    const replaced: string[] = [];
    const file = await transaction(this.ctx.ds, async (em) => {
      const repo = em.getRepository(Attachment);
      const siblings = await repo.find({ where: { folderId: att.folderId, workflowState: 'available', id: Not(att.id) }, select: { id: true, displayName: true, storageKey: true } });
      const clashing = siblings.filter((s) => s.displayName === att.displayName);
      if (clashing.length && att.onDuplicate === 'rename') {
        att.displayName = renamed(att.displayName, new Set(siblings.map((s) => s.displayName)));
        att.filename = safeFilename(att.displayName);
      } else if (clashing.length) {
        const gone = clashing.map((c) => c.id);
        await repo.update({ id: In(gone) }, { workflowState: 'deleted', deletedAt: nowToSecond(), updatedAt: nowToSecond(), replacementAttachmentId: att.id });
        // What those had replaced points on to this one (always in this folder: read through its index).
        await repo.update({ folderId: att.folderId, replacementAttachmentId: In(gone) }, { replacementAttachmentId: att.id });
        // An overwritten course file is replaced, then deleted: what linked it (module items) follows
        // the new file, as Canvas repoints the content tags of an overwritten attachment.
        if (att.contextType === 'Course') {
          for (const c of clashing) {
            await raise(em, this.ctx, { type: 'content.replaced', courseId: att.contextId, contentType: 'File', contentId: c.id, replacementId: att.id });
            await raise(em, this.ctx, { type: 'content.changed', courseId: att.contextId, contentType: 'File', contentId: c.id, change: 'deleted' });
          }
        }
        for (const c of clashing) if (c.storageKey) replaced.push(c.storageKey);
      }
      att.workflowState = 'available';
      return repo.save(att);
    });
    // Overwritten files are gone for good: their bytes go once the replacement is committed.
    for (const key of replaced) await this.storage.remove(key).catch(() => undefined);
    return file;
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
    let ref = raw;
    if (courseRaw != null) {
      const course = await this.ctx.use(ContentAccess).readableCourse(courseRaw);
      const found = await this.ofCourse(raw, course.id);
      if (!found) throw new NotFoundError();
      ref = found.id;
    }
    const att = await this.show(ref);
    await this.recordView(att);
    return att;
  }

  /**
   * A file of the course by id. An overwritten file's id finds the file that replaced it, as Canvas's
   * lookups within a context do, so links written before an upload of the same name keep working.
   */
  private async ofCourse(raw: string | number, courseId: number): Promise<Attachment | null> {
    const id = parseAnyId(raw, 'File');
    let att = id == null ? null : await this.ctx.loaders.byId(Attachment).load(id);
    if (att?.workflowState === 'deleted' && att.replacementAttachmentId != null) att = await this.ctx.loaders.byId(Attachment).load(att.replacementAttachmentId);
    return att && att.contextType === 'Course' && att.contextId === courseId ? att : null;
  }

  /** A student's view of an available course file, for module progress; nothing for anyone else. */
  private async recordView(att: Attachment): Promise<void> {
    if (att.contextType !== 'Course' || att.workflowState !== 'available' || !this.ctx.viewer) return;
    const fc = await loadFileContext(this.ctx, att.contextType, att.contextId);
    if (fc?.course) await this.ctx.use(ContentAccess).recordView(fc.course, 'File', att.id);
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
    const pages = await pagePerParent(qb, 'context_id', [['display_name', 'ASC'], ['id', 'ASC']], fcs.filter((_, i) => readable[i]).map((fc) => fc.id), args);
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

/** Compares a stored secret with a presented one without leaking, through timing, how much of it matched. */
function sameSecret(stored: string, given: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
