import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FileStore, isStoreKey, ObjectMeta, StoredObject } from './file-store';

/**
 * Bytes on local disk under FILES_DIR (keys are paths below it). One machine only: another instance
 * cannot read what this one stored, which is what the S3 store is for.
 */
export class LocalFileStore implements FileStore {
  readonly kind = 'local' as const;
  readonly root: string;

  constructor(filesDir: string) {
    this.root = path.resolve(filesDir);
  }

  /** The key's path under FILES_DIR; anything else is a bug, refused before touching the disk. */
  pathOf(key: string): string {
    if (!isStoreKey(key)) throw new Error('unexpected storage key');
    const full = path.resolve(this.root, key);
    if (!full.startsWith(this.root + path.sep)) throw new Error('storage key outside FILES_DIR');
    return full;
  }

  async adoptTempFile(key: string, tempPath: string): Promise<void> {
    const dest = this.pathOf(key);
    await mkdir(path.dirname(dest), { recursive: true });
    // Temp uploads sit under FILES_DIR/tmp, on the same file system: a rename, not a copy.
    await rename(tempPath, dest);
  }

  async put(key: string, body: Readable | Buffer, meta: ObjectMeta): Promise<void> {
    const dest = this.pathOf(key);
    await mkdir(path.dirname(dest), { recursive: true });
    // Written beside and renamed, so a reader never sees half a file.
    const partial = `${dest}.${randomUUID()}.partial`;
    try {
      await pipeline(Buffer.isBuffer(body) ? Readable.from([body]) : body, createWriteStream(partial, { flags: 'wx', mode: 0o600 }));
      const written = (await stat(partial)).size;
      if (written !== meta.size) throw new Error(`expected ${meta.size} bytes, got ${written}`);
      await rename(partial, dest);
    } catch (e) {
      await unlink(partial).catch(() => undefined);
      throw e;
    }
  }

  async open(key: string): Promise<StoredObject | null> {
    const full = this.pathOf(key);
    const size = await this.sizeOf(key);
    return size == null ? null : { stream: createReadStream(full), size };
  }

  async sizeOf(key: string): Promise<number | null> {
    try {
      return (await stat(this.pathOf(key))).size;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  async copy(from: string, to: string): Promise<void> {
    const dest = this.pathOf(to);
    await mkdir(path.dirname(dest), { recursive: true });
    await copyFile(this.pathOf(from), dest);
  }

  async remove(key: string): Promise<void> {
    try {
      await unlink(this.pathOf(key));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }

  async downloadUrl(): Promise<null> {
    return null;
  }

  async directUpload(): Promise<null> {
    return null;
  }

  close(): void {}
}
