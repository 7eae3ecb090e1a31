import { defineConfig } from 'vitest/config';

/**
 * Node 20's V8 can abort the process when it inlines a JS-to-Wasm call (Cedar) and later
 * deoptimizes it; every process that runs the gate turns that inlining off (docs/decisions/0003).
 */
const execArgv = ['--no-turbo-inline-js-wasm-calls'];

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
          include: [
            'packages/*/src/**/*.test.ts',
            'examples/**/*.test.ts',
            'infra/**/*.test.ts',
            'bench/**/*.test.ts',
            'scripts/**/*.test.ts',
          ],
          environment: 'node',
          execArgv,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts', 'services/*/src/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/global-setup.ts'],
          execArgv,
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
