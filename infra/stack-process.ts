/**
 * The stack's single-process components (the registry, a single Redis server) and every Redis
 * process, for fault injection: a SIGKILL and a restart that waits until the component answers
 * again, and the pids to stop and continue for an outage. As with {@link kafkaNode}, only a
 * process this stack directory's pid files record (pid and start stamp) is ever signalled.
 */
import path from 'node:path';
import {
  exitedWithin,
  isRunning,
  runningFromPidFile,
  type PidRecord,
  type StartedProcess,
} from './processes.js';
import { pidFileOf, redisClusterDir } from './redis-cluster.js';
import { probeRedis, REDIS_ADMIN, redisLog, redisUrlAs, startRedis } from './redis.js';
import { registryLog, registryReady, startRegistry } from './registry.js';
import { REDIS_CLUSTER_NODES, type StackConfig } from './stack-config.js';
import { StackError } from './stack-error.js';
import { lastProblem } from './stack-driver.js';
import { seconds, waitUntilReady, type Attempt, type Reporter } from './wait.js';

/** One process of the stack, killed and started again by a fault-injection tool. */
export interface StackProcess {
  readonly label: string;
  readonly logFile: string;
  /** The pid of the running process, or `undefined`. */
  pid(): number | undefined;
  /** SIGKILLs it and resolves once it is gone: `false` when it was not running. */
  kill(): Promise<boolean>;
  /** Starts it unless it runs, and resolves with its pid once it answers. */
  start(reporter?: Reporter): Promise<number>;
}

const silent: Reporter = { line: () => undefined };

function stackProcess(
  config: StackConfig,
  spec: {
    readonly label: string;
    readonly pidFile: string;
    readonly logFile: string;
    readonly readyWithinMs: number;
    readonly spawn: (reporter: Reporter) => Promise<StartedProcess>;
    readonly ready: () => Promise<Attempt>;
  },
): StackProcess {
  const component = spec.label === 'registry' ? 'registry' : 'redis';
  if (config.external.has(component))
    throw new StackError(component, `the stack did not start ${spec.label}: it has none to kill`);
  return {
    label: spec.label,
    logFile: spec.logFile,
    pid: () => runningFromPidFile(spec.pidFile)?.pid,
    kill: async () => {
      const record = runningFromPidFile(spec.pidFile);
      if (record === undefined) return false;
      await killed(record, spec.label);
      return true;
    },
    start: async (reporter = silent) => {
      const record = runningFromPidFile(spec.pidFile) ?? (await spec.spawn(reporter)).record;
      const outcome = await waitUntilReady(
        `${spec.label}: waiting to answer`,
        spec.ready,
        reporter,
        {
          deadlineMs: spec.readyWithinMs,
          abandon: () =>
            isRunning(record) ? undefined : `exited during start-up: ${lastProblem(spec.logFile)}`,
        },
      );
      if (!outcome.ready) {
        const why = outcome.timedOut
          ? `did not answer within ${seconds(spec.readyWithinMs)} (${outcome.why})`
          : outcome.why;
        throw new StackError(component, `${spec.label} ${why}`, { logFile: spec.logFile });
      }
      return record.pid;
    },
  };
}

async function killed(record: PidRecord, label: string): Promise<void> {
  process.kill(record.pid, 'SIGKILL');
  if (!(await exitedWithin(record, 10_000)))
    throw new Error(`${label} (pid ${record.pid}) outlived SIGKILL by 10 s`);
}

/** The stack's schema registry. */
export function registryProcess(config: StackConfig): StackProcess {
  return stackProcess(config, {
    label: 'registry',
    pidFile: path.join(config.runDir, 'registry.pid'),
    logFile: registryLog(config),
    readyWithinMs: 180_000,
    spawn: (reporter) => startRegistry(config, reporter),
    ready: () => registryReady(config),
  });
}

/** The stack's single Redis server (not a cluster: see `attachRedisCluster`). */
export function redisServerProcess(config: StackConfig): StackProcess {
  if (config.redisCluster)
    throw new StackError('redis', 'the stack runs a Redis Cluster: use attachRedisCluster');
  return stackProcess(config, {
    label: 'redis',
    pidFile: path.join(config.runDir, 'redis.pid'),
    logFile: redisLog(config),
    readyWithinMs: 15_000,
    spawn: () => Promise.resolve(startRedis(config)),
    ready: () => probeRedis(redisUrlAs(config, REDIS_ADMIN)),
  });
}

/** The pid of every running Redis process of the stack (its server, or its cluster's nodes). */
export function redisPids(config: StackConfig): number[] {
  const files = config.redisCluster
    ? Array.from({ length: REDIS_CLUSTER_NODES }, (_, i) => pidFileOf(redisClusterDir(config), i))
    : [path.join(config.runDir, 'redis.pid')];
  return files.flatMap((file) => {
    const pid = runningFromPidFile(file)?.pid;
    return pid === undefined ? [] : [pid];
  });
}
