import { defineConfig } from 'vitest/config';

/**
 * Two projects: `unit` (pure, beside the code, no infrastructure) and `integration` (real Kafka,
 * schema registry and Redis, started by the global setup if they are not already up).
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'examples/**/*.test.ts', 'infra/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts', 'services/*/src/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
