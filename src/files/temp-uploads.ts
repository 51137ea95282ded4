import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, RequestError } from '../common/errors';
import { domainToRest, RestError } from '../api/rest/errors';
import { parsePairs, ParamTree } from '../api/rest/params';

/** A multipart file part, streamed to a temporary file under FILES_DIR/tmp (never held in memory). */
export interface UploadedFile {
  fieldname: string;
  /** The client's file name: informational only, never part of a path on disk. */
  filename: string;
  mimetype: string;
  /** The temporary file; null when the part was not kept (a route that takes no files). */
  path: string | null;
  /** Bytes received. */
  size: number;
}

/**
 * Routes opt in to receiving files: the hook keeps at most this many bytes of the file part, computed
 * from the fields sent before it (the upload route reads its signed policy, and throws a DomainError
 * to refuse the upload outright). More bytes than that end the request at once with a 400. On a route
 * without one, file parts are read and dropped, so no caller can fill the disk through an endpoint
 * that takes no files.
 */
export type UploadLimit = (fields: ParamTree) => number;

/** The largest file part any request may carry (the multipart parser's own cap, past any quota). */
export const MAX_FILE_BYTES = 500 * 1024 * 1024;
/** All the text fields of one multipart request together, as for url-encoded form bodies. */
export const MAX_FIELD_BYTES = 10 * 1024 * 1024;
/** Canvas's uploads carry one file; a second file part is refused rather than silently stored. */
const MAX_FILE_PARTS = 1;
/** Limits handed to @fastify/multipart (busboy). The hook refuses the second file itself, with a clear message. */
export const MULTIPART_LIMITS = { fileSize: MAX_FILE_BYTES, files: MAX_FILE_PARTS + 1, fields: 1000, parts: 1000 + MAX_FILE_PARTS + 1, fieldSize: MAX_FIELD_BYTES };

declare module 'fastify' {
  interface FastifyRequest {
    uploadedFiles?: UploadedFile[];
  }
  interface FastifyContextConfig {
    uploadLimit?: UploadLimit;
  }
}

export function tempDir(filesDir: string): string {
  return path.join(path.resolve(filesDir), 'tmp');
}

async function removeQuietly(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

const tooLarge = () => new RequestError('file size exceeds the size given at preflight');
const multipartTooLarge = (what: string) => new RequestError(`${what} is too large`, 413);

/**
 * Streams one file part to a temp file, registered on the request before the first byte is written
 * so the response hooks remove it whatever happens. Bytes past the route's limit are not read: the
 * request is refused there (the caller answers it and closes the connection).
 */
export async function receiveFilePart(req: FastifyRequest, part: MultipartFile, fieldsSoFar: [string, string][], filesDir: string): Promise<void> {
  const limitFn = req.routeOptions?.config?.uploadLimit;
  const file: UploadedFile = { fieldname: part.fieldname, filename: part.filename, mimetype: part.mimetype, path: null, size: 0 };
  if (!limitFn) {
    // A route that takes no files: the part is read and dropped (the parser's fileSize caps it).
    for await (const chunk of part.file as AsyncIterable<Buffer>) file.size += chunk.length;
    return;
  }
  const limit = limitFn(parsePairs(fieldsSoFar));
  (req.uploadedFiles ??= []).push(file);
  const dir = tempDir(filesDir);
  await mkdir(dir, { recursive: true });
  file.path = path.join(dir, randomUUID());
  const out = createWriteStream(file.path, { flags: 'wx', mode: 0o600 });
  try {
    // Opened before the first byte, so removing it on a refusal cannot race its creation.
    await once(out, 'ready');
    for await (const chunk of part.file as AsyncIterable<Buffer>) {
      file.size += chunk.length;
      // Leaving the loop destroys the part's stream: nothing past the declared size is read or kept.
      if (file.size > limit) throw tooLarge();
      if (!out.write(chunk)) await once(out, 'drain');
    }
    if ((part.file as { truncated?: boolean }).truncated) throw multipartTooLarge('file');
    out.end();
    await once(out, 'finish');
  } catch (e) {
    if (!out.destroyed) {
      out.destroy();
      await once(out, 'close').catch(() => undefined);
    }
    await removeQuietly(file.path);
    file.path = null;
    throw e;
  }
}

/**
 * The parser's refusals: its limits are 4xx errors with a fixed message; a body that breaks off or has
 * no boundary surfaces as a plain Error from busboy (dicer), recognised by its message. Anything else
 * (a disk error) stays an unexpected error.
 */
const MALFORMED = /terminated early due to unexpected end of multipart data|^Multipart: Boundary not found$/;
function parserRefusal(e: unknown): RestError | null {
  const err = e as { statusCode?: unknown; message?: unknown; syscall?: unknown };
  if (typeof err?.statusCode === 'number' && err.statusCode >= 400 && err.statusCode <= 499) {
    return { status: err.statusCode, body: { errors: [{ message: String(err.message) }] } };
  }
  if (e instanceof Error && err.syscall === undefined && MALFORMED.test(e.message)) {
    return { status: 400, body: { errors: [{ message: 'the multipart body is malformed' }] } };
  }
  return null;
}

/**
 * The preValidation step for multipart requests: fields go through the same Rack parsing as forms
 * (req.body); the one file part is streamed to a temp file for an upload route (req.uploadedFiles).
 * A refused request is answered here, with `Connection: close` so the rest of its body is never read;
 * returns false then, and the route does not run.
 */
export async function readMultipartBody(req: FastifyRequest, reply: FastifyReply, filesDir: string): Promise<boolean> {
  const pairs: [string, string][] = [];
  let fieldBytes = 0;
  let fileParts = 0;
  try {
    for await (const part of req.parts()) {
      if (part.type === 'field') {
        const value = String(part.value);
        fieldBytes += part.fieldname.length + value.length;
        if (part.valueTruncated || fieldBytes > MAX_FIELD_BYTES) throw multipartTooLarge('the form');
        pairs.push([part.fieldname, value]);
        continue;
      }
      if (++fileParts > MAX_FILE_PARTS) throw new RequestError('only one file may be sent per request');
      await receiveFilePart(req, part, pairs, filesDir);
    }
  } catch (e) {
    const refusal = e instanceof DomainError ? domainToRest(e) : parserRefusal(e);
    if (!refusal) throw e;
    await discardTempUploads(req);
    reply.header('Connection', 'close');
    reply.code(refusal.status).type('application/json; charset=utf-8').send(refusal.body);
    return false;
  }
  req.body = parsePairs(pairs);
  return true;
}

/** Removes whatever temp files of the request a route did not take; safe to call more than once. */
export async function discardTempUploads(req: FastifyRequest): Promise<void> {
  for (const f of req.uploadedFiles ?? []) {
    if (!f.path) continue;
    const p = f.path;
    f.path = null;
    await removeQuietly(p).catch((e) => req.log.warn({ err: { message: (e as Error).message } }, 'could not remove a temporary upload'));
  }
}
