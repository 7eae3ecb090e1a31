/**
 * The tool worker: consumes the command topics of its tools through the platform's stage loop
 * (read-committed; each ToolResult and the command's offset commit in one transaction), dedupes
 * on the idempotency key in a Redis ledger before any side effect, runs each handler within its
 * command's deadline and publishes the ToolResult on `results` in the registry's wire format.
 */
import {
  COMMAND_TOPIC_PREFIX,
  createBus,
  createCodec,
  createLogger,
  createStore,
  fetchOptions,
  gateTopics,
  startStageLoop,
  stopBound,
  topicsFor,
  TOPIC_NAMES,
  type AdapterLogger,
  type Bus,
  type Codec,
  type Env,
  type GateTopics,
  type LedgerEntry,
  type RetryPolicy,
  type StageLoop,
  type Store,
} from '@toolgate/platform';
import { IDEMPOTENCY_RETENTION_SECONDS, MESSAGE_SCHEMAS, type ToolResult } from '@toolgate/shared';
import { createCommandChecker, resultIdsOf } from './check-command.js';
import { createCommandHandler } from './handle-command.js';
import type { ToolHandlers } from './tool-handler.js';
import { DEFAULT_MAX_OUTPUT_BYTES, resultFor, workerError } from './tool-results.js';
import { loadWorkerConfig, workerGroup, workerName, type WorkerConfig } from './worker-config.js';
import { workerOptionProblems } from './worker-options.js';

/** The name of the worker in logs (`stage` field) and metrics. */
export const WORKER_STAGE = 'tool-worker';

/** Default time an aborted handler has to settle before it is abandoned: 1 s. */
export const DEFAULT_ABORT_GRACE_MS = 1_000;

/** Connections a worker may be given instead of opening its own; it does not close them. */
export interface WorkerConnections {
  readonly bus: Bus;
  /**
   * Created with `compatibility: 'NONE'`, as the gate's own: the registry client refuses to
   * register under a subject whose compatibility differs from the one it asks for.
   */
  readonly codec: Codec;
  /** Holds the ledger (under the store's prefix). */
  readonly store: Store;
}

/** Options of {@link startToolWorker}. */
export interface ToolWorkerOptions {
  /** Handlers by tool name; the worker consumes `<prefix>toolgate.commands.<tool>` for each. */
  readonly tools: ToolHandlers;
  /** Where `TOOLGATE_*` are read from when `config` is not given (see `WORKER_VARIABLES`). */
  readonly env?: Env;
  /** A loaded configuration; takes precedence over `env`. */
  readonly config?: Readonly<WorkerConfig>;
  /** Default TOOLGATE_WORKER_NAME, else the sorted tool names joined by `.`. */
  readonly name?: string;
  /** Default: a pino logger at TOOLGATE_LOG_LEVEL on standard output. */
  readonly logger?: AdapterLogger;
  /** The worker's clock (deadlines, `completedAt`). Default the system clock. */
  readonly now?: () => Date;
  /** Shared connections; by default the worker opens (and on stop closes) its own. */
  readonly connections?: WorkerConnections;
  /** How long an aborted handler may take to settle, in ms. Default 1000. */
  readonly abortGraceMs?: number;
  /** Ceiling on a result's output, in bytes of JSON. Default 256 KiB, at most 512 KiB. */
  readonly maxOutputBytes?: number;
  /**
   * Commands per transaction. Default 1: a result is published as soon as its handler is done;
   * larger batches hold every result of the batch back until the slowest handler ends. Raise it
   * for fast tools: 1 gave 39 commands/s on the dev machine, 50 gave 334 (docs/decisions/0004,
   * measured before partitions were handled side by side and shared transactions).
   */
  readonly maxBatchMessages?: number;
  /** How long ledger entries live, in seconds (≥ 24 h). Default 7 days, as idempotency records. */
  readonly ledgerTtlSeconds?: number;
  /** Consumer group session timeout, in ms (the stage loop's default when unset). */
  readonly sessionTimeoutMs?: number;
  /** Backoff while Redis or the registry is down (the stage loop's default when unset). */
  readonly retry?: RetryPolicy;
  /**
   * Called once if the worker stops on its own: its consumer crashed for good, or another
   * instance with the same name and instance id fenced its producer. It consumes nothing more
   * (`ready()` is false) and logs why; a process that runs only this worker should exit, so that
   * its supervisor starts it again (the example's worker does). Default: only the log line.
   */
  readonly onCrash?: (error: Error) => void;
}

/** What the ledger knows of one idempotency key. */
export type KeyOutcome =
  | {
      readonly state: 'running';
      readonly commandId: string;
      readonly tool: string;
      readonly claimedAt: string;
      readonly attempts: number;
    }
  | {
      readonly state: 'done';
      readonly commandId: string;
      readonly tool: string;
      readonly claimedAt: string;
      readonly attempts: number;
      readonly result: ToolResult;
    };

/** A running tool worker. */
export interface ToolWorker {
  /** The worker's name; its consumer group is `<prefix>toolgate.worker.<name>`. */
  readonly name: string;
  readonly groupId: string;
  /** True once the consumer joined its group with at least one partition, until it stops. */
  ready(): boolean;
  /** Stops consuming and closes the connections it opened; idempotent. */
  stop(): Promise<void>;
  /**
   * What the ledger holds for `idempotencyKey` under `tenant`: running, done with the recorded
   * ToolResult, or undefined when no worker has claimed it. Rejects with a retriable Fault while
   * Redis cannot be reached.
   */
  outcome(tenant: string, idempotencyKey: string): Promise<KeyOutcome | undefined>;
}

/**
 * Starts a worker: connects (unless given connections), creates its command topics and `results`
 * when missing, registers the `results` schema, and joins its consumer group. Resolves once it
 * consumes (see {@link ToolWorker.ready} for the group join).
 *
 * @throws ConfigError for bad configuration; TypeError for no tools or a tool name that cannot
 *   name a topic; RangeError naming every numeric option out of its range (see
 *   {@link workerOptionProblems}), before anything is opened; a Fault when Kafka, the registry
 *   or Redis cannot be reached (after closing what it opened).
 */
export async function startToolWorker(options: ToolWorkerOptions): Promise<ToolWorker> {
  const tools = Object.keys(options.tools);
  if (tools.length === 0) throw new TypeError('a tool worker needs at least one tool handler');
  const problems = workerOptionProblems(options);
  if (problems.length > 0) throw new RangeError(`tool worker options: ${problems.join('; ')}`);
  const config = options.config ?? loadWorkerConfig(options.env ?? {});
  const name = workerName(tools, options.name ?? config.workerName);
  const logger =
    options.logger ??
    createLogger({ level: config.logLevel, stage: WORKER_STAGE, instanceId: config.instanceId });
  const topics = gateTopics(config.topicPrefix);
  const commandTopics = new Map(tools.map((tool) => [topics.command(tool), tool]));
  const connections = options.connections ?? openConnections(config, name, logger);
  const closeOwned = async () => {
    if (options.connections !== undefined) return;
    await connections.store.close();
    await connections.bus.close();
  };
  try {
    await prepare(connections, config.topicPrefix, topics, tools);
    const loop = await startLoop(options, {
      config,
      name,
      logger,
      topics,
      commandTopics,
      connections,
    });
    logger.info({ worker: name, tools }, 'tool worker started');
    return workerHandle(name, loop, connections.store, closeOwned, config);
  } catch (error) {
    await closeOwned();
    throw error;
  }
}

function openConnections(
  config: Readonly<WorkerConfig>,
  name: string,
  logger: AdapterLogger,
): WorkerConnections {
  const clientId = `toolgate-worker-${name}-${config.instanceId}`;
  return {
    bus: createBus({ brokers: [...config.kafkaBrokers], clientId, logger }),
    codec: createCodec({ registryUrl: config.schemaRegistryUrl, logger, compatibility: 'NONE' }),
    store: createStore({
      url: config.redisUrl,
      prefix: config.redisPrefix,
      logger,
      connectionName: clientId,
    }),
  };
}

/** Redis answers, the topics exist, the results schema is registered. */
async function prepare(
  connections: WorkerConnections,
  prefix: string,
  topics: GateTopics,
  tools: readonly string[],
): Promise<void> {
  await connections.store.ping();
  const mine = topicsFor(tools).filter(
    (t) => t.name === TOPIC_NAMES.results || t.name.startsWith(COMMAND_TOPIC_PREFIX),
  );
  await connections.bus.ensureTopics(mine.map((t) => ({ ...t, name: `${prefix}${t.name}` })));
  await connections.codec.register(`${topics.results}-value`, MESSAGE_SCHEMAS.results);
}

interface LoopFacts {
  readonly config: Readonly<WorkerConfig>;
  readonly name: string;
  readonly logger: AdapterLogger;
  readonly topics: GateTopics;
  readonly commandTopics: ReadonlyMap<string, string>;
  readonly connections: WorkerConnections;
}

function startLoop(options: ToolWorkerOptions, facts: LoopFacts): Promise<StageLoop> {
  const { config, logger, topics, connections } = facts;
  const now = options.now ?? (() => new Date());
  const handle = createCommandHandler({
    store: connections.store,
    tools: options.tools,
    toolOfTopic: facts.commandTopics,
    resultsTopic: topics.results,
    checker: createCommandChecker(),
    logger,
    now,
    ledgerTtlSeconds: options.ledgerTtlSeconds ?? IDEMPOTENCY_RETENTION_SECONDS,
    abortGraceMs: options.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS,
    maxOutputBytes: options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
  });
  return startStageLoop({
    stage: WORKER_STAGE,
    groupId: workerGroup(config.groupPrefix, facts.name),
    topics: [...facts.commandTopics.keys()].map((name) => ({ name, plainJsonAllowed: false })),
    bus: connections.bus,
    codec: connections.codec,
    logger,
    instanceId: config.instanceId,
    ...fetchOptions(config),
    handle,
    // A bug on one command: answer it as an internal error (when it has ids) and move on.
    onFatal: (msg) => {
      const ids = resultIdsOf(msg.value);
      if (ids === undefined) return [];
      const result = resultFor(ids, workerError('internal_error'), now());
      return [{ topic: topics.results, key: result.runId, value: result }];
    },
    maxBatchMessages: options.maxBatchMessages ?? 1,
    stopTimeoutMs: stopBound(config.shutdownTimeoutMs),
    ...(options.sessionTimeoutMs === undefined
      ? {}
      : { sessionTimeoutMs: options.sessionTimeoutMs }),
    ...(options.retry === undefined ? {} : { retry: options.retry }),
    ...(options.onCrash === undefined ? {} : { onCrash: options.onCrash }),
  });
}

function workerHandle(
  name: string,
  loop: StageLoop,
  store: Store,
  closeOwned: () => Promise<void>,
  config: Readonly<WorkerConfig>,
): ToolWorker {
  let stopping: Promise<void> | undefined;
  return {
    name,
    groupId: workerGroup(config.groupPrefix, name),
    ready: () => loop.ready(),
    stop: () =>
      (stopping ??= (async () => {
        await loop.stop();
        await closeOwned();
      })()),
    outcome: async (tenant, key) => keyOutcomeOf(await store.ledgerGet(tenant, key)),
  };
}

function keyOutcomeOf(entry: LedgerEntry | undefined): KeyOutcome | undefined {
  if (entry === undefined) return undefined;
  const { tool, claimedAt, attempts } = entry;
  const base = { commandId: entry.token, tool, claimedAt, attempts };
  return entry.result === undefined
    ? { state: 'running', ...base }
    : { state: 'done', ...base, result: entry.result };
}
