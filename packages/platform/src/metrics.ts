/**
 * The process's Prometheus metrics: its own prom-client registry (never the global one), so that
 * several stages in one process or one test never share counters. Every series carries the
 * `stage` label of the service that owns the registry.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Disposition, Rung } from '@toolgate/shared';

/** Buckets of one message's handling, in seconds (0.5 ms to 5 s). */
export const HANDLE_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
] as const;

/** Buckets of one batch (handling plus the transaction), in seconds (1 ms to 30 s). */
export const BATCH_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] as const;

/** Buckets of one Redis call as its caller waited for it, in seconds (0.1 ms to 2.5 s). */
export const STORE_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
] as const;

/** One decision as the metrics see it; a `Rejected` value fits as it is. */
export interface DecisionLabels {
  readonly disposition: Disposition;
  /** The rung that decided (for a refusal, the one that refused). */
  readonly stage: Rung;
  /** The catalogue code; absent for an acceptance. */
  readonly code?: string;
}

/** A stage's metrics. */
export interface Metrics {
  /** The registry, for the HTTP endpoint or tests. */
  readonly registry: Registry;
  /** `Content-Type` of {@link Metrics.render}. */
  readonly contentType: string;
  /** The Prometheus text exposition of every metric. */
  render(): Promise<string>;
  /** `toolgate_messages_in_total{stage,topic}`: one message consumed from `topic`. */
  messageIn(topic: string): void;
  /** `toolgate_decisions_total{stage,disposition,rung,code}`; `code` is `none` for an acceptance. */
  decision(labels: DecisionLabels): void;
  /** `toolgate_handle_seconds`: one message's handling took `seconds`. */
  observeHandle(seconds: number): void;
  /** `toolgate_batch_seconds`: one batch (handling and transaction) took `seconds`. */
  observeBatch(seconds: number): void;
  /**
   * `toolgate_transaction_seconds`, `toolgate_transaction_chunks_total` and
   * `toolgate_transaction_partitions_total`: one transaction took `seconds`, carried `chunks`
   * chunks and wrote to `partitions` partitions (per transaction: a counter over the histogram's
   * count). The broker writes a commit marker to every partition a transaction wrote to.
   */
  observeTransaction(seconds: number, chunks: number, partitions: number): void;
  /** Starts a timer; the returned function records into `toolgate_handle_seconds` and returns seconds. */
  startHandleTimer(): () => number;
  /**
   * `toolgate_store_seconds{stage,op,result}`: the process waited `seconds` for one Redis call
   * (`result` is `ok` or `fault`). Like the `nodejs_*` series, it counts the whole process: every
   * stage that shares its Redis connection reports the same calls.
   */
  observeStore(op: string, seconds: number, ok: boolean): void;
  /** `toolgate_consumer_lag{stage,topic,partition}`: messages behind the end of the partition. */
  lag(topic: string, partition: number, lag: number): void;
  /** Drops a partition's lag: another member of the group owns it now. */
  forgetLag(topic: string, partition: number): void;
  /** `toolgate_faults_total{stage,code,retriable}`: a fault was thrown by a handler or adapter. */
  fault(code: string, retriable: boolean): void;
  /**
   * `toolgate_topic_consumed{stage,group,topic}`: 1 when some member of `group` was subscribed to
   * `topic` at the last look, else 0. Only processes that watch a group set it.
   */
  topicConsumed(group: string, topic: string, consumed: boolean): void;
  /**
   * `toolgate_refused_forgeries_total{stage,message,reason}`: a message that did not prove its
   * origin (a command without a valid proof, a forged result, an unsigned observation) was
   * dropped before anything acted on it.
   */
  forgery(message: string, reason: string): void;
}

/** Options of {@link createMetrics}. */
export interface MetricsOptions {
  /** Also collect prom-client's process metrics (CPU, memory, event loop); default true. */
  readonly processMetrics?: boolean;
}

/** A fresh registry with the documented metric names for `stage`. */
export function createMetrics(stage: string, options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ stage });
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const messages = new Counter({
    name: 'toolgate_messages_in_total',
    help: 'Messages consumed, by topic.',
    labelNames: ['topic'],
    registers,
  });
  const decisions = new Counter({
    name: 'toolgate_decisions_total',
    help: 'Decisions, by disposition, the rung that decided, and catalogue code (none = accepted).',
    labelNames: ['disposition', 'rung', 'code'],
    registers,
  });
  const handle = new Histogram({
    name: 'toolgate_handle_seconds',
    help: 'Time to handle one message, in seconds.',
    buckets: [...HANDLE_BUCKETS],
    registers,
  });
  const batch = new Histogram({
    name: 'toolgate_batch_seconds',
    help: 'Time to handle one batch and commit its transaction, in seconds.',
    buckets: [...BATCH_BUCKETS],
    registers,
  });
  const transaction = new Histogram({
    name: 'toolgate_transaction_seconds',
    help: 'Time from beginning a Kafka transaction to its commit or abort, in seconds.',
    buckets: [...BATCH_BUCKETS],
    registers,
  });
  const transactionChunks = new Counter({
    name: 'toolgate_transaction_chunks_total',
    help: 'Chunks (and produce-only shares) carried by transactions.',
    registers,
  });
  const transactionPartitions = new Counter({
    name: 'toolgate_transaction_partitions_total',
    help: 'Partitions committed transactions wrote records to (each gets a commit marker).',
    registers,
  });
  const store = new Histogram({
    name: 'toolgate_store_seconds',
    help: "Time the process waited for one Redis call (its connection's, whichever stage made it).",
    labelNames: ['op', 'result'],
    buckets: [...STORE_BUCKETS],
    registers,
  });
  const lag = new Gauge({
    name: 'toolgate_consumer_lag',
    help: 'Messages between the committed position and the end of the partition.',
    labelNames: ['topic', 'partition'],
    registers,
  });
  const faults = new Counter({
    name: 'toolgate_faults_total',
    help: 'Faults thrown while handling, by code and whether they are retriable.',
    labelNames: ['code', 'retriable'],
    registers,
  });
  const topicConsumed = new Gauge({
    name: 'toolgate_topic_consumed',
    help: 'Whether some member of the consumer group was subscribed to the topic at the last look.',
    labelNames: ['group', 'topic'],
    registers,
  });
  const forgeries = new Counter({
    name: 'toolgate_refused_forgeries_total',
    help: 'Messages that did not prove their origin, dropped before anything acted on them.',
    labelNames: ['message', 'reason'],
    registers,
  });
  return {
    registry,
    contentType: registry.contentType,
    render: () => registry.metrics(),
    messageIn: (topic) => messages.inc({ topic }),
    decision: (d) =>
      decisions.inc({ disposition: d.disposition, rung: d.stage, code: d.code ?? 'none' }),
    observeHandle: (seconds) => handle.observe(seconds),
    observeBatch: (seconds) => batch.observe(seconds),
    observeTransaction: (seconds, chunks, partitions) => {
      transaction.observe(seconds);
      transactionChunks.inc(chunks);
      transactionPartitions.inc(partitions);
    },
    startHandleTimer: () => handle.startTimer(),
    observeStore: (op, seconds, ok) => store.observe({ op, result: ok ? 'ok' : 'fault' }, seconds),
    lag: (topic, partition, value) => lag.set({ topic, partition: String(partition) }, value),
    forgetLag: (topic, partition) => lag.remove({ topic, partition: String(partition) }),
    fault: (code, retriable) => faults.inc({ code, retriable: String(retriable) }),
    topicConsumed: (group, topic, consumed) =>
      topicConsumed.set({ group, topic }, consumed ? 1 : 0),
    forgery: (message, reason) => forgeries.inc({ message, reason }),
  };
}

/** The stage loop's metric callbacks, fed into a stage's {@link Metrics}. */
export function loopMetrics(metrics: Metrics): {
  messageIn(topic: string): void;
  handled(seconds: number): void;
  batch(seconds: number, size: number): void;
  transaction(seconds: number, chunks: number, partitions: number): void;
  lag(topic: string, partition: number, lag: number): void;
  forgetLag(topic: string, partition: number): void;
  fault(code: string, retriable: boolean): void;
} {
  return {
    messageIn: (topic) => metrics.messageIn(topic),
    handled: (seconds) => metrics.observeHandle(seconds),
    batch: (seconds) => metrics.observeBatch(seconds),
    transaction: (seconds, chunks, partitions) =>
      metrics.observeTransaction(seconds, chunks, partitions),
    lag: (topic, partition, value) => metrics.lag(topic, partition, value),
    forgetLag: (topic, partition) => metrics.forgetLag(topic, partition),
    fault: (code, retriable) => metrics.fault(code, retriable),
  };
}
