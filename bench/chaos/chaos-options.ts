/**
 * `npm run chaos` options and what each mode means: the stack it starts (its own directory and
 * ports, never the developer's `.stack`), the load, and the faults. Pure.
 */
import type { FaultKind } from './chaos-facts.js';
import type { FaultHolds, ScheduleOptions } from './fault-schedule.js';

export const USAGE = `usage: npm run chaos -- [--quick] [--seed N] [--rate N] [--faults N]
  --quick      one Kafka node and one Redis, a few faults (meant for about 5 minutes)
  --seed N     seeds the mix, the approver's decisions and the fault schedule (default 1)
  --rate N     proposals per second, open loop (default 20)
  --faults N   faults in all (default 210 full, 6 quick)`;

/** What one run does. */
export interface ChaosOptions {
  readonly mode: 'quick' | 'full';
  readonly seed: number;
  readonly rate: number;
  readonly faults: number;
}

/** Reads the command line; throws naming the bad argument. */
export function parseChaosOptions(argv: readonly string[]): ChaosOptions {
  let quick = false;
  const numbers: Record<string, number | undefined> = {};
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--quick') {
      quick = true;
      continue;
    }
    if (arg === '--seed' || arg === '--rate' || arg === '--faults') {
      const value = Number(argv[i + 1]);
      const least = arg === '--rate' ? 1 : 0;
      if (!Number.isInteger(value) || value < least)
        throw new RangeError(`${arg} needs a whole number ≥ ${least}, got ${argv[i + 1] ?? ''}`);
      numbers[arg] = value;
      i += 1;
      continue;
    }
    throw new RangeError(`unknown argument ${arg ?? ''}`);
  }
  return {
    mode: quick ? 'quick' : 'full',
    seed: numbers['--seed'] ?? 1,
    rate: numbers['--rate'] ?? 20,
    faults: numbers['--faults'] ?? (quick ? 6 : 210),
  };
}

/**
 * The stack each mode starts: its own directory and ports (so it never meets the developer's
 * stack on 6380/9092/8081, nor the quick run the full one), three Kafka nodes and a Redis Cluster
 * in full. A `TOOLGATE_STACK_*` variable already set wins; the variables that point the stack at
 * infrastructure it did not start are dropped: a run kills and restarts what it starts, only.
 */
export function chaosStackEnv(
  mode: ChaosOptions['mode'],
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> {
  const defaults: Record<string, string> =
    mode === 'full'
      ? {
          TOOLGATE_STACK_DIR: '.stack/chaos-full',
          TOOLGATE_STACK_KAFKA_NODES: '3',
          TOOLGATE_STACK_REDIS: 'cluster',
          TOOLGATE_STACK_REDIS_PORT: '7300',
          TOOLGATE_STACK_REDIS_CLUSTER_BUS_PORT: '17300',
          TOOLGATE_STACK_KAFKA_PORT: '30092',
          TOOLGATE_STACK_KAFKA_CONTROLLER_PORT: '30093',
          TOOLGATE_STACK_REGISTRY_PORT: '30081',
          TOOLGATE_STACK_REGISTRY_MANAGEMENT_PORT: '30091',
        }
      : {
          TOOLGATE_STACK_DIR: '.stack/chaos-quick',
          TOOLGATE_STACK_KAFKA_NODES: '1',
          TOOLGATE_STACK_REDIS: 'server',
          TOOLGATE_STACK_REDIS_PORT: '7200',
          TOOLGATE_STACK_KAFKA_PORT: '29092',
          TOOLGATE_STACK_KAFKA_CONTROLLER_PORT: '29093',
          TOOLGATE_STACK_REGISTRY_PORT: '28081',
          TOOLGATE_STACK_REGISTRY_MANAGEMENT_PORT: '28091',
        };
  const out: Record<string, string | undefined> = { ...env };
  for (const [name, value] of Object.entries(defaults)) out[name] = env[name] ?? value;
  for (const name of [
    'TOOLGATE_REDIS_URL',
    'TOOLGATE_KAFKA_BROKERS',
    'TOOLGATE_SCHEMA_REGISTRY_URL',
  ])
    delete out[name];
  return out;
}

/**
 * The consumer session timeout every gate stage and tool worker of the run gets, in ms
 * (TOOLGATE_SESSION_TIMEOUT_MS): a killed or stopped instance's partitions move to its twin after
 * this long, so a fault holds the pipeline up for about this, not the default 30 s.
 */
export const CHAOS_SESSION_TIMEOUT_MS = 10_000;

/** How long a pending confirmation waits for the approver in a chaos run, s. */
export const CHAOS_CONFIRMATION_TTL_SECONDS = 15;

/** How long each fault holds its target. */
export const CHAOS_HOLDS: FaultHolds = {
  // Past the session timeout, and the heartbeat after it.
  stopMs: CHAOS_SESSION_TIMEOUT_MS + 4_000,
  // Past the ledger lease a worker holds on a running command (15 s by default), so its twin
  // takes the command over while it sleeps.
  workerStopMs: 20_000,
  downMs: 5_000,
  outageMs: 10_000,
};

/** How often each kind is drawn in a full run. */
const FULL_WEIGHTS: Readonly<Partial<Record<FaultKind, number>>> = {
  kill_stage: 10,
  stop_stage: 2,
  kill_worker: 3,
  stop_worker: 1,
  kill_kafka_node: 1,
  kill_redis_primary: 1,
  redis_outage: 1,
  kill_registry: 1,
};

/** The fault schedule's options for `o` on a stack of `kafkaNodes` nodes. */
export function scheduleOptionsOf(
  o: ChaosOptions,
  targets: ScheduleOptions['targets'],
): ScheduleOptions {
  const common = { seed: o.seed, count: o.faults, targets, holds: CHAOS_HOLDS };
  return o.mode === 'full'
    ? {
        ...common,
        weights: FULL_WEIGHTS,
        // About ten minutes one at a time (a restart takes ten seconds or so), then eight with
        // four or five open at once.
        sequentialShare: 0.2,
        gapMs: [1_000, 3_000],
        beatMs: 2_500,
      }
    : {
        ...common,
        weights: { kill_stage: 4, kill_worker: 1, redis_outage: 1 },
        limits: { redis_outage: 1 },
        sequentialShare: 0.5,
        gapMs: [1_000, 2_000],
        beatMs: 2_000,
      };
}
