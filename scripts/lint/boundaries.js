// @ts-check
/**
 * Where what may be imported: the architecture's import rules, as ESLint flat-config blocks that
 * eslint.config.js includes. `scripts/lint/boundaries.test.ts` plants a violation of each and
 * checks that it is refused, and that the repository has none.
 *
 * Each block sets `no-restricted-imports` for its files in full (in a flat config, the last
 * block that matches a file decides a rule's options), so the blocks go from the general to the
 * particular.
 */
import { noImportCycle } from './no-import-cycle.js';

/** kafkajs lives in one folder, so the client can be swapped in one place. */
const KAFKA_CLIENT = {
  group: ['kafkajs', 'kafkajs/*'],
  message:
    'kafkajs is imported only in packages/platform/src/kafka/; use @toolgate/platform/kafka.',
};

/** The schema registry's client is the codec's business. */
const REGISTRY_CLIENT = {
  group: ['@kafkajs/*'],
  message:
    'The schema registry client is imported only by the codec; use @toolgate/platform/codec.',
};

/** ioredis lives in one folder, so the client can be swapped in one place. */
const REDIS_CLIENT = {
  group: ['ioredis', 'ioredis/*'],
  message:
    'ioredis is imported only in packages/platform/src/redis/; use @toolgate/platform/redis.',
};

/** The stages are processes: the CLI starts them, tests drive them, nothing else links them in. */
const SERVICES = {
  group: ['validate', 'authorize', 'confirm', 'execute']
    .flatMap((stage) => [`@toolgate/${stage}`, `@toolgate/${stage}/*`])
    .concat(['**/services/**']),
  message:
    'Only the CLI (packages/cli) and tests import a service; a service never imports another.',
};

/** What the functional core may not import: I/O, clocks and loggers belong to the shell. */
const IMPURE = {
  group: [
    'kafkajs',
    'ioredis',
    'pino',
    'prom-client',
    '@kafkajs/*',
    '@toolgate/platform',
    '@toolgate/platform/*',
    'node:fs',
    'node:fs/*',
    'fs',
    'fs/*',
    'node:net',
    'node:http',
    'node:child_process',
    'node:os',
    'node:process',
  ],
  message: 'The core is pure: fetch facts in the service and pass them in.',
};

/** The SDKs ship to agent and tool developers: they take the entry points they use. */
const PLATFORM_BARREL = {
  name: '@toolgate/platform',
  message:
    'An SDK imports the platform entry points it uses (@toolgate/platform/kafka, /codec, /config, ...), not the whole platform.',
};

/**
 * `no-restricted-imports` refusing `patterns` (and the exact module names `paths`).
 * @param {readonly { group: string[], message: string }[]} patterns
 * @param {readonly { name: string, message: string }[]} [paths]
 */
function refuse(patterns, paths = []) {
  return { 'no-restricted-imports': ['error', { patterns: [...patterns], paths: [...paths] }] };
}

/** Tests and benchmarks reach Kafka, Redis, the registry and the services directly. */
const TESTS_AND_BENCHES = [
  'test/**',
  '**/*.test.ts',
  '**/*.test-support.ts',
  'bench/**',
  'packages/*/bench/**',
];

/** The two SDKs. */
const SDKS = ['packages/agent-client/**', 'packages/tool-worker/**'];

export const boundaries = [
  {
    files: ['**/*.ts', '**/*.js', '**/*.mjs'],
    plugins: { toolgate: { rules: { 'no-import-cycle': noImportCycle } } },
    rules: {
      ...refuse([KAFKA_CLIENT, REGISTRY_CLIENT, REDIS_CLIENT, SERVICES]),
      'toolgate/no-import-cycle': 'error',
    },
  },
  {
    files: ['packages/platform/src/kafka/**'],
    rules: refuse([REGISTRY_CLIENT, REDIS_CLIENT, SERVICES]),
  },
  {
    files: ['packages/platform/src/codec.ts'],
    rules: refuse([KAFKA_CLIENT, REDIS_CLIENT, SERVICES]),
  },
  {
    files: ['packages/platform/src/redis/**'],
    rules: refuse([KAFKA_CLIENT, REGISTRY_CLIENT, SERVICES]),
  },
  {
    // The local stack administers its own Kafka and Redis, each from one file.
    files: ['infra/kafka-admin.ts'],
    rules: refuse([REGISTRY_CLIENT, REDIS_CLIENT, SERVICES]),
  },
  {
    files: ['infra/redis.ts'],
    rules: refuse([KAFKA_CLIENT, REGISTRY_CLIENT, SERVICES]),
  },
  {
    files: ['packages/cli/**'],
    rules: refuse([KAFKA_CLIENT, REGISTRY_CLIENT, REDIS_CLIENT]),
  },
  {
    files: TESTS_AND_BENCHES,
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: SDKS,
    rules: refuse([KAFKA_CLIENT, REGISTRY_CLIENT, REDIS_CLIENT, SERVICES], [PLATFORM_BARREL]),
  },
  {
    files: ['packages/shared/src/**/*.ts'],
    // Tests and their support files (e.g. where the corpora are) run in vitest, not in the gate.
    ignores: ['**/*.test.ts', '**/*.test-support.ts'],
    rules: refuse([IMPURE, SERVICES]),
  },
];
