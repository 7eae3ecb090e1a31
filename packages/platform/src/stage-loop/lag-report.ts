/**
 * The consumer lag of each partition this loop holds: the records from the group's next position
 * to the end of the partition as of its last fetch. Reported after every commit, and whenever the
 * partition is held back, so a stage that keeps failing does not show the lag of its last
 * success; forgotten when another member of the group takes the partition.
 */
import type { Assignment, BusBatch } from './bus-port.js';
import type { StageLoopMetrics } from './types.js';

/**
 * The records from `position` (the next one the group will consume) to the end of the partition.
 * The broker reads the high watermark before the log, so a fetch can bring records at or past it
 * (record 0 with a high watermark of 0): the end is at least past what the fetch covered.
 */
export function lagOf(highWatermark: string, lastOffset: string, position: string): number {
  const watermark = BigInt(highWatermark);
  const covered = BigInt(lastOffset) + 1n;
  const lag = (covered > watermark ? covered : watermark) - BigInt(position);
  return lag > 0n ? Number(lag) : 0;
}

/** Reports and forgets the lag of one loop's partitions. */
export class LagReport {
  /** The partitions whose lag this loop reported (`topic/partition`). */
  private readonly lagged = new Map<string, { topic: string; partition: number }>();

  constructor(private readonly metrics: Pick<StageLoopMetrics, 'lag' | 'forgetLag'>) {}

  /** The partition's lag as of `batch`, counted from `position`. */
  report(batch: BusBatch, position: string): void {
    const { topic, partition } = batch;
    this.lagged.set(`${topic}/${partition}`, { topic, partition });
    this.metrics.lag?.(topic, partition, lagOf(batch.highWatermark, batch.lastOffset(), position));
  }

  /** After a rebalance: the lag of a partition another member owns now is that member's to say. */
  forgetOutside(assignment: Assignment): void {
    for (const [key, { topic, partition }] of this.lagged) {
      if (assignment[topic]?.includes(partition) === true) continue;
      this.lagged.delete(key);
      this.metrics.forgetLag?.(topic, partition);
    }
  }
}
