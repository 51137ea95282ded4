/** Tests run through the public interfaces against a real database (SQLite by default, MariaDB via DATABASE_URL). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'test/tsconfig.json' }],
  },
  setupFiles: ['reflect-metadata'],
  // A guard against hangs, not a speed check: world-building hooks run long when both workers start processes.
  testTimeout: 90000,
  maxWorkers: 2,
};
