/**
 * The loop itself: consume a partition's batch in chunks, handle each chunk in key lanes, and
 * commit its outputs with the group offset past it, through the modules beside this one (message
 * handling, key lanes, group commit, partition retry, lag report, producer renewal, shutdown).
 * Its life is one {@link LoopState}.
 */
import { ConfigError } from '@toolgate/shared';
import { Fault } from '../fault.js';
import { partitionCount, sortedAssignment, type GroupMembership } from '../group-membership.js';
import {
  membershipLost,
  type Assignment,
  type BusBatch,
  type BusConsumer,
  type BusConsumerOptions,
  type BusMessage,
  type OutRecord,
} from './bus-port.js';
import { GroupCommit } from './group-commit.js';
import { runKeyLanes } from './key-lanes.js';
import { LagReport } from './lag-report.js';
import { isActive, LoopState } from './loop-state.js';
import { asError, errorFields, secondsSince } from './loop-support.js';
import { MessageHandling } from './message-handling.js';
import {
  resolveStageLoopOptions,
  type ResolvedStageLoopOptions,
  type StageLoopOptions,
} from './options.js';
import { PartitionRetry } from './partition-retry.js';
import { ProducerRenewal } from './producer-renewal.js';
import { closeInOrder } from './shutdown.js';
import type { Outgoing, StageLoop } from './types.js';

/**
 * Starts a stage: connects a transactional producer (`<groupId>.<instanceId>`, which fences an
 * older one with the same id), joins the group, and consumes until {@link StageLoop.stop}.
 * Rejects with a `ConfigError` naming every option out of its range (before connecting anything),
 * and (after closing what it opened) when Kafka cannot be reached at start.
 */
export async function startStageLoop(options: StageLoopOptions): Promise<StageLoop> {
  const checked = resolveStageLoopOptions(options);
  if (!checked.ok) throw new ConfigError('stage loop options', checked.problems);
  const loop = new Loop(checked.options);
  await loop.start();
  return {
    ready: () => loop.ready(),
    state: () => loop.state.get(),
    membership: () => loop.membership(),
    produceTransactional: (outgoing) => loop.produceTransactional(outgoing),
    stop: () => loop.stop(),
  };
}

/** What handling a chunk produced. */
interface ChunkOutcome {
  readonly records: readonly OutRecord[];
  /** How many messages of the chunk were handled (their outputs are in `records`). */
  readonly handled: number;
  /** The first message not handled, after a retriable fault, if one was met. */
  readonly halt?: { readonly offset: string; readonly fault: Fault };
  /** A heartbeat failed: rethrown after the commit, or without one if the member was dropped. */
  readonly interrupted?: Error;
}

function plusOne(offset: string): string {
  return (BigInt(offset) + 1n).toString();
}

/** The lane of a message: its key's bytes; messages without a key share one lane. */
function laneKey(message: BusMessage): string {
  return message.key === null ? '' : message.key.toString('latin1');
}

// A class for what the loop composes, so each step is a short method rather than one closure.
class Loop {
  readonly state: LoopState;
  private readonly consumer: BusConsumer;
  private readonly messages: MessageHandling;
  private readonly producers: ProducerRenewal;
  private readonly commits: GroupCommit;
  private readonly retries: PartitionRetry;
  private readonly lag: LagReport;
  /** What the last group join gave this member; nothing once it left the group or stopped. */
  private held: Assignment = {};
  private stopping: Promise<void> | undefined;

  constructor(private readonly o: ResolvedStageLoopOptions) {
    const { logger, metrics } = o;
    this.state = new LoopState(logger, metrics.state?.bind(metrics));
    this.consumer = o.bus.consumer(consumerOptions(o));
    this.messages = new MessageHandling(o);
    this.producers = new ProducerRenewal({
      bus: o.bus,
      producerOptions: {
        transactionalId: `${o.groupId}.${o.instanceId}`,
        ...(o.transactionTimeoutMs === undefined
          ? {}
          : { transactionTimeoutMs: o.transactionTimeoutMs }),
      },
      logger,
      metrics,
      isClosing: () => this.stopping !== undefined,
      onFenced: (error) => this.crash(error),
    });
    this.commits = new GroupCommit({
      groupId: o.groupId,
      commitLingerMs: o.commitLingerMs,
      producers: this.producers,
      metrics,
    });
    this.retries = new PartitionRetry({
      consumer: this.consumer,
      committedOffset: (topic, partition) => o.bus.committedOffset(o.groupId, topic, partition),
      retry: o.retry,
      logger,
      metrics,
      isRunning: () => this.isRunning(),
    });
    this.lag = new LagReport(metrics);
  }

  ready(): boolean {
    return this.isRunning() && partitionCount(this.held) > 0;
  }

  membership(): GroupMembership {
    const { instanceId, groupId } = this.o;
    return { instanceId, groupId, partitions: this.isRunning() ? this.held : {} };
  }

  async start(): Promise<void> {
    this.consumer.onGroupJoin((assignment) => {
      this.held = sortedAssignment(assignment);
      this.lag.forgetOutside(assignment);
      this.o.logger.info({ assignment }, 'joined the consumer group');
    });
    this.consumer.onCrash((error, restarting) => this.onConsumerCrash(error, restarting));
    try {
      await this.producers.renew();
      await this.consumer.connect();
      await this.consumer.subscribe(
        this.o.topics.map((t) => t.name),
        { fromBeginning: this.o.fromBeginning },
      );
      // Crashed while connecting: the crash already stops the loop.
      if (!this.state.moveTo('running')) return;
      await this.consumer.run((batch) => this.onBatch(batch));
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  async produceTransactional(outgoing: readonly Outgoing[]): Promise<void> {
    await this.commits.send(await this.messages.encodeAll(outgoing));
  }

  private isRunning(): boolean {
    return this.state.get() === 'running';
  }

  // ---- consuming ---------------------------------------------------------------------------

  private async onBatch(batch: BusBatch): Promise<void> {
    const { messages } = batch;
    const size = this.o.maxBatchMessages;
    for (let start = 0; start < messages.length; start += size) {
      if (!this.isRunning() || batch.isStale()) return;
      const chunk = messages.slice(start, start + size);
      const isLast = start + size >= messages.length;
      if (!(await this.runChunk(batch, chunk, isLast))) return;
    }
  }

  /** Handles and commits one chunk; false when the rest of the batch must wait. */
  private async runChunk(
    batch: BusBatch,
    chunk: readonly BusMessage[],
    isLast: boolean,
  ): Promise<boolean> {
    const started = performance.now();
    const outcome = await this.commits.whileHandling(() => this.handleChunk(batch, chunk));
    // Out of the group: another member may own the partition now, so nothing is committed; kafkajs
    // rejoins and the chunk is delivered again to whoever owns it.
    if (outcome.interrupted !== undefined && membershipLost(outcome.interrupted)) {
      throw outcome.interrupted;
    }
    const last = chunk[outcome.handled - 1];
    if (last !== undefined) {
      const complete = outcome.handled === chunk.length && isLast;
      // Past the last record of the fetch, so control records behind it are skipped as well.
      const next = plusOne(complete ? batch.lastOffset() : last.offset);
      const position = { topic: batch.topic, partition: batch.partition, offset: next };
      if (!(await this.commits.commit(outcome.records, position))) {
        const first = chunk[0]?.offset ?? last.offset;
        this.lag.report(batch, first);
        this.retries.rewindAfterFailedCommit(batch.topic, batch.partition, first);
        return false;
      }
      batch.resolveOffset(last.offset);
      this.o.metrics.batch?.(secondsSince(started), outcome.handled);
      this.lag.report(batch, next);
    }
    if (outcome.halt !== undefined) {
      // Held at the failed message, perhaps with nothing committed: the lag counts from there.
      const { offset, fault } = outcome.halt;
      this.lag.report(batch, offset);
      this.retries.retryLater(batch.topic, batch.partition, offset, fault);
      return false;
    }
    // Committed first, as a member does when its partitions are revoked; kafkajs then rejoins.
    if (outcome.interrupted !== undefined) throw outcome.interrupted;
    return outcome.handled === chunk.length;
  }

  /**
   * Handles a chunk in key lanes (`key-lanes.ts`), with a heartbeat after each message and on a
   * timer while it lasts (see {@link keepAlive}). The outcome covers the longest prefix of the
   * chunk that was handled in full; whatever a lane handled past it is delivered again, which the
   * handlers' deterministic ids make harmless.
   */
  private async handleChunk(batch: BusBatch, chunk: readonly BusMessage[]): Promise<ChunkOutcome> {
    const heard: { interrupted?: Error | undefined } = {};
    const beat = async () => hear(heard, await batch.heartbeat().then(() => undefined, asError));
    const stopBeating = keepAlive(beat, this.o.heartbeatEveryMs);
    try {
      return await this.handleChunkLanes(batch, chunk, heard, beat);
    } finally {
      stopBeating();
    }
  }

  private async handleChunkLanes(
    batch: BusBatch,
    chunk: readonly BusMessage[],
    heard: { interrupted?: Error | undefined },
    beat: () => Promise<void>,
  ): Promise<ChunkOutcome> {
    const { handled, halt } = await runKeyLanes<OutRecord[], Fault>({
      keys: chunk.map(laneKey),
      lanesAtOnce: this.o.keysConcurrently,
      // Stopping, or a heartbeat said the group is changing: leave the rest for the next delivery.
      mayStart: () => this.isRunning() && heard.interrupted === undefined,
      handle: async (index, release) => {
        let records: OutRecord[];
        try {
          records = await this.messages.handle(
            batch.topic,
            batch.partition,
            chunk[index] as BusMessage,
            release,
          );
        } catch (error) {
          // Only retriable faults come here; anything else is a bug of the loop itself, and
          // kafkajs delivers the batch again.
          if (!(error instanceof Fault && error.retriable)) throw error;
          return { halted: error };
        }
        // Many fast handlers must not cost the membership either (kafkajs sends one per interval).
        await beat();
        return { handled: records };
      },
    });
    // The backoff grows while the partition keeps failing, and starts over once a chunk goes through.
    if (halt === undefined && handled.length > 0) {
      this.retries.succeeded(batch.topic, batch.partition);
    }
    const next = chunk[handled.length];
    return {
      records: handled.flat(),
      handled: handled.length,
      ...(halt === undefined || next === undefined
        ? {}
        : { halt: { offset: next.offset, fault: halt } }),
      ...(heard.interrupted === undefined ? {} : { interrupted: heard.interrupted }),
    };
  }

  // ---- stopping ----------------------------------------------------------------------------

  private onConsumerCrash(error: Fault, restarting: boolean): void {
    // A crashed consumer has left the group; a restarted one is told its share when it rejoins.
    this.held = {};
    if (restarting) {
      this.o.logger.warn(errorFields(error), 'consumer crashed; kafkajs restarts it');
      return;
    }
    this.crash(error);
  }

  private crash(error: Error): void {
    if (!this.state.moveTo('crashed', errorFields(error))) return;
    // Not awaited: a crash is noticed inside a batch, and stopping waits for that batch to end.
    void this.stop();
    this.o.onCrash?.(error);
  }

  stop(): Promise<void> {
    this.stopping ??= this.close();
    return this.stopping;
  }

  private async close(): Promise<void> {
    if (isActive(this.state.get())) this.state.moveTo('stopping');
    this.held = {};
    this.retries.cancel();
    await closeInOrder(
      [
        ['leave the group', () => this.consumer.disconnect()],
        ['finish the open transaction', () => this.commits.settled()],
        ['disconnect the producer', () => this.producers.disconnect()],
      ],
      this.o.stopTimeoutMs,
      this.o.logger,
    );
    // A crashed loop stays crashed; it has stopped all the same.
    if (!this.state.moveTo('stopped')) {
      this.o.logger.info({ state: this.state.get() }, 'stage loop stopped');
    }
  }
}

/**
 * Calls `beat` every `everyMs` until the returned function is called, one call at a time: kafkajs
 * heartbeats only when asked, so without this a handler longer than the session timeout would
 * lose its partition mid-handler, and another member would run the same command.
 */
function keepAlive(beat: () => Promise<void>, everyMs: number): () => void {
  let beating = false;
  const timer = setInterval(() => {
    if (beating) return;
    beating = true;
    void beat().finally(() => (beating = false));
  }, everyMs);
  return () => clearInterval(timer);
}

/**
 * Keeps the first heartbeat error of a chunk, unless a later one says the membership is lost: then
 * that one, so the chunk is not committed by a member the group has already dropped.
 */
function hear(heard: { interrupted?: Error | undefined }, error: Error | undefined): void {
  if (error === undefined) return;
  if (
    heard.interrupted === undefined ||
    (membershipLost(error) && !membershipLost(heard.interrupted))
  ) {
    heard.interrupted = error;
  }
}

/** The consumer of a loop: read-committed, with the loop's fetch settings. */
function consumerOptions(o: ResolvedStageLoopOptions): BusConsumerOptions {
  return {
    groupId: o.groupId,
    readCommitted: true,
    minBytes: o.fetchMinBytes,
    maxWaitTimeMs: o.maxWaitTimeMs,
    idleMaxWaitTimeMs: o.idleMaxWaitTimeMs,
    busyMinBytes: o.fetchBusyMinBytes,
    ...(o.sessionTimeoutMs === undefined ? {} : { sessionTimeoutMs: o.sessionTimeoutMs }),
    partitionsConcurrently: o.partitionsConcurrently,
  };
}
