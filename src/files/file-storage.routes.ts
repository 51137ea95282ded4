import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DocumentNode, execute, parse } from 'graphql';
import type { Runtime } from '../request/runtime';
import { HEADER_OR_QUERY_CREDENTIAL } from '../auth/request-credential';
import { isRestError, requestContext } from '../auth/request-auth';
import { DomainError, NotFoundError } from '../common/errors';
import { createContext } from '../auth/request-context';
import { domainToRest } from '../api/rest/errors';
import type { ParamTree } from '../api/rest/params';
import { withFragments } from '../api/rest/route';
import { sendRestError } from '../api/rest/errors';
import { baseUrl } from '../api/rest/request-meta';
import { User } from '../users/user.entity';
import type { Attachment } from './attachment.entity';
import { presentFile } from './file.routes';
import { FileService } from './file.service';
import { inlineRasterType, UNKNOWN_CONTENT_TYPE } from './mime';
import { scheduleUploadSweep } from './pending-uploads';
import { StorageUnavailableError } from '../storage';
import { discardTempUploads } from './temp-uploads';

/**
 * The storage endpoints of the files area, which move bytes rather than JSON and so are not rows of
 * the GraphQL-backed route table: the upload target of step 2 (authenticated by its signed policy)
 * and the downloads. Their bookkeeping is the files service's, shared with the GraphQL mutations.
 */
const JSON_TYPE = 'application/json; charset=utf-8';
// User content is never run as a page of this origin: sandboxed, not sniffed.
const CONTENT_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'; sandbox",
  'Cache-Control': 'private, max-age=0',
};

let fileQuery: DocumentNode | undefined;

/** File JSON as the uploader sees it, through the same query and presenter as GET /api/v1/files/:id. */
async function fileJsonForUploader(app: Runtime, req: FastifyRequest, att: Attachment): Promise<unknown> {
  fileQuery ??= parse(withFragments('query($id: ID!) { file(id: $id) { ...FileJson } }'));
  const uploader = att.userId == null ? null : await app.ds.getRepository(User).findOneBy({ id: att.userId });
  const ctx = createContext({ app, viewer: uploader, baseUrl: baseUrl(req), log: req.log });
  const result = await execute({ schema: app.schema, document: fileQuery, contextValue: ctx, variableValues: { id: String(att.id) } });
  const data = result.data as { file?: Record<string, unknown> } | null | undefined;
  if (data?.file) return presentFile(data.file);
  // The file is stored; an uploader who can no longer read it still learns its id.
  return { id: att.id, uuid: att.uuid, upload_status: 'success' };
}

/** `attachment; filename="…"` with an ASCII fallback and the UTF-8 name. */
function disposition(kind: 'attachment' | 'inline', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** Seconds a client waits before retrying while the bucket is unreachable. */
const STORAGE_RETRY_AFTER_SECONDS = 5;

/** An unreachable store is a 503 with Retry-After (the log gets the error's name only); other errors go on. */
function sendStorageUnavailable(req: FastifyRequest, reply: FastifyReply, e: unknown): FastifyReply | null {
  if (!(e instanceof StorageUnavailableError)) return null;
  req.log.warn({ err: { name: e.causeName } }, 'file storage unavailable');
  return reply
    .code(503)
    .header('Retry-After', String(STORAGE_RETRY_AFTER_SECONDS))
    .type(JSON_TYPE)
    .send({ errors: [{ message: 'File storage is temporarily unavailable. Try again shortly.', error_code: 'service_unavailable' }] });
}

/**
 * What the bucket answers a redirected download with. The bucket's responses carry none of our sandbox
 * headers, and thumbnails and avatars are shown to others: only a raster image goes as itself (and
 * inline where asked); anything else (SVG, HTML …) is a download of opaque bytes, or, shown inline (an
 * SVG thumbnail), is not redirected (null) but streamed by the service with its sandbox headers.
 */
function bucketResponse(att: Attachment, kind: 'attachment' | 'inline'): { contentType: string; disposition: string } | null {
  const name = att.displayName || 'file';
  const raster = inlineRasterType(att.contentType || '');
  if (raster) return { contentType: raster, disposition: disposition(kind, name) };
  return kind === 'attachment' ? { contentType: UNKNOWN_CONTENT_TYPE, disposition: disposition('attachment', name) } : null;
}

/**
 * The bytes of a file: a redirect to a short-lived presigned URL of the bucket (S3_DOWNLOAD=redirect),
 * or streamed from the store with headers that keep user content from running as a page of ours.
 */
async function streamFile(reply: FastifyReply, files: FileService, att: Attachment, kind: 'attachment' | 'inline') {
  const contentType = att.contentType || UNKNOWN_CONTENT_TYPE;
  const contentDisposition = disposition(kind, att.displayName || 'file');
  if (!att.storageKey) return sendRestError(reply, domainToRest(new NotFoundError()));
  const fromBucket = bucketResponse(att, kind);
  const redirect = fromBucket && (await files.storage.downloadUrl(att.storageKey, fromBucket));
  // The URL carries a signature that expires soon: no cache may keep the redirect.
  if (redirect) return reply.code(302).header('Cache-Control', 'no-store').header('Location', redirect).send();
  const opened = await files.storage.open(att.storageKey);
  if (!opened) return sendRestError(reply, domainToRest(new NotFoundError()));
  reply.headers(CONTENT_HEADERS);
  reply.header('Content-Type', contentType);
  reply.header('Content-Length', String(opened.size));
  reply.header('Content-Disposition', contentDisposition);
  return reply.code(200).send(opened.stream);
}

export function registerFileStorageRoutes(fastify: FastifyInstance, app: Runtime): void {
  // Presigned uploads nobody confirmed are retired from the bucket by every process.
  scheduleUploadSweep(fastify, app);
  // Step 2: the multipart hook keeps the file only up to what the signed policy allows.
  fastify.route({
    method: 'POST',
    url: '/files_api',
    config: { uploadLimit: (fields: ParamTree) => FileService.uploadLimit(app.tokenKey, fields.Policy, fields.Signature) },
    handler: async (req, reply) => {
      reply.type(JSON_TYPE);
      const ctx = createContext({ app, viewer: null, baseUrl: baseUrl(req), log: req.log });
      const fields = (req.body && typeof req.body === 'object' ? req.body : {}) as ParamTree;
      let att: Attachment;
      try {
        att = await ctx.use(FileService).completeUpload(fields.Policy, fields.Signature, req.uploadedFiles ?? []);
      } catch (e) {
        await discardTempUploads(req);
        if (e instanceof DomainError) return sendRestError(reply, domainToRest(e));
        if (sendStorageUnavailable(req, reply, e)) return reply;
        throw e;
      }
      await discardTempUploads(req);
      // 201: the upload is finished (the file is available); Location answers its JSON again, for
      // clients that confirm anyway.
      const body = await fileJsonForUploader(app, req, att);
      reply.header('Location', `${baseUrl(req)}/api/v1/files/${att.id}/create_success?uuid=${att.uuid}`);
      return reply.code(201).send(body);
    },
  });

  // Downloads: the verifier of the file's URL, or a token of someone who may see the file.
  fastify.get('/files/:id/download', { config: { credential: HEADER_OR_QUERY_CREDENTIAL } }, async (req, reply) => {
    reply.type(JSON_TYPE);
    const query = req.query as Record<string, unknown>;
    const ctx = await requestContext(app, { token: HEADER_OR_QUERY_CREDENTIAL.token(req), requireUser: false, baseUrl: baseUrl(req), log: req.log });
    if (isRestError(ctx)) return sendRestError(reply, ctx);
    const { id } = req.params as { id: string };
    try {
      const att = await ctx.use(FileService).forDownload(id, typeof query.verifier === 'string' ? query.verifier : undefined, { recordView: true });
      return await streamFile(reply, ctx.use(FileService), att, 'attachment');
    } catch (e) {
      if (e instanceof DomainError) return sendRestError(reply, domainToRest(e));
      if (sendStorageUnavailable(req, reply, e)) return reply;
      throw e;
    }
  });

  // Image thumbnails (avatars): the image itself, addressed by id and uuid as Canvas's are.
  fastify.get('/images/thumbnails/:id/:uuid', async (req, reply) => {
    reply.type(JSON_TYPE);
    const ctx = createContext({ app, viewer: null, baseUrl: baseUrl(req), log: req.log });
    const { id, uuid } = req.params as { id: string; uuid: string };
    try {
      const att = await ctx.use(FileService).forDownload(id, uuid);
      if (!att.isImage) return sendRestError(reply, domainToRest(new NotFoundError()));
      return await streamFile(reply, ctx.use(FileService), att, 'inline');
    } catch (e) {
      if (e instanceof DomainError) return sendRestError(reply, domainToRest(e));
      if (sendStorageUnavailable(req, reply, e)) return reply;
      throw e;
    }
  });
}
