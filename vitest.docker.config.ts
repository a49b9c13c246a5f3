import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/** `npm run test:docker`: the tests that need a real container engine (none runs in CI here). */
export default defineConfig({ ...base, test: { ...base.test, include: ['test/**/*.real-test.ts'] } });
