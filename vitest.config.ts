import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Integration tests start real daemons and loopback servers; 2 cores do not like more.
    maxWorkers: 2,
    pool: 'forks',
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup/validate-responses.ts'],
  },
});
