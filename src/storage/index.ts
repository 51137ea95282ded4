import type { Config } from '../config';
import type { FileStore } from './file-store';
import { LocalFileStore } from './local-file-store';
import { S3FileStore } from './s3-file-store';

export * from './file-store';
export { LocalFileStore } from './local-file-store';
export { S3FileStore } from './s3-file-store';

/** One store per loaded configuration (an S3 client keeps its connection pool between requests). */
const stores = new WeakMap<Config, FileStore>();

/** The configured store: FILES_STORAGE=local (FILES_DIR) or s3 (S3_BUCKET …). */
export function fileStoreFor(config: Config): FileStore {
  let store = stores.get(config);
  if (!store) {
    store = config.FILES_STORAGE === 's3' ? new S3FileStore(config) : new LocalFileStore(config.FILES_DIR);
    stores.set(config, store);
  }
  return store;
}

/** Closes the store of a configuration, if one was opened (server and CLI shutdown). */
export function closeFileStore(config: Config): void {
  stores.get(config)?.close();
  stores.delete(config);
}
