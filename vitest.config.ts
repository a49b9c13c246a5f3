import { defineConfig } from 'vitest/config';
import SlowestFirstSequencer from './test/slowest-first-sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/platform-schemas-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests start real Python children, sockets and sandboxes; two cores is the budget.
    pool: 'forks',
    maxWorkers: 2,
    // The longest files start first, so the run does not end on one of them alone.
    sequence: { sequencer: SlowestFirstSequencer },
  },
});
