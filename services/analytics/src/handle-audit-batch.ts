/**
 * One audit partition's windows and what they write: each batch of audit records is decoded,
 * counted into the partition's windows, and the final counts of the windows it closed, the alerts
 * it raised and the partition's new window state go out in ONE transaction with the partition's
 * offset. The transaction commits all of it or none, so a crash anywhere neither loses a count nor
 * counts one twice: the next owner rebuilds the windows from the state that matches the offset.
 */
import type { BusBatch, BusProducer, Codec, OutRecord } from '@toolgate/platform';
import {
  alertKey,
  windowRecords,
  type Alert,
  type AlertEngine,
  type AuditEvent,
  type FinalWindow,
  type PartitionWindows,
  type WindowCounts,
  type WindowSize,
  type WindowStateRecord,
} from '@toolgate/shared';

/** The full names of the topics the service reads and writes. */
export interface AnalyticsTopics {
  readonly audit: string;
  readonly refusalStats: string;
  readonly windowState: string;
  readonly alerts: string;
}

/** What a partition's handler needs. */
export interface PartitionDeps {
  readonly codec: Codec;
  readonly topics: AnalyticsTopics;
  /** The service's consumer group: the offsets committed with each transaction are its. */
  readonly groupId: string;
  readonly logger: {
    warn(fields: object, message: string): void;
    debug(fields: object, message: string): void;
  };
  readonly alerts?: AlertEngine;
  /**
   * Told of every late record (once per window size it was late for, with that size), every
   * invalid record and every window written (for metrics).
   */
  readonly observe?: (
    what: 'late' | 'invalid' | 'window',
    partition: number,
    size?: WindowSize,
  ) => void;
  /** Told of what a transaction committed, once it has (for the live view and the metrics). */
  readonly committed?: (what: Committed) => void;
}

/** What one committed transaction of a partition carried. */
export interface Committed {
  readonly partition: number;
  /** Windows whose final counts it wrote. */
  readonly windows: readonly FinalWindow[];
  readonly alerts: readonly Alert[];
  /** The audit events it consumed that the windows counted, in partition order (none for a tick). */
  readonly events: readonly AuditEvent[];
  /** Audit records it consumed (0 for a tick). */
  readonly consumed: number;
  /** Records of the partition not yet read after it, when a batch was consumed. */
  readonly lag?: number;
  /** How long the transaction took, seconds. */
  readonly seconds: number;
}

/** The windows of one audit partition, owned by this instance while it holds the partition. */
export class PartitionCounter {
  /** Offset of the next audit record to count, as committed with the last transaction. */
  private next: bigint | null;
  private behind = true;
  private lastFetchMs: number;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: PartitionDeps,
    readonly partition: number,
    private readonly producer: BusProducer,
    private readonly windows: PartitionWindows,
    nextOffset: string | null,
    loadedAtMs: number,
  ) {
    this.next = nextOffset === null ? null : BigInt(nextOffset);
    this.lastFetchMs = loadedAtMs;
  }

  /** Offset of the next record to count, as committed; null before the first commit. */
  nextOffset(): string | null {
    return this.next === null ? null : this.next.toString();
  }

  /** Runs `work` after the partition's earlier work: batches and ticks never overlap. */
  serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.chain.then(work);
    this.chain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * Counts a batch and commits its outputs with its offset. Records before the committed offset
   * (delivered again after a rebalance) are skipped: their counts are in the restored state.
   * Throws when the transaction fails; the windows are then ahead of what was committed, and the
   * caller must drop this counter and restore the partition from its state.
   */
  async handleBatch(batch: BusBatch, nowMs: number): Promise<void> {
    const out: OutRecord[] = [];
    const finals: FinalWindow[] = [];
    const raised: Alert[] = [];
    const events: AuditEvent[] = [];
    let consumed = 0;
    const next = BigInt(batch.lastOffset()) + 1n;
    for (const message of batch.messages) {
      if (this.next !== null && BigInt(message.offset) < this.next) continue;
      consumed += 1;
      const decoded = await this.deps.codec.decode(message.value, { plainJsonAllowed: false });
      const value = 'error' in decoded ? undefined : decoded.value;
      const observed = this.windows.observe(value, nowMs);
      if (observed.invalid !== undefined) {
        this.deps.logger.warn(
          {
            partition: this.partition,
            offset: message.offset,
            reason: 'error' in decoded ? decoded.error : observed.invalid,
          },
          'an audit record is not an audit event: counted as invalid, not in any window',
        );
        this.deps.observe?.('invalid', this.partition);
      }
      for (const size of observed.lateIn) this.deps.observe?.('late', this.partition, size);
      out.push(...(await this.windowOutputs(observed.closed)));
      finals.push(...observed.closed);
      if (observed.invalid === undefined) events.push(value as AuditEvent);
      if (observed.invalid === undefined && this.deps.alerts !== undefined) {
        const position = { partition: this.partition, offset: message.offset };
        const alerts = this.deps.alerts.observe(value as AuditEvent, position);
        out.push(...(await this.alertOutputs(alerts)));
        raised.push(...alerts);
      }
    }
    if (batch.messages.length > 0 || this.next === null || next > this.next) {
      const seconds = await this.commit(out, next);
      const lag = Number(BigInt(batch.highWatermark) - next);
      this.deps.committed?.({
        partition: this.partition,
        windows: finals,
        alerts: raised,
        events,
        consumed,
        lag: Math.max(0, lag),
        seconds,
      });
    }
    this.behind = next < BigInt(batch.highWatermark);
    this.lastFetchMs = nowMs;
    batch.resolveOffset(batch.lastOffset());
  }

  /**
   * Closes the windows the clock closes (see `PartitionWindows.tick`) and writes them with
   * `alerts` (raised by the clock), in a transaction of their own. The partition counts as read
   * to its end when the last batch reached the end, or when nothing was fetched for the idle time
   * (kafkajs hands over no batch that holds only transaction markers).
   */
  async tick(nowMs: number, idleMs: number, alerts: readonly Alert[] = []): Promise<void> {
    const caughtUp = !this.behind || nowMs - this.lastFetchMs >= idleMs;
    const closed = this.windows.tick(nowMs, caughtUp);
    if (closed.length === 0 && alerts.length === 0) return;
    const out = [...(await this.windowOutputs(closed)), ...(await this.alertOutputs(alerts))];
    // No offsets: a tick consumed nothing, and an owner that lost the partition a moment ago must
    // not move the group's offset back (its producer is fenced by then in any case).
    const seconds = await this.commit(out, null);
    this.deps.committed?.({
      partition: this.partition,
      windows: closed,
      alerts,
      events: [],
      consumed: 0,
      seconds,
    });
  }

  /** The partition's open windows (live counts). */
  live(): readonly WindowCounts[] {
    return this.windows.live();
  }

  /** Disconnects the partition's producer (an open transaction is aborted by the next owner). */
  async close(): Promise<void> {
    await this.producer.disconnect();
  }

  /**
   * Commits `out` and the window state, with the offset `next` when a batch was consumed; returns
   * how long the transaction took, seconds.
   */
  private async commit(out: readonly OutRecord[], next: bigint | null): Promise<number> {
    const startedAt = performance.now();
    const state: WindowStateRecord = {
      partition: this.partition,
      nextOffset: (next ?? this.next ?? 0n).toString(),
      windows: this.windows.snapshot(),
    };
    const records = [
      ...out,
      {
        topic: this.deps.topics.windowState,
        key: String(this.partition),
        value: await this.deps.codec.encode(`${this.deps.topics.windowState}-value`, state),
      },
    ];
    const tx = await this.producer.transaction();
    try {
      await tx.send(records);
      if (next !== null) {
        await tx.sendOffsets(this.deps.groupId, [
          { topic: this.deps.topics.audit, partition: this.partition, offset: next.toString() },
        ]);
      }
      await tx.commit();
    } catch (error) {
      if (tx.isActive()) await tx.abort().catch(() => undefined);
      throw error;
    }
    if (next !== null) this.next = next;
    return (performance.now() - startedAt) / 1000;
  }

  private async windowOutputs(closed: readonly FinalWindow[]): Promise<OutRecord[]> {
    const topic = this.deps.topics.refusalStats;
    const out: OutRecord[] = [];
    for (const final of closed) {
      this.deps.observe?.('window', this.partition);
      this.deps.logger.debug(
        { partition: this.partition, size: final.counts.size, start: final.counts.startMs },
        'window closed',
      );
      for (const r of windowRecords(final)) {
        out.push({
          topic,
          key: r.key,
          value: await this.deps.codec.encode(`${topic}-value`, r.value),
        });
      }
    }
    return out;
  }

  private async alertOutputs(alerts: readonly Alert[]): Promise<OutRecord[]> {
    const topic = this.deps.topics.alerts;
    const out: OutRecord[] = [];
    for (const alert of alerts) {
      out.push({
        topic,
        key: alertKey(alert),
        value: await this.deps.codec.encode(`${topic}-value`, alert),
      });
    }
    return out;
  }
}
