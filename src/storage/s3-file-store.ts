import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Config } from '../config';
import { withSpan } from '../tracing/tracing';
import { DirectUpload, DirectUploadOptions, FileStore, isStoreKey, ObjectMeta, StorageUnavailableError, StoredObject } from './file-store';

/** Socket-level failures: the bucket's endpoint is down or unreachable, not a wrong request. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);

interface SdkError {
  name?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
}

const SILENT = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

const statusOf = (e: unknown) => (e as SdkError)?.$metadata?.httpStatusCode;
const isMissing = (e: unknown) => statusOf(e) === 404 || (e as SdkError)?.name === 'NotFound' || (e as SdkError)?.name === 'NoSuchKey';

/**
 * An S3 failure as we report it: unreachable or 5xx → StorageUnavailableError (a 503); anything else
 * (access denied, no such bucket: a configuration mistake) → an Error naming the S3 error only.
 */
function storageError(e: unknown): Error {
  const err = e as SdkError;
  const status = statusOf(e);
  // The code, or only its mention in the message where the SDK re-wraps a socket error (it does for
  // errors from another realm, as under test runners).
  const message = String((e as Error)?.message ?? '');
  const network = NETWORK_CODES.has(err?.code ?? '') || [...NETWORK_CODES].some((code) => message.includes(code));
  if ((status != null && status >= 500) || network || err?.name === 'TimeoutError') {
    return new StorageUnavailableError(String(err?.name ?? 'Error'));
  }
  return new Error(`S3 request failed: ${String(err?.name ?? 'Error')}${status ? ` (${status})` : ''}`);
}

/**
 * Bytes in an S3-compatible bucket (AWS S3, MinIO, Ceph RGW, R2 …) under S3_PREFIX. Every instance
 * reads and writes the same bucket, so a file uploaded through one is downloaded through any other.
 */
export class S3FileStore implements FileStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;
  /** Signs the URLs handed to clients, for the endpoint they reach (S3_PUBLIC_ENDPOINT) when it differs. */
  private readonly publicClient: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly ttlSeconds: number;

  constructor(private readonly config: Config) {
    if (!config.S3_BUCKET) throw new Error('S3_BUCKET is required for FILES_STORAGE=s3');
    this.bucket = config.S3_BUCKET;
    this.prefix = config.S3_PREFIX;
    this.ttlSeconds = config.S3_URL_TTL_SECONDS;
    const base: S3ClientConfig = {
      region: config.S3_REGION,
      forcePathStyle: config.S3_FORCE_PATH_STYLE === 'true',
      credentials: config.S3_ACCESS_KEY_ID ? { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY! } : undefined,
      // Checksums only where S3 requires them: many S3-compatible servers reject the SDK's default
      // aws-chunked trailing checksums on streamed bodies.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
      // The SDK would write retry notes to the console; failures reach our log as StorageUnavailableError.
      logger: SILENT,
    };
    this.client = new S3Client({ ...base, endpoint: config.S3_ENDPOINT });
    const publicEndpoint = config.S3_PUBLIC_ENDPOINT ?? config.S3_ENDPOINT;
    this.publicClient = publicEndpoint === config.S3_ENDPOINT ? this.client : new S3Client({ ...base, endpoint: publicEndpoint });
  }

  private objectKey(key: string): string {
    if (!isStoreKey(key)) throw new Error('unexpected storage key');
    return `${this.prefix}${key}`;
  }

  /** A span per S3 call while tracing is on: the operation and bucket, never the key (it names a user's file). */
  private traced<T>(op: string, run: () => Promise<T>): Promise<T> {
    return withSpan(`S3 ${op}`, { kind: 'client', requireParent: true, attributes: { 'rpc.system': 'aws-api', 'rpc.service': 'S3', 'rpc.method': op, 'aws.s3.bucket': this.bucket } }, run);
  }

  private async send<T>(op: string, run: () => Promise<T>): Promise<T> {
    try {
      return await this.traced(op, run);
    } catch (e) {
      throw storageError(e);
    }
  }

  async adoptTempFile(key: string, tempPath: string, meta: ObjectMeta): Promise<void> {
    // Streamed from the temp file with its length known: one PUT, never the whole file in memory.
    await this.put(key, createReadStream(tempPath), meta);
  }

  async put(key: string, body: Readable | Buffer, meta: ObjectMeta): Promise<void> {
    const Key = this.objectKey(key);
    await this.send('PutObject', () =>
      this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body: body, ContentLength: meta.size, ContentType: meta.contentType || 'application/octet-stream' })),
    );
  }

  async open(key: string): Promise<StoredObject | null> {
    const Key = this.objectKey(key);
    try {
      const res = await this.traced('GetObject', () => this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key })));
      return { stream: res.Body as Readable, size: Number(res.ContentLength ?? 0) };
    } catch (e) {
      if (isMissing(e)) return null;
      throw storageError(e);
    }
  }

  async sizeOf(key: string): Promise<number | null> {
    const Key = this.objectKey(key);
    try {
      const res = await this.traced('HeadObject', () => this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key })));
      return Number(res.ContentLength ?? 0);
    } catch (e) {
      if (isMissing(e)) return null;
      throw storageError(e);
    }
  }

  async copy(from: string, to: string): Promise<void> {
    const source = `${this.bucket}/${this.objectKey(from).split('/').map(encodeURIComponent).join('/')}`;
    const Key = this.objectKey(to);
    await this.send('CopyObject', () => this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key, CopySource: source })));
  }

  async remove(key: string): Promise<void> {
    const Key = this.objectKey(key);
    await this.send('DeleteObject', () => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key })));
  }

  async downloadUrl(key: string, response: { contentType: string; disposition: string }): Promise<string | null> {
    if (this.config.S3_DOWNLOAD !== 'redirect') return null;
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: this.objectKey(key),
      // The bucket answers with our type and name, not whatever was stored with the object.
      ResponseContentType: response.contentType,
      ResponseContentDisposition: response.disposition,
      ResponseCacheControl: 'private, max-age=0',
    });
    return getSignedUrl(this.publicClient, command, { expiresIn: this.ttlSeconds });
  }

  async directUpload(key: string, opts: DirectUploadOptions): Promise<DirectUpload | null> {
    if (this.config.S3_UPLOAD !== 'presigned') return null;
    const contentType = opts.contentType || 'application/octet-stream';
    const post = await createPresignedPost(this.publicClient, {
      Bucket: this.bucket,
      Key: this.objectKey(key),
      // Exactly the declared size: the bucket refuses a larger (or smaller) file, as step 2 of the
      // proxied upload stops reading past it. Fields become equality conditions of the policy.
      Conditions: [['content-length-range', opts.size, opts.size]],
      Fields: { 'Content-Type': contentType, success_action_redirect: opts.redirectUrl },
      Expires: Math.max(1, Math.floor((opts.expiresAt - Date.now()) / 1000)),
    });
    return { url: post.url, fields: Object.entries(post.fields) };
  }

  close(): void {
    this.client.destroy();
    if (this.publicClient !== this.client) this.publicClient.destroy();
  }
}
