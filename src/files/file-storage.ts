import { createReadStream } from 'node:fs';
import { mkdir, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';

/**
 * Bytes of files on local disk under FILES_DIR/store. The path comes from the attachment's uuid only;
 * nothing the client sends (its file name) ever becomes part of a path.
 */
export class FileStorage {
  readonly root: string;

  constructor(filesDir: string) {
    this.root = path.resolve(filesDir);
  }

  keyFor(uuid: string): string {
    if (!/^[0-9a-f-]{36}$/.test(uuid)) throw new Error('unexpected attachment uuid');
    return path.posix.join('store', uuid.slice(0, 2), uuid);
  }

  private resolve(key: string): string {
    const full = path.resolve(this.root, key);
    if (!full.startsWith(this.root + path.sep)) throw new Error('storage key outside FILES_DIR');
    return full;
  }

  /** Moves a received temp file into the store under `key`. */
  async adopt(tempPath: string, key: string): Promise<void> {
    const dest = this.resolve(key);
    await mkdir(path.dirname(dest), { recursive: true });
    await rename(tempPath, dest);
  }

  async remove(key: string): Promise<void> {
    try {
      await unlink(this.resolve(key));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }

  /** A stream of the bytes and their size; null when they are missing. */
  async open(key: string): Promise<{ stream: Readable; size: number } | null> {
    const full = this.resolve(key);
    try {
      const s = await stat(full);
      return { stream: createReadStream(full), size: s.size };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }
}
