/**
 * A tool worker's configuration: the `TOOLGATE_*` variables it shares with the gate's processes
 * (where Kafka, the registry and Redis are, and its own Kafka identity; the prefixes; logging;
 * instance id; fetch settings), plus its own name. It does not read TOOLGATE_INTEGRITY_KEY: a tool worker is outside the gate and must not
 * be able to write the gate's internal envelopes.
 */
import {
  CONFIG_VARIABLES,
  loadVariables,
  type ConfigOf,
  type Env,
  type VariableTable,
} from '@toolgate/platform/config';
import { KAFKA_SECURITY_VARIABLES } from '@toolgate/platform/kafka';

const {
  KAFKA_BROKERS,
  SCHEMA_REGISTRY_URL,
  REDIS_URL,
  TOPIC_PREFIX,
  REDIS_PREFIX,
  GROUP_PREFIX,
  LOG_LEVEL,
  INSTANCE_ID,
  SHUTDOWN_TIMEOUT_MS,
  SESSION_TIMEOUT_MS,
  FETCH_MAX_WAIT_MS,
  FETCH_MIN_BYTES,
  FETCH_BUSY_MIN_BYTES,
} = CONFIG_VARIABLES;

/** The variables a tool worker reads (names without the `TOOLGATE_` prefix). */
export const WORKER_VARIABLES = {
  KAFKA_BROKERS,
  ...KAFKA_SECURITY_VARIABLES,
  SCHEMA_REGISTRY_URL,
  REDIS_URL,
  TOPIC_PREFIX,
  REDIS_PREFIX,
  GROUP_PREFIX,
  LOG_LEVEL,
  INSTANCE_ID,
  SHUTDOWN_TIMEOUT_MS,
  SESSION_TIMEOUT_MS,
  FETCH_MAX_WAIT_MS,
  FETCH_MIN_BYTES,
  FETCH_BUSY_MIN_BYTES,
  TOOL_KEYS: {
    key: 'toolKeys',
    kind: 'list',
    default: [],
    secret: true,
    description:
      "The keys of the worker's tools, `<tool>:<key>` comma-separated (from `npx toolgate keys tool <name>`, derived from execute's command key): a command runs only when its proof verifies with its tool's key, and each result is proved with it. A tool may be named twice during a rotation. Each tool of the worker needs one.",
  },
  WORKER_NAME: {
    key: 'workerName',
    kind: 'string',
    schema: { pattern: '^[A-Za-z0-9._-]{1,100}$' },
    description:
      "Names the worker's consumer group, `<GROUP_PREFIX>toolgate.worker.<name>`: instances with one name share the commands. Unset: the worker's tool names, sorted, joined by `.`.",
  },
} as const satisfies VariableTable;

/** A loaded tool worker configuration. */
export type WorkerConfig = ConfigOf<typeof WORKER_VARIABLES>;

/**
 * Reads {@link WORKER_VARIABLES} from `env` (only a main passes `process.env`).
 *
 * @throws ConfigError naming every problem.
 */
export function loadWorkerConfig(env: Env): Readonly<WorkerConfig> {
  return loadVariables(env, WORKER_VARIABLES);
}

/**
 * The worker's name: `configured` if given, else its tool names sorted and joined by `.`, so that
 * two workers serving different tools never share a consumer group by accident (a group whose
 * members subscribe to different topics leaves some partitions unread).
 */
export function workerName(tools: readonly string[], configured?: string): string {
  return configured ?? [...tools].sort().join('.');
}

/** The consumer group of a worker: `<prefix>toolgate.worker.<name>`. */
export function workerGroup(groupPrefix: string, name: string): string {
  return `${groupPrefix}toolgate.worker.${name}`;
}
