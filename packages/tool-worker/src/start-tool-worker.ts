/**
 * The tool worker: consumes the command topics of its tools through the platform's stage loop
 * (read-committed; each ToolResult and the command's offset commit in one transaction), dedupes
 * on the idempotency key in a Redis ledger before any side effect, runs each handler within its
 * command's deadline and publishes the ToolResult on `results` in the registry's wire format.
 */
import type { AdapterLogger } from '@toolgate/platform/adapter-logger';
import { createCodec, type Codec } from '@toolgate/platform/codec';
import { fetchOptions, type Env } from '@toolgate/platform/config';
import { isRetriable, Fault } from '@toolgate/platform/fault';
import { REGISTRY_STARTUP_DEADLINE_MS, unseenAfterWaiting } from '@toolgate/platform/gate-runtime';
import { gateTopics, type GateTopics } from '@toolgate/platform/gate-topics';
import { createBus, kafkaSecurityOf, type Bus } from '@toolgate/platform/kafka';
import { createLogger } from '@toolgate/platform/logger';
import { createMetrics, type Metrics } from '@toolgate/platform/metrics';
import {
  connectRedis,
  createLedger,
  DEFAULT_LEDGER_LEASE_MS,
  type Ledger,
  type LedgerEntry,
} from '@toolgate/platform/redis';
import { retryWhileRetriable, type RetryPolicy } from '@toolgate/platform/retry';
import {
  startStageLoop,
  type GroupMembership,
  type StageLoop,
} from '@toolgate/platform/stage-loop';
import { stopBound } from '@toolgate/platform/stage-options';
import {
  ConfigError,
  IDEMPOTENCY_RETENTION_SECONDS,
  MESSAGE_SCHEMAS,
  parseToolKeys,
  type ToolKeys,
  type ToolResult,
} from '@toolgate/shared';
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
  /** The worker's ledger (under the Redis prefix of its configuration). */
  readonly ledger: Ledger;
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
  /**
   * The keys of the worker's tools, `<tool>:<key>` each (default TOOLGATE_TOOL_KEYS): one for
   * every tool of the worker, else the start is refused.
   */
  readonly toolKeys?: readonly string[];
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
  /**
   * The lease a delivery holds on a command's ledger entry while its handler runs, in ms, 1 s to
   * 1 h; renewed every third of it (docs/decisions/0010). Another delivery of the same command
   * waits while it is live, and takes the command over once it lapses, so this is also how long a
   * command whose worker died mid-handler waits before it is run again. Default 15 s.
   */
  readonly leaseMs?: number;
  /** Consumer group session timeout, in ms (TOOLGATE_SESSION_TIMEOUT_MS when unset). */
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
  /**
   * Its instance (TOOLGATE_INSTANCE_ID), group and the command partitions it holds now, for the
   * health answers of the worker's process.
   */
  membership(): GroupMembership;
  /**
   * The worker's metrics (`toolgate_refused_forgeries_total{message="command"}` counts commands
   * dropped for want of a valid proof), for a `/metrics` endpoint of the worker's process.
   */
  readonly metrics: Metrics;
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
  const toolKeys = keysOfTools(tools, options.toolKeys ?? config.toolKeys);
  const name = workerName(tools, options.name ?? config.workerName);
  const logger =
    options.logger ??
    createLogger({ level: config.logLevel, stage: WORKER_STAGE, instanceId: config.instanceId });
  const topics = gateTopics(config.topicPrefix);
  const commandTopics = new Map(tools.map((tool) => [topics.command(tool), tool]));
  const { connections, closeOwned } =
    options.connections === undefined
      ? openConnections(config, name, logger)
      : { connections: options.connections, closeOwned: () => Promise.resolve() };
  try {
    await prepare(connections, topics, tools, logger);
    const metrics = createMetrics(WORKER_STAGE, { processMetrics: false });
    const loop = await startLoop(options, {
      config,
      name,
      logger,
      topics,
      commandTopics,
      connections,
      toolKeys,
      metrics,
    });
    logger.info({ worker: name, tools }, 'tool worker started');
    return workerHandle(name, loop, connections.ledger, closeOwned, config, metrics);
  } catch (error) {
    await closeOwned();
    throw error;
  }
}

/** The worker's own connections, and how to close them (Redis, then Kafka). */
function openConnections(
  config: Readonly<WorkerConfig>,
  name: string,
  logger: AdapterLogger,
): { readonly connections: WorkerConnections; readonly closeOwned: () => Promise<void> } {
  const clientId = `toolgate-worker-${name}-${config.instanceId}`;
  const bus = createBus({
    brokers: [...config.kafkaBrokers],
    clientId,
    logger,
    security: kafkaSecurityOf(config),
  });
  const redis = connectRedis({
    url: config.redisUrl,
    prefix: config.redisPrefix,
    logger,
    connectionName: clientId,
  });
  return {
    connections: {
      bus,
      codec: createCodec({ registryUrl: config.schemaRegistryUrl, logger, compatibility: 'NONE' }),
      ledger: createLedger(redis),
    },
    closeOwned: async () => {
      await redis.close();
      await bus.close();
    },
  };
}

/**
 * Redis answers, the worker sees its topics (they exist and its ACLs name them), and the results
 * schema the gate registered is there to encode with. A worker creates and registers nothing: the
 * topics are an operator's (`toolgate topics create`), the schemas the gate's. A gate that has not
 * registered its schemas yet is waited for, up to two minutes.
 */
async function prepare(
  connections: WorkerConnections,
  topics: GateTopics,
  tools: readonly string[],
  logger: AdapterLogger,
): Promise<void> {
  await connections.ledger.ping();
  const unseen = await unseenAfterWaiting(connections.bus, [
    topics.results,
    ...tools.map((tool) => topics.command(tool)),
  ]);
  if (unseen.length > 0) {
    throw new Fault(
      'topics_unseen',
      `the worker cannot see ${unseen.join(', ')}: the topic is missing, or no ACL lets its Kafka principal use it`,
    );
  }
  const subject = `${topics.results}-value`;
  await retryWhileRetriable(() => connections.codec.adopt(subject, MESSAGE_SCHEMAS.results), {
    deadlineMs: REGISTRY_STARTUP_DEADLINE_MS,
    retriable: isRetriable,
    onRetry: (attempt, error, delayMs) =>
      logger.warn(
        { subject, attempt, delayMs, err: error instanceof Error ? error.message : String(error) },
        'the results schema is not in the registry yet (the gate registers it); waiting',
      ),
  });
}

interface LoopFacts {
  readonly config: Readonly<WorkerConfig>;
  readonly name: string;
  readonly logger: AdapterLogger;
  readonly topics: GateTopics;
  readonly commandTopics: ReadonlyMap<string, string>;
  readonly connections: WorkerConnections;
  readonly toolKeys: ToolKeys;
  readonly metrics: Metrics;
}

function startLoop(options: ToolWorkerOptions, facts: LoopFacts): Promise<StageLoop> {
  const { config, logger, topics, connections } = facts;
  const now = options.now ?? (() => new Date());
  const handle = createCommandHandler({
    ledger: connections.ledger,
    tools: options.tools,
    toolOfTopic: facts.commandTopics,
    resultsTopic: topics.results,
    toolKeys: facts.toolKeys,
    metrics: facts.metrics,
    checker: createCommandChecker(),
    logger,
    now,
    ledgerTtlSeconds: options.ledgerTtlSeconds ?? IDEMPOTENCY_RETENTION_SECONDS,
    leaseMs: options.leaseMs ?? DEFAULT_LEDGER_LEASE_MS,
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
    sessionTimeoutMs: options.sessionTimeoutMs ?? config.sessionTimeoutMs,
    ...(options.retry === undefined ? {} : { retry: options.retry }),
    ...(options.onCrash === undefined ? {} : { onCrash: options.onCrash }),
  });
}

function workerHandle(
  name: string,
  loop: StageLoop,
  ledger: Pick<Ledger, 'ledgerGet'>,
  closeOwned: () => Promise<void>,
  config: Readonly<WorkerConfig>,
  metrics: Metrics,
): ToolWorker {
  let stopping: Promise<void> | undefined;
  return {
    name,
    metrics,
    groupId: workerGroup(config.groupPrefix, name),
    ready: () => loop.ready(),
    membership: () => loop.membership(),
    stop: () =>
      (stopping ??= (async () => {
        await loop.stop();
        await closeOwned();
      })()),
    outcome: async (tenant, key) => keyOutcomeOf(await ledger.ledgerGet(tenant, key)),
  };
}

/**
 * The keys of `tools` from TOOLGATE_TOOL_KEYS entries: every tool needs one (without it no command
 * could ever prove itself), and a key for a tool the worker does not run is not kept.
 *
 * @throws ConfigError naming each tool without a key, or each malformed entry.
 */
function keysOfTools(tools: readonly string[], entries: readonly string[]): ToolKeys {
  const keys = parseToolKeys(entries);
  const missing = tools.filter((tool) => (keys.get(tool) ?? []).length === 0);
  if (missing.length > 0) {
    throw new ConfigError(
      'tool keys',
      missing.map(
        (tool) =>
          `no key for ${tool} in TOOLGATE_TOOL_KEYS (\`npx toolgate keys tool ${tool}\` derives it from the command key)`,
      ),
    );
  }
  return new Map(tools.map((tool) => [tool, keys.get(tool) ?? []]));
}

function keyOutcomeOf(entry: LedgerEntry | undefined): KeyOutcome | undefined {
  if (entry === undefined) return undefined;
  const { tool, claimedAt, attempts } = entry;
  const base = { commandId: entry.token, tool, claimedAt, attempts };
  return entry.result === undefined
    ? { state: 'running', ...base }
    : { state: 'done', ...base, result: entry.result };
}
