import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/temp-global.ts', 'test/support/postgres-global.ts'],
    testTimeout: 60_000,
    hookTimeout: 600_000,
    // Keep the machine responsive for tests that start servers or child processes.
    maxWorkers: 2,
  },
});
