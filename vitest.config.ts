import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests start real Python children, sockets and sandboxes; two cores is the budget.
    pool: 'forks',
    maxWorkers: 2,
  },
});
