/**
 * Group commit: one producer, one open transaction at a time, each carrying every chunk that
 * became ready while the one before ran, with all their offsets. A transaction costs the same
 * broker round trips whatever it carries, so a stage's latency does not grow with its partitions.
 * Before a transaction starts it waits, up to `commitLingerMs`, for chunks still being handled:
 * kafkajs fetches again only once every chunk of a fetch is done, so one transaction for all of
 * them is usually no later than the last of two would have been. A failed transaction fails
 * every chunk in it.
 */
import type { OutRecord, PartitionOffset } from './bus-port.js';
import { asError, secondsSince } from './loop-support.js';
import type { ProducerRenewal } from './producer-renewal.js';
import type { StageLoopMetrics } from './types.js';

/** What {@link GroupCommit} needs. */
export interface GroupCommitOptions {
  readonly groupId: string;
  /** How long a transaction waits for chunks still being handled, in ms; 0 does not wait. */
  readonly commitLingerMs: number;
  readonly producers: ProducerRenewal;
  readonly metrics: Pick<StageLoopMetrics, 'transaction'>;
}

/** Records waiting for the next transaction, and whom to tell how it went. */
interface TransactionShare {
  readonly records: readonly OutRecord[];
  /** The group offset to commit with them; none for timer-driven outputs. */
  readonly position: PartitionOffset | undefined;
  done(error: Error | undefined): void;
}

/** Gathers chunks into shared transactions. */
export class GroupCommit {
  private readonly waiting: TransactionShare[] = [];
  private flushing: Promise<void> | undefined;
  /** Chunks being handled now; the next transaction waits for them (see untilHandled). */
  private handling = 0;
  private allHandled: (() => void) | undefined;

  constructor(private readonly o: GroupCommitOptions) {}

  /** Runs `work`, the handling of one chunk, as one the next transaction waits for. */
  async whileHandling<T>(work: () => Promise<T>): Promise<T> {
    this.handling += 1;
    try {
      return await work();
    } finally {
      this.handling -= 1;
      if (this.handling === 0) this.allHandled?.();
    }
  }

  /** Sends `records` and moves the group to `position` in a transaction; false if it failed. */
  commit(records: readonly OutRecord[], position: PartitionOffset): Promise<boolean> {
    return this.share(records, position).then(
      () => true,
      () => false,
    );
  }

  /** Sends `records` in a transaction, with no offsets; rejects if it failed. */
  send(records: readonly OutRecord[]): Promise<void> {
    return this.share(records, undefined);
  }

  /** Settles once the transactions queued so far have ended. */
  settled(): Promise<void> {
    return this.flushing ?? Promise.resolve();
  }

  /** Queues `records` (and `position`) for the next transaction; settles when it has ended. */
  private share(
    records: readonly OutRecord[],
    position: PartitionOffset | undefined,
  ): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({
        records,
        position,
        done: (error) => (error === undefined ? resolve() : reject(error)),
      });
      this.flushing ??= this.flush();
    });
  }

  /** One producer, one open transaction: each takes everything queued while the last one ran. */
  private async flush(): Promise<void> {
    // Chunks of other partitions of the same fetch are often a moment behind: let them board too.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.waiting.length > 0) {
      await this.untilHandled();
      const shares = this.waiting.splice(0);
      let failure: Error | undefined;
      let partitions = 0;
      const started = performance.now();
      try {
        partitions = await this.inTransaction(shares);
      } catch (error) {
        failure = asError(error);
      }
      const seconds = secondsSince(started);
      this.o.metrics.transaction?.(seconds, shares.length, partitions);
      if (failure !== undefined) await this.o.producers.afterFailedTransaction(failure, seconds);
      for (const share of shares) share.done(failure);
    }
    this.flushing = undefined;
  }

  /** Waits until no chunk is being handled (each has joined the queue or given up), at most `commitLingerMs`. */
  private untilHandled(): Promise<void> {
    if (this.handling === 0 || this.o.commitLingerMs === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.allHandled = undefined;
        resolve();
      };
      const timer = setTimeout(done, this.o.commitLingerMs);
      this.allHandled = done;
    });
  }

  /** Sends the shares' records and offsets in one transaction; the partitions it wrote to. */
  private async inTransaction(shares: readonly TransactionShare[]): Promise<number> {
    const records = shares.flatMap((share) => share.records);
    const positions = shares.flatMap((share) =>
      share.position === undefined ? [] : [share.position],
    );
    const producer = await this.o.producers.current();
    const tx = await producer.transaction();
    try {
      const written = records.length > 0 ? await tx.send(records) : [];
      if (positions.length > 0) await tx.sendOffsets(this.o.groupId, positions);
      await tx.commit();
      return new Set(written.map((p) => `${p.partition}:${p.topic}`)).size;
    } catch (error) {
      if (tx.isActive()) await tx.abort().catch(() => undefined);
      throw error;
    }
  }
}
