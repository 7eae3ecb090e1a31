import { defineConfig } from 'vitest/config';

/**
 * Node 20's V8 can abort the process when it inlines a JS-to-Wasm call (Cedar) and later
 * deoptimizes it; every process that runs the gate turns that inlining off (docs/decisions/0003).
 */
const execArgv = ['--no-turbo-inline-js-wasm-calls'];

/**
 * Where a test runs is decided by where it sits or what it is called, nothing else:
 *
 * - `integration`: every test under `test/integration/`, and every `*.integration.test.ts`
 *   wherever it sits (a service's in-process tests, beside its code). These need the real Kafka,
 *   schema registry and Redis, which the global setup starts if they are not already up.
 * - `unit`: every other `*.test.ts`. Pure: no infrastructure, no global setup.
 *
 * A test that needs the stack is named `*.integration.test.ts` (or lives in `test/integration/`);
 * a test that does not keeps the plain `*.test.ts` and runs with `npm run test:unit`.
 */
const INTEGRATION = ['test/integration/**/*.test.ts', '**/*.integration.test.ts'];
const NEVER = ['**/node_modules/**', '**/dist/**', '.stack/**', '.demo/**'];

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['**/*.test.ts'],
          exclude: [...NEVER, ...INTEGRATION],
          environment: 'node',
          execArgv,
        },
      },
      {
        test: {
          name: 'integration',
          include: INTEGRATION,
          exclude: NEVER,
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
