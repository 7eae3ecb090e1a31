/**
 * One node of the stack's own Kafka, by node id, for fault injection: the pid of its JVM, a
 * SIGKILL, and a start that waits until the cluster serves it again. Only a process that
 * `stack:up` (or {@link KafkaNode.start}) started in this stack directory is ever signalled: its
 * pid file records the pid and the process's start stamp.
 */
import { adminAccess, kafkaNodeFiles, startKafka } from './kafka.js';
import { brokerServes } from './kafka-admin.js';
import { exitedWithin, isRunning, runningFromPidFile } from './processes.js';
import type { StackConfig } from './stack-config.js';
import { StackError } from './stack-error.js';
import { lastProblem } from './stack-driver.js';
import { seconds, waitUntilReady, type Reporter } from './wait.js';

/** A node of the stack's Kafka, as a fault-injection tool drives it. */
export interface KafkaNode {
  /** Its `node.id`, 1-based. */
  readonly id: number;
  /** Its client listener, `host:port`. */
  readonly address: string;
  readonly logFile: string;
  /** The pid of the node's running JVM, or `undefined` when it is not running. */
  pid(): number | undefined;
  /** SIGKILLs the node and resolves once it is gone: `false` when it was not running. */
  kill(): Promise<boolean>;
  /**
   * Starts the node unless it runs, and resolves with its pid once the cluster lists it among its
   * brokers again (registered and not fenced).
   */
  start(reporter?: Reporter): Promise<number>;
}

/** How long a restarted node may take until the cluster serves it again. */
const SERVES_WITHIN_MS = 120_000;

/** The node `id` (1-based, as `node.id`) of the stack's own Kafka. */
export function kafkaNode(config: StackConfig, id: number): KafkaNode {
  if (config.external.has('kafka')) {
    throw new StackError(
      'kafka',
      'TOOLGATE_KAFKA_BROKERS names a Kafka the stack did not start: it has no node to stop or start',
    );
  }
  const node = config.kafkaNodes.find((n) => n.id === id);
  if (node === undefined) {
    const count = config.kafkaNodes.length;
    throw new StackError(
      'kafka',
      `the stack's Kafka has ${count === 1 ? 'node 1 only' : `nodes 1 to ${count}`}, not node ${id}`,
    );
  }
  const files = kafkaNodeFiles(config, node);
  const address = `${config.host}:${node.port}`;
  const silent: Reporter = { line: () => undefined };
  return {
    id,
    address,
    logFile: files.log,
    pid: () => runningFromPidFile(files.pidFile)?.pid,
    kill: async () => {
      const record = runningFromPidFile(files.pidFile);
      if (record === undefined) return false;
      process.kill(record.pid, 'SIGKILL');
      if (!(await exitedWithin(record, 10_000))) {
        throw new StackError('kafka', `node ${id} (pid ${record.pid}) outlived SIGKILL by 10 s`);
      }
      return true;
    },
    start: async (reporter = silent) => {
      const running = runningFromPidFile(files.pidFile);
      const record = running ?? (await startKafka(config, reporter, node)).record;
      const outcome = await waitUntilReady(
        `kafka node ${id}: waiting to serve`,
        () => brokerServes(adminAccess(config), id),
        reporter,
        {
          deadlineMs: SERVES_WITHIN_MS,
          abandon: () =>
            isRunning(record) ? undefined : `exited during start-up: ${lastProblem(files.log)}`,
        },
      );
      if (!outcome.ready) {
        const why = outcome.timedOut
          ? `did not serve within ${seconds(SERVES_WITHIN_MS)} (${outcome.why})`
          : outcome.why;
        throw new StackError('kafka', `node ${id} ${why}`, { logFile: files.log });
      }
      return record.pid;
    },
  };
}
