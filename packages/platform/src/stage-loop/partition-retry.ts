/**
 * Holding a partition back, and letting it go again. After a retriable fault the partition is
 * paused and rewound to the first message not handled in full, and resumed after a capped,
 * jittered backoff that grows while the partition keeps failing and starts over once a chunk of
 * it goes through. After a failed transaction it is rewound to the group's committed offset
 * instead, since the commit may have landed even though its answer was lost.
 */
import type { AdapterLogger } from '../adapter-logger.js';
import type { Fault } from '../fault.js';
import { backoffDelay, type RetryPolicy } from '../retry-backoff.js';
import type { BusConsumer } from './bus-port.js';
import { errorFields } from './loop-support.js';
import type { StageLoopMetrics } from './types.js';

/** What {@link PartitionRetry} needs. */
export interface PartitionRetryOptions {
  readonly consumer: Pick<BusConsumer, 'pause' | 'seek' | 'resume'>;
  /** The group's committed offset of a partition; undefined when it has none. */
  committedOffset(topic: string, partition: number): Promise<string | undefined>;
  readonly retry: RetryPolicy;
  readonly logger: AdapterLogger;
  readonly metrics: Pick<StageLoopMetrics, 'fault'>;
  /** False once the loop stops: nothing is resumed then. */
  isRunning(): boolean;
}

/** Pauses, rewinds and resumes the partitions of one loop. */
export class PartitionRetry {
  /** Failed attempts in a row, by `topic/partition`. */
  private readonly attempts = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly o: PartitionRetryOptions) {}

  /** A chunk of the partition went through: its backoff starts over. */
  succeeded(topic: string, partition: number): void {
    this.attempts.delete(`${topic}/${partition}`);
  }

  /** Pauses the partition at `offset` and resumes it after the backoff for this attempt. */
  retryLater(topic: string, partition: number, offset: string, fault: Fault): void {
    const attempt = this.nextAttempt(topic, partition);
    const delayMs = backoffDelay(attempt, this.o.retry);
    this.o.metrics.fault?.(fault.code);
    this.o.logger.warn(
      { topic, partition, offset, code: fault.code, attempt, delayMs, err: fault.message },
      'retriable fault; pausing the partition and delivering the message again',
    );
    this.o.consumer.pause(topic, partition);
    this.o.consumer.seek(topic, partition, offset);
    this.later(delayMs, () => Promise.resolve(this.o.consumer.resume(topic, partition)));
  }

  /**
   * After a failed transaction: pause, and when the backoff is over rewind to the group's
   * committed offset (the commit may have landed even though the answer was lost), then resume.
   */
  rewindAfterFailedCommit(topic: string, partition: number, firstOffset: string): void {
    const attempt = this.nextAttempt(topic, partition);
    this.o.consumer.pause(topic, partition);
    this.later(backoffDelay(attempt, this.o.retry), async () => {
      const committed = await this.o.committedOffset(topic, partition);
      // No committed offset at all: this chunk's commit cannot have landed.
      this.o.consumer.seek(topic, partition, committed ?? firstOffset);
      this.o.consumer.resume(topic, partition);
    });
  }

  /** Forgets every pending resume: the loop is stopping. */
  cancel(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private nextAttempt(topic: string, partition: number): number {
    const key = `${topic}/${partition}`;
    const attempt = (this.attempts.get(key) ?? 0) + 1;
    this.attempts.set(key, attempt);
    return attempt;
  }

  /**
   * Runs `job` after `delayMs`; if it fails (Kafka still down, or the consumer restarting after a
   * crash, when kafkajs throws from `resume` at once) it is tried again later. A throw is caught
   * however it comes: one escaping a timer would end the process.
   */
  private later(delayMs: number, job: () => Promise<void>, attempt = 1): void {
    if (!this.o.isRunning()) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.o.isRunning()) return;
      Promise.resolve()
        .then(job)
        .catch((error: unknown) => {
          this.o.logger.warn(errorFields(error), 'could not resume a paused partition yet');
          this.later(backoffDelay(attempt + 1, this.o.retry), job, attempt + 1);
        });
    }, delayMs);
    this.timers.add(timer);
  }
}
