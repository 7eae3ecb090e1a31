import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The benchmark's own tests (the mix, the baseline, the staging and the statistics), kept out of
 * the repository's `unit` project: `npx vitest run -c bench/core/vitest.config.ts`. They never
 * assert a timing.
 */
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['bench/core/**/*.test.ts'],
    environment: 'node',
  },
});
