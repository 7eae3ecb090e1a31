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
 * - `stack-faults`: the integration tests that break the shared stack itself (kill a Kafka node).
 *   They run after every other project has finished, one file at a time: a node killed under the
 *   rest of the suite moves partition leaders and group coordinators under tests that never asked
 *   for a fault, and their deadlines are not sized for it.
 *
 * A test that needs the stack is named `*.integration.test.ts` (or lives in `test/integration/`);
 * a test that does not keeps the plain `*.test.ts` and runs with `npm run test:unit`.
 */
const INTEGRATION = ['test/integration/**/*.test.ts', '**/*.integration.test.ts'];
const STACK_FAULTS = ['test/integration/kafka-nodes.test.ts'];
const NEVER = ['**/node_modules/**', '**/dist/**', '.stack/**', '.demo/**'];

/**
 * The example deployment refuses to start without session keys unless told it is a demo; its own
 * tests (and the CLI's, which load it) run it as the demo it is. A test that starts it without
 * this gives its child process an environment of its own.
 */
const env = { TOOLGATE_DEMO_SESSIONS: '1' };

/** What the projects on the stack share: its global setup, and room for its round trips. */
const onTheStack = {
  environment: 'node',
  globalSetup: ['test/global-setup.ts'],
  execArgv,
  env,
  testTimeout: 60_000,
  hookTimeout: 180_000,
};

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
          env,
        },
      },
      {
        test: {
          name: 'integration',
          include: INTEGRATION,
          exclude: [...NEVER, ...STACK_FAULTS],
          ...onTheStack,
        },
      },
      {
        test: {
          name: 'stack-faults',
          include: STACK_FAULTS,
          exclude: NEVER,
          ...onTheStack,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
