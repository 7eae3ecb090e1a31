/**
 * What a stage service is given: the connections and facts it uses, opened and owned by whoever
 * starts it (a process's main, `toolgate start`, or a test). A service owns no connection, so
 * tests start services in-process against the real stack.
 */
import type { Deployment, Gate } from '@toolgate/shared';
import type { Bus } from './kafka/index.js';
import type { Codec } from './codec.js';
import type { Config } from './config.js';
import type { GateOutputs } from './gate-outputs.js';
import type { GroupMembership } from './group-membership.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import type { GateStore } from './redis/gate-store.js';
import type { RedisObjectStore } from './redis/redis-object-store.js';

/**
 * The dependencies of one stage service: every stage is given them all, and each names in its own
 * signatures only the parts it uses (validate the counters, authorize the records, confirm the
 * confirmations, execute the records and pending commands).
 */
export interface StageDeps extends GateStore {
  readonly config: Config;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly bus: Bus;
  readonly codec: Codec;
  /** Where objects resolve from, shared by every stage and the tool workers. */
  readonly objects: RedisObjectStore;
  readonly deployment: Deployment;
  /** The ladder's facts: tools, policies, session verifier, object store, ceilings. */
  readonly gate: Gate;
  readonly outputs: GateOutputs;
  /** The only clock a stage reads. */
  now(): Date;
  /**
   * The bound on the stage loop's stop, in ms; default its share of TOOLGATE_SHUTDOWN_TIMEOUT_MS
   * as the only stage of its process (see `stopBound`).
   */
  readonly stopTimeoutMs?: number;
  /**
   * Told once if a loop of the stage stops on its own (its producer fenced, a consumer crash
   * kafkajs does not restart); the supervisor stops the process, so that it is restarted.
   */
  onLoopCrash?(error: Error): void;
}

/** A started stage. */
export interface RunningStage {
  readonly stage: string;
  /** True once its consumer joined its group. */
  ready(): boolean;
  /** Its instance and consumer group, and the partitions it holds now (its health answers say them). */
  membership(): GroupMembership;
  /** Stops consuming (and its timers); idempotent. */
  stop(): Promise<void>;
}

/**
 * A stage's dependencies with only the stores `K` of the gate's, for the signatures of a stage:
 * `StageDepsWith<'confirmations'>` is what the confirm stage uses, `StageDepsWith` alone a stage
 * (or a part of one) that uses no store.
 */
export type StageDepsWith<K extends keyof GateStore = never> = Omit<StageDeps, keyof GateStore> &
  Pick<GateStore, K>;
