/**
 * What a chaos run knows and what it concludes. The run (`run.ts`) starts the stack, the gate's
 * stages twice over and two tool workers, drives the benchmark's seeded mix at a steady open-loop
 * rate and injects faults; it records here what it sent and what it broke, and when. The judge
 * (`judge-run.ts`) reads the gate's topics and the example tools' own record of effects, checks the
 * invariants below and attributes every breach to the faults open around it.
 */
import type { StackConfig } from '../../infra/stack-config.js';
import type { Expected } from '../core/build-mix.js';
import type { Space } from '../pipeline/bench-namespace.js';

/** The faults a run injects. */
export const FAULT_KINDS = [
  /** SIGKILL of a stage instance mid-batch, then a restart under the same instance id. */
  'kill_stage',
  /** SIGSTOP of a stage instance past its session timeout, then SIGCONT: a zombie that wakes. */
  'stop_stage',
  /** SIGKILL of a tool worker mid-handler, then a restart. */
  'kill_worker',
  /** SIGSTOP of a tool worker past its session timeout and lease, then SIGCONT. */
  'stop_worker',
  /** SIGKILL of a Kafka node, then a restart (three-node stack only). */
  'kill_kafka_node',
  /** SIGKILL of a Redis primary, its replica taking over, then a restart (Redis Cluster only). */
  'kill_redis_primary',
  /** Redis unreachable for 10 s (every node stopped, then continued). */
  'redis_outage',
  /** SIGKILL of the schema registry, then a restart. */
  'kill_registry',
] as const;

/** One kind of fault. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** One fault as it was injected. Times are milliseconds since the epoch. */
export interface InjectedFault {
  /** 1-based, in injection order. */
  readonly id: number;
  readonly kind: FaultKind;
  /** What it hit: `validate#2`, `worker#1`, `kafka-3`, `redis:7301`, `registry`, `redis`. */
  readonly target: string;
  readonly injectedAt: number;
  /** When the target was back: restarted and ready, continued, or answering again. */
  readonly recoveredAt: number;
  /** Injected while another fault was still open. */
  readonly overlapping: boolean;
  /**
   * A paused instance woke to find the broker had aborted the transaction it held open (it was
   * paused past the transaction timeout), stopped as a fenced producer must, and was started again.
   */
  readonly fencedOnWaking?: true;
}

/** One proposal the run's driver sent, as the driver recorded it. */
export interface SentProposal {
  readonly proposalId: string;
  /** The mix entry's label. */
  readonly label: string;
  /** What the gate must answer, absent faults. */
  readonly expected: Expected;
  /** When the send was acknowledged, ms since the epoch. */
  readonly sentAt: number;
}

/** Everything the run knows once the load has drained. */
export interface ChaosRunFacts {
  readonly mode: 'quick' | 'full';
  readonly seed: number;
  /** Proposals sent per second, open loop. */
  readonly rate: number;
  /** The load's first send and the moment the run stopped waiting for answers. */
  readonly startedAt: number;
  readonly endedAt: number;
  readonly faults: readonly InjectedFault[];
  readonly sent: readonly SentProposal[];
  /** The gate's prefixes on the stack (topics, groups, Redis keys). */
  readonly space: Space;
  readonly stack: StackConfig;
  /** Instances of each stage and tool workers that ran. */
  readonly instancesPerStage: number;
  readonly toolWorkers: number;
  /** Instances that stopped fenced outside a pause's watch and were started again. */
  readonly fencedRestarts?: readonly FencedRestart[];
}

/** An instance that stopped fenced on its own, outside a pause's watch (ms since the epoch). */
export interface FencedRestart {
  readonly target: string;
  readonly at: number;
}

/** The invariants every run checks. */
export const INVARIANTS = [
  /** Every proposal has exactly one terminal observation (duplicates counted apart, below). */
  'one_terminal',
  /** No refused, unconfirmed, rejected or expired call produced an effect. */
  'no_effect_without_acceptance',
  /** No idempotency key produced two effects. */
  'one_effect_per_key',
  /** Every proposal sent is accounted for: in a terminal observation or in quarantine. */
  'nothing_lost',
] as const;

/** One invariant. */
export type Invariant = (typeof INVARIANTS)[number];

/** How one invariant fared over the whole run. */
export interface InvariantResult {
  /** Items checked (proposals, effects or keys). */
  readonly checked: number;
  readonly broken: number;
  /** A few of the breaches, each naming the proposal or key. */
  readonly examples: readonly string[];
}

/** One row of the table: a kind of fault, how often it was injected, what it broke, and its hold-up. */
export interface FaultRow {
  readonly kind: FaultKind;
  readonly injected: number;
  /** Of those, injected while another fault was open. */
  readonly overlapping: number;
  /** Breaches attributed to this kind (a breach near two faults counts for both). */
  readonly broken: Readonly<Record<Invariant, number>>;
  /**
   * How long it held the pipeline up: the longest gap in terminal observations that began while
   * the fault was open, per injection; the largest and the median of those, in ms.
   */
  readonly holdUpMs: { readonly max: number; readonly median: number };
}

/** A run's verdict, as printed and written to bench/results/chaos-latest.json. */
export interface ChaosReport {
  /** ISO time the report was made. */
  readonly at: string;
  readonly mode: ChaosRunFacts['mode'];
  readonly seed: number;
  readonly rate: number;
  readonly durationSeconds: number;
  readonly proposals: number;
  readonly faults: number;
  readonly instancesPerStage: number;
  readonly toolWorkers: number;
  readonly kafkaNodes: number;
  readonly redisCluster: boolean;
  readonly invariants: Readonly<Record<Invariant, InvariantResult>>;
  /** Terminal observations beyond the first for a proposal, and how many carry the first's outcome. */
  readonly duplicateTerminals: { readonly count: number; readonly sameOutcome: number };
  readonly rows: readonly FaultRow[];
  /** True when no invariant broke. */
  readonly ok: boolean;
  /** How far around a fault's window a breach or a gap still counts as its, in ms. */
  readonly marginMs?: number;
  /** Breaches near no fault, per invariant. */
  readonly unattributed?: Readonly<Record<Invariant, number>>;
  /** Pauses of an instance, and of those how many woke fenced and were started again. */
  readonly pauses?: { readonly count: number; readonly fencedOnWaking: number };
  /**
   * Instances that stopped fenced at another time (a transaction open past its timeout, or its
   * transactional id taken over) and were started again, by target.
   */
  readonly fencedElsewhere?: readonly string[];
  /** Records the judge read: a zero where there should be many says the reading went wrong. */
  readonly seen?: Readonly<Record<SeenKind, number>>;
}

/** What the judge reads back: the gate's topics and the tools' effect log. */
export type SeenKind =
  'proposals' | 'observations' | 'commands' | 'results' | 'quarantine' | 'audit' | 'effects';

/** Reads the run's topics and effects and judges it (`judge-run.ts`). */
export type JudgeRun = (facts: ChaosRunFacts) => Promise<ChaosReport>;
