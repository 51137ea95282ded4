import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';

/**
 * Where file bytes live, behind one interface: the local directory (FILES_DIR, the embedded default)
 * or an S3-compatible bucket (FILES_STORAGE=s3), so any instance can serve what another received.
 * Keys are ours (from the attachment's uuid), never built from anything a client sends.
 */
export interface FileStore {
  readonly kind: 'local' | 's3';
  /** Stores a received temp file under `key`; the temp file may be moved away (the caller removes what is left). */
  adoptTempFile(key: string, tempPath: string, meta: ObjectMeta): Promise<void>;
  /** Stores bytes from a stream or buffer of exactly `meta.size` bytes under `key`. */
  put(key: string, body: Readable | Buffer, meta: ObjectMeta): Promise<void>;
  /** The bytes and their size; null when nothing is stored under the key. */
  open(key: string): Promise<StoredObject | null>;
  /** The stored size; null when nothing is stored under the key. */
  sizeOf(key: string): Promise<number | null>;
  /** Copies the bytes under `from` to `to` (within the store; server-side for S3). */
  copy(from: string, to: string): Promise<void>;
  /** Removes the key; removing a missing key is not an error. */
  remove(key: string): Promise<void>;
  /**
   * A short-lived URL the client fetches the bytes from itself (S3_DOWNLOAD=redirect); null when the
   * service streams downloads.
   */
  downloadUrl(key: string, response: { contentType: string; disposition: string }): Promise<string | null>;
  /**
   * A presigned POST for step 2 of the upload (S3_UPLOAD=presigned); null when the bytes go through
   * the service. The bucket refuses any other size than `size` and redirects to `redirectUrl`.
   */
  directUpload(key: string, opts: DirectUploadOptions): Promise<DirectUpload | null>;
  /** Releases connections (S3 clients); the store is not used afterwards. */
  close(): void;
}

export interface ObjectMeta {
  size: number;
  contentType: string;
}

export interface StoredObject {
  stream: Readable;
  size: number;
}

export interface DirectUploadOptions {
  size: number;
  contentType: string;
  /** Where the bucket sends the client once it has the bytes (Canvas's success_action_redirect). */
  redirectUrl: string;
  expiresAt: number;
}

export interface DirectUpload {
  url: string;
  /** Form fields in the order the client must send them, before the file. */
  fields: [string, string][];
}

/**
 * The store is unreachable or failing (network errors, 5xx): answered with 503, not 500, and logged
 * without the SDK's message (which may carry request details).
 */
export class StorageUnavailableError extends Error {
  /** Read by isDbUnavailable: wherever this surfaces (a REST row, GraphQL, ws) it answers 503. */
  readonly dependencyUnavailable = true;
  constructor(readonly causeName: string) {
    super('file storage is unavailable');
    this.name = 'StorageUnavailableError';
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function checkedUuid(uuid: string): string {
  if (!UUID.test(uuid)) throw new Error('unexpected attachment uuid');
  return uuid;
}

/**
 * A fresh key for one upload's bytes: `store/<2>/<uuid>-<random>`. Fresh per attempt, so a retried or
 * concurrent upload of the same attachment never overwrites (or, when refused, deletes) the bytes of
 * the one that won. Older rows keep their `store/<2>/<uuid>` keys, which read the same way.
 */
export function newStorageKey(uuid: string): string {
  const u = checkedUuid(uuid);
  return `store/${u.slice(0, 2)}/${u}-${randomBytes(4).toString('hex')}`;
}

/**
 * Where a presigned POST puts the bytes: one fixed key per attachment, outside `store/`. Confirming the
 * upload copies them to a fresh storage key and deletes this one, so bytes posted again while the
 * policy lasts never change a confirmed file (a bucket lifecycle rule may expire `uploads/`).
 */
export function directUploadKey(uuid: string): string {
  return `uploads/${checkedUuid(uuid)}`;
}

/** Keys this service writes: store/… or uploads/…, plain segments only. */
export function isStoreKey(key: string): boolean {
  return /^(store|uploads)\/[0-9A-Za-z_-]+(\/[0-9A-Za-z_.-]+)*$/.test(key) && !key.split('/').some((s) => s === '.' || s === '..');
}
