/** Tests run through the public interfaces against a real database (SQLite by default, MariaDB via DATABASE_URL). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'test/tsconfig.json' }],
  },
  setupFiles: ['reflect-metadata'],
  // Fails a test during which a webhook delivery or graphql-ws result drifted from the event catalog.
  setupFilesAfterEnv: ['<rootDir>/test/support/after-each.ts'],
  // A guard against hangs, not a speed check: world-building hooks run long when both workers start processes.
  testTimeout: 90000,
  maxWorkers: 2,
  // Each test file loads its own copy of the whole app into its worker, and not every copy is released
  // (drivers and SDKs leave handles on the shared process), so a worker's heap grows file by file: one ran
  // out of memory near 4 GB in CI. A worker past this limit after a file is replaced by a fresh one.
  workerIdleMemoryLimit: '1GB',
  // Jest kills a worker that has not exited 500 ms after it was told to, and prints "A worker process has
  // failed to exit gracefully". Ours had nothing left open (no handle, no timer: the 'exit' event fires
  // within 40 ms of the request), but tearing down a process holding the app's heap (400 MB after one
  // small file) takes about 0.3 s of CPU here, mostly the kernel freeing its memory: past 500 ms as soon
  // as the 2 cores are shared. A worker that something really keeps alive is still killed and reported.
  workerGracefulExitTimeout: 5000,
};
