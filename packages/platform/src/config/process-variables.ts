/**
 * What a process is and how it runs: its deployment file, what an execute process consumes, its
 * log level, its name in logs and transactional ids, and the deadline of its stop.
 */
import { hostname } from 'node:os';
import type { VariableTable } from './variable-spec.js';

/** What an execute process consumes (TOOLGATE_EXECUTE_INPUTS). */
export const EXECUTE_INPUTS = ['both', 'cleared', 'results'] as const;

/** One of {@link EXECUTE_INPUTS}. */
export type ExecuteInputs = (typeof EXECUTE_INPUTS)[number];

/**
 * The part of TOOLGATE_SHUTDOWN_TIMEOUT_MS the stage loops of a process share, one after another;
 * the rest is left for what closes after them (HTTP servers, Redis, the admin client).
 */
export const STOP_SHARE = 0.8;

/** TOOLGATE_CONFIG. */
export const DEPLOYMENT_FILE_VARIABLES = {
  CONFIG: {
    key: 'deploymentFile',
    kind: 'string',
    schema: { minLength: 1 },
    description:
      'The deployment file (`toolgate.config.ts`): tools, policies, session keys, object store.',
  },
} as const satisfies VariableTable;

/** TOOLGATE_EXECUTE_INPUTS. */
export const EXECUTE_VARIABLES = {
  EXECUTE_INPUTS: {
    key: 'executeInputs',
    kind: 'string',
    default: 'both',
    schema: { enum: EXECUTE_INPUTS },
    description:
      "What the execute stage consumes: `both`, or `cleared` (issue commands) or `results` (settle results and sweep deadlines), to run execute's two hops as separate processes, as a loaded deployment should (docs/decisions/0005). All share the consumer group `toolgate.execute`, whose members each get only partitions of their own topics; at least one process must settle results (`both` or `results`), and a `cleared` process logs an error while none does.",
  },
} as const satisfies VariableTable;

/**
 * TOOLGATE_LOG_LEVEL, TOOLGATE_INSTANCE_ID, TOOLGATE_SHUTDOWN_TIMEOUT_MS and
 * TOOLGATE_SESSION_TIMEOUT_MS.
 */
export const PROCESS_VARIABLES = {
  LOG_LEVEL: {
    key: 'logLevel',
    kind: 'string',
    default: 'info',
    schema: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
    description: 'Least level logged: fatal, error, warn, info, debug, trace or silent.',
  },
  INSTANCE_ID: {
    key: 'instanceId',
    kind: 'string',
    default: () => `${hostname()}-${process.pid}`,
    defaultText: '`<hostname>-<pid>`',
    schema: { pattern: '^[A-Za-z0-9._-]{1,100}$' },
    description:
      "This process's name in logs and in Kafka transactional ids (`<group>.<instanceId>`). Unique per running instance; keep it stable across restarts of one instance (e.g. the pod name) so Kafka fences a zombie predecessor.",
  },
  SHUTDOWN_TIMEOUT_MS: {
    key: 'shutdownTimeoutMs',
    kind: 'integer',
    default: 10_000,
    schema: { minimum: 100, maximum: 600_000 },
    description: `Hard deadline of a graceful stop, in ms; past it the process exits non-zero. The stage loops of a process share ${STOP_SHARE * 100} % of it, one after another, so a loop whose stop hangs gives up with a warning and the rest still closes in time.`,
  },
  SESSION_TIMEOUT_MS: {
    key: 'sessionTimeoutMs',
    kind: 'integer',
    default: 30_000,
    schema: { minimum: 6_000, maximum: 300_000 },
    description:
      "Consumer group session timeout of every stage loop of the process, in ms: how long an instance that stopped answering (killed, paused, cut off) keeps its partitions before the group hands them to another instance. Lower moves work off a dead instance sooner and makes a long pause (garbage collection, a stalled host) count as a death more often. Within the broker's `group.min.session.timeout.ms` and `group.max.session.timeout.ms` (6 s and 30 min by default).",
  },
} as const satisfies VariableTable;
