/**
 * The analytics service: reads the audit topic (read_committed) as its own consumer group, counts
 * decisions in tumbling event-time windows per audit partition, and writes each window's final
 * counts once to the refusal-stats topic, in the same transaction as the audit offsets they
 * consumed and the partition's window state (docs/analytics-windows.md, docs/decisions/0008).
 *
 * It runs its own small loop rather than the stage loop: the stage loop handles one message at a
 * time with one transactional producer per instance, and the windows need a producer per audit
 * partition (whose transactional id fences the partition's previous owner before its state is
 * read back), state restored on assignment, and ticks of the clock serialised with the batches.
 * It needs neither the gate's integrity key nor Redis.
 */
import {
  readTopicWindow,
  type Bus,
  type GroupMembership,
  type BusBatch,
  type BusConsumer,
  type Codec,
  type JsonSchemaObject,
} from '@toolgate/platform';
import {
  isWindowStateOf,
  PartitionWindows,
  windowRecordSchema,
  windowStateSchema,
  type Alert,
  type AlertEngine,
  type WindowCounts,
  type WindowSettings,
  type WindowStateRecord,
} from '@toolgate/shared';
import {
  PartitionCounter,
  type AnalyticsTopics,
  type PartitionDeps,
} from './handle-audit-batch.js';

export type { AnalyticsTopics, Committed } from './handle-audit-batch.js';

/** The service's name everywhere: folder, package, consumer group, log field. */
export const SERVICE = 'analytics' as const;

/** What {@link startAnalytics} needs. Owns no connection: the caller opens and closes them. */
export interface AnalyticsDeps {
  /** A bus as the analytics principal (`toolgate-analytics`). */
  readonly bus: Bus;
  readonly codec: Codec;
  readonly topics: AnalyticsTopics;
  /** `<group prefix>toolgate.analytics`; transactional ids are `<groupId>.p<partition>`. */
  readonly groupId: string;
  /**
   * TOOLGATE_INSTANCE_ID, named in the health answers. The transactional ids do not use it: they
   * belong to the audit partitions, so whichever instance takes a partition over fences its
   * previous owner.
   */
  readonly instanceId: string;
  readonly settings: WindowSettings;
  /** How often the clock is checked for windows to close, ms. */
  readonly tickMs: number;
  readonly logger: PartitionDeps['logger'] & {
    info(fields: object, message: string): void;
    error(fields: object, message: string): void;
  };
  /**
   * Raises alerts from the same events, in partition order, and from the clock; its alerts are
   * written to the alerts topic (key: rule and subject) in the same transactions as the counts.
   * Requires {@link AnalyticsDeps.alertSchema}.
   */
  readonly alerts?: AlertEngine;
  /** The JSON Schema registered for the alerts topic's values, with {@link AnalyticsDeps.alerts}. */
  readonly alertSchema?: JsonSchemaObject;
  /** The clock, ms since the epoch; default `Date.now`. */
  readonly now?: () => number;
  /** Called when the consumer stopped for good (kafkajs does not restart it). */
  readonly onCrash?: (error: Error) => void;
  /** Told of every late and invalid record and of every window written (for metrics). */
  readonly observe?: NonNullable<PartitionDeps['observe']>;
  /** Told of what each transaction committed (final windows, alerts, records consumed, lag). */
  readonly committed?: NonNullable<PartitionDeps['committed']>;
  /**
   * Told when an audit partition is held (restored here, at `sinceMs`; its earlier records were
   * consumed by its previous owner) and when it went to another owner.
   */
  readonly holding?: {
    readonly held: (partition: number, sinceMs: number) => void;
    readonly released: (partition: number) => void;
  };
  /** Audit partitions handled at once. Default 3. */
  readonly partitionsConcurrently?: number;
}

/** A running analytics service. */
export interface RunningAnalytics {
  /** True once the consumer joined its group and every assigned partition's state is restored. */
  ready(): boolean;
  /** The open windows of every partition this instance holds (live, not final counts). */
  live(): readonly WindowCounts[];
  /** The audit partitions this instance holds and has restored. */
  partitions(): readonly number[];
  /**
   * Its instance, group and the audit partitions the last group join gave it (restored or not):
   * none after its consumer crashed (until it rejoins) and once it stops.
   */
  membership(): GroupMembership;
  /** Stops consuming and closes the producers; idempotent. */
  stop(): Promise<void>;
}

/** Starts the service; resolves once it consumes (readiness follows the group join). */
export async function startAnalytics(deps: AnalyticsDeps): Promise<RunningAnalytics> {
  if (deps.alerts !== undefined && deps.alertSchema === undefined) {
    throw new TypeError('startAnalytics: an alert engine needs the alerts topic schema');
  }
  await deps.codec.register(`${deps.topics.refusalStats}-value`, windowRecordSchema);
  await deps.codec.register(`${deps.topics.windowState}-value`, windowStateSchema);
  if (deps.alertSchema !== undefined) {
    await deps.codec.register(`${deps.topics.alerts}-value`, deps.alertSchema);
  }
  const service = new AnalyticsLoop(deps);
  await service.start();
  return service;
}

class AnalyticsLoop implements RunningAnalytics {
  private readonly consumer: BusConsumer;
  private readonly counters = new Map<number, Promise<PartitionCounter>>();
  private readonly loaded = new Map<number, PartitionCounter>();
  private readonly now: () => number;
  private pendingAlerts: Alert[] = [];
  private joined = false;
  private assignment = new Set<number>();
  private stopped: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: AnalyticsDeps) {
    this.now = deps.now ?? Date.now;
    this.consumer = deps.bus.consumer({
      groupId: deps.groupId,
      readCommitted: true,
      partitionsConcurrently: deps.partitionsConcurrently ?? 3,
    });
  }

  async start(): Promise<void> {
    this.consumer.onGroupJoin((assignment) =>
      this.assigned(assignment[this.deps.topics.audit] ?? []),
    );
    this.consumer.onCrash((error, restarting) => {
      this.assignment = new Set();
      this.deps.logger.error({ err: error, restarting }, 'the analytics consumer crashed');
      if (!restarting) this.deps.onCrash?.(error);
    });
    await this.consumer.connect();
    await this.consumer.subscribe([this.deps.topics.audit], { fromBeginning: true });
    await this.consumer.run((batch) => this.batch(batch));
    this.timer = setInterval(() => void this.tick(), this.deps.tickMs);
  }

  ready(): boolean {
    return this.joined && this.loaded.size === this.counters.size;
  }

  live(): readonly WindowCounts[] {
    return [...this.loaded.values()].flatMap((c) => c.live());
  }

  partitions(): readonly number[] {
    return [...this.loaded.keys()].sort((a, b) => a - b);
  }

  membership(): GroupMembership {
    const { instanceId, groupId, topics } = this.deps;
    const held = [...this.assignment].sort((a, b) => a - b);
    return {
      instanceId,
      groupId,
      partitions: held.length === 0 || this.stopped !== undefined ? {} : { [topics.audit]: held },
    };
  }

  stop(): Promise<void> {
    this.stopped ??= (async () => {
      clearInterval(this.timer);
      await this.consumer.disconnect();
      await Promise.all([...this.loaded.values()].map((c) => c.close().catch(() => undefined)));
      this.loaded.clear();
    })();
    return this.stopped;
  }

  /** After a group join: drop the partitions gone elsewhere, restore the ones now held. */
  private assigned(partitions: readonly number[]): void {
    this.joined = true;
    this.assignment = new Set(partitions);
    for (const p of [...this.counters.keys()]) {
      if (!partitions.includes(p)) void this.drop(p);
    }
    const fresh = partitions.filter((p) => !this.counters.has(p));
    if (fresh.length > 0) this.restore(fresh);
  }

  private async drop(partition: number): Promise<void> {
    const counter = this.loaded.get(partition);
    this.counters.delete(partition);
    this.loaded.delete(partition);
    this.deps.holding?.released(partition);
    await counter?.close().catch(() => undefined);
  }

  /**
   * Takes over `partitions`: a producer per partition whose transactional id fences the previous
   * owner (aborting what it left open), then the partition's latest committed window state.
   */
  private restore(partitions: readonly number[]): void {
    const all = (async () => {
      const producers = await Promise.all(
        partitions.map(async (p) => {
          const producer = this.deps.bus.producer({
            transactionalId: `${this.deps.groupId}.p${p}`,
          });
          await producer.connect();
          return producer;
        }),
      );
      const states = await this.readStates(partitions);
      const loadedAt = this.now();
      return partitions.map((p, i) => {
        const state = states.get(p);
        const windows = new PartitionWindows(p, this.deps.settings, state?.windows);
        return new PartitionCounter(
          this.deps,
          p,
          producers[i]!,
          windows,
          state?.nextOffset ?? null,
          loadedAt,
        );
      });
    })();
    partitions.forEach((p, i) => {
      const counter = all.then((counters) => {
        const c = counters[i]!;
        if (this.counters.get(p) === counter) {
          this.loaded.set(p, c);
          this.deps.holding?.held(p, this.now());
        }
        // Given away while it was being restored: its producer must not outlive it.
        else void c.close().catch(() => undefined);
        return c;
      });
      counter.catch((error: unknown) => {
        this.deps.logger.error({ err: error, partition: p }, 'restoring window state failed');
        if (this.counters.get(p) === counter) this.counters.delete(p);
      });
      this.counters.set(p, counter);
    });
    void all.then(
      (counters) =>
        this.deps.logger.info(
          {
            partitions: counters.map((c) => ({
              partition: c.partition,
              nextOffset: c.nextOffset(),
            })),
          },
          'window state restored',
        ),
      () => undefined,
    );
  }

  private async readStates(partitions: readonly number[]): Promise<Map<number, WindowStateRecord>> {
    const latest = new Map<number, WindowStateRecord>();
    const problems: string[] = [];
    await readTopicWindow(this.deps.bus, this.deps.codec, {
      topic: this.deps.topics.windowState,
      groupPrefix: `${this.deps.groupId}.`,
      onRecord: (r) => {
        const p = Number(r.key);
        if (!partitions.includes(p)) return;
        if (isWindowStateOf(r.value, p)) latest.set(p, r.value);
        else
          problems.push(
            `partition ${p} at ${r.partition}/${r.offset}: ${r.decodeError ?? 'not a window state'}`,
          );
      },
    });
    // Starting from nothing would count again what the committed offset already counted.
    if (problems.length > 0) throw new Error(`unreadable window state: ${problems.join('; ')}`);
    return latest;
  }

  private async batch(batch: BusBatch): Promise<void> {
    if (batch.topic !== this.deps.topics.audit) return;
    if (!this.counters.has(batch.partition)) {
      this.assignment.add(batch.partition);
      this.restore([batch.partition]);
    }
    const pending = this.counters.get(batch.partition)!;
    const counter = await pending;
    if (!batch.isRunning() || batch.isStale()) return;
    try {
      await counter.serial(() => counter.handleBatch(batch, this.now()));
    } catch (error) {
      this.recover(counter, pending, error);
    }
  }

  private async tick(): Promise<void> {
    const nowMs = this.now();
    const counters = [...this.loaded.values()];
    if (counters.length === 0) return;
    if (this.deps.alerts !== undefined) this.pendingAlerts.push(...this.deps.alerts.tick(nowMs));
    const alerts = this.pendingAlerts;
    this.pendingAlerts = [];
    await Promise.all(
      counters.map((counter, i) => {
        const mine = i === 0 ? alerts : [];
        return counter
          .serial(() => counter.tick(nowMs, this.deps.settings.idleMs, mine))
          .catch((error: unknown) => {
            this.pendingAlerts.push(...mine);
            this.recover(counter, this.counters.get(counter.partition), error);
          });
      }),
    );
  }

  /**
   * After a failed transaction the partition's windows are ahead of what was committed: they are
   * dropped and restored from the committed state, and the consumer goes back to its offset.
   */
  private recover(
    counter: PartitionCounter,
    pending: Promise<PartitionCounter> | undefined,
    error: unknown,
  ): void {
    if (this.counters.get(counter.partition) !== pending || this.stopped !== undefined) return;
    this.deps.logger.warn(
      { err: error, partition: counter.partition, nextOffset: counter.nextOffset() },
      'a window transaction failed; restoring the partition from its committed state',
    );
    this.counters.delete(counter.partition);
    this.loaded.delete(counter.partition);
    const offset = counter.nextOffset();
    if (offset !== null) this.consumer.seek(this.deps.topics.audit, counter.partition, offset);
    void counter.close().catch(() => undefined);
    // Restoring a partition given away meanwhile would fence its new owner.
    if (this.assignment.has(counter.partition)) this.restore([counter.partition]);
  }
}
