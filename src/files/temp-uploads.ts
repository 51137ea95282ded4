import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { parsePairs, ParamTree } from '../rest/params';

/** A multipart file part, streamed to a temporary file under FILES_DIR/tmp (never held in memory). */
export interface UploadedFile {
  fieldname: string;
  /** The client's file name: informational only, never part of a path on disk. */
  filename: string;
  mimetype: string;
  /** The temporary file; null when the part was not kept (over the route's limit). */
  path: string | null;
  /** Bytes received (all of them, also when not kept). */
  size: number;
  /** More bytes arrived than the route's limit allowed: nothing was kept. */
  overLimit: boolean;
}

/**
 * Routes opt in to receiving files: the hook keeps at most this many bytes of a file part, computed
 * from the fields sent before it (the upload route reads its signed policy); 0 keeps nothing. On a
 * route without one, file parts are read and dropped, so no caller can fill the disk through an
 * endpoint that takes no files.
 */
export type UploadLimit = (fields: ParamTree) => number;

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

/** Streams one file part to a temp file, keeping at most the route's limit; registers it on the request. */
export async function receiveFilePart(req: FastifyRequest, part: MultipartFile, fieldsSoFar: [string, string][], filesDir: string): Promise<void> {
  const limitFn = req.routeOptions?.config?.uploadLimit;
  const limit = limitFn ? limitFn(parsePairs(fieldsSoFar)) : 0;
  const file: UploadedFile = { fieldname: part.fieldname, filename: part.filename, mimetype: part.mimetype, path: null, size: 0, overLimit: false };
  (req.uploadedFiles ??= []).push(file);
  if (limit <= 0) {
    for await (const chunk of part.file as AsyncIterable<Buffer>) file.size += chunk.length;
    file.overLimit = file.size > 0;
    return;
  }
  const dir = tempDir(filesDir);
  await mkdir(dir, { recursive: true });
  file.path = path.join(dir, randomUUID());
  const out = createWriteStream(file.path!, { flags: 'wx', mode: 0o600 });
  try {
    for await (const chunk of part.file as AsyncIterable<Buffer>) {
      file.size += chunk.length;
      // Past the limit the rest is read and dropped so the parser can go on to the next part.
      if (file.overLimit || file.size > limit) {
        file.overLimit = true;
        continue;
      }
      if (!out.write(chunk)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
  } catch (e) {
    out.destroy();
    await removeQuietly(file.path!);
    file.path = null;
    throw e;
  }
  if (file.overLimit) {
    await removeQuietly(file.path!);
    file.path = null;
  }
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
