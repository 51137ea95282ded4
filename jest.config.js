/** Tests run through the public interfaces against a real database (SQLite by default, MariaDB via DATABASE_URL). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'test/tsconfig.json' }],
  },
  setupFiles: ['reflect-metadata'],
  testTimeout: 30000,
  maxWorkers: 2,
};
