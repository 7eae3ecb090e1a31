/**
 * One chaos run on a stack that is up: the gate's namespace, its processes, the load, the faults,
 * the wait for the last answers, and the judge, in a benchmark run of its own (bench-run.ts), so
 * that whatever it started is stopped however it ends.
 */
import {
  CONFIG_VARIABLES,
  connectRedis,
  createRedisObjectStore,
  EXAMPLE_TENANTS,
  gateTopics,
  loadVariables,
  OBJECT_NAMESPACE,
} from '@toolgate/platform';
import type { ResolvedObject } from '@toolgate/shared';
import { SEED_OBJECTS } from '../../examples/billing/data.js';
import { adminRedisUrl } from '../../infra/provision.js';
import type { StackConfig } from '../../infra/stack-config.js';
import { buildMix } from '../core/build-mix.js';
import { adminBus, provisionRun, type Space } from '../pipeline/bench-namespace.js';
import { withBenchRun } from '../pipeline/bench-run.js';
import { tokensFor } from '../pipeline/measure-pipeline.js';
import benchDeployment from '../pipeline/bench-deployment.js';
import { REPO_ROOT, type StartOptions } from '../pipeline/start-systems.js';
import { scriptedApprover } from './approver-script.js';
import type { ChaosReport, ChaosRunFacts, JudgeRun } from './chaos-facts.js';
import { startChaosLoad, type ChaosLoad } from './chaos-load.js';
import {
  CHAOS_CONFIRMATION_TTL_SECONDS,
  CHAOS_SESSION_TIMEOUT_MS,
  scheduleOptionsOf,
  type ChaosOptions,
} from './chaos-options.js';
import { planFaults } from './fault-schedule.js';
import { startFleet } from './fleet.js';
import { withFreshObjects } from './fresh-objects.js';
import { createInjector } from './inject.js';
import { runFaults } from './run-faults.js';

/** Instances of every gate stage, and tool workers. */
const INSTANCES_PER_STAGE = 2;
const TOOL_WORKERS = 2;

/** How long the load runs before the first fault (the pipeline answering), and after the last. */
const LEAD_MS = { quick: 10_000, full: 20_000 } as const;
const TAIL_MS = { quick: 10_000, full: 30_000 } as const;

/**
 * The wait for the last answers after the load stops: at least a confirmation's lifetime and a
 * sweep (the requests left unanswered expire), then until every proposal is answered or none has
 * been for {@link QUIET_MS}, and never longer than {@link DRAIN_MAX_MS}.
 */
const QUIET_MS = 20_000;

/**
 * Seconds of load the mix covers before it repeats at the run's rate: a repeated entry names
 * objects an earlier pass already changed, and its write changes nothing.
 */
const MIX_SECONDS = { quick: 600, full: 3600 } as const;
const DRAIN_MIN_MS = (CHAOS_CONFIRMATION_TTL_SECONDS + 10) * 1000;
const DRAIN_MAX_MS = { quick: 90_000, full: 180_000 } as const;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What {@link runChaos} needs. */
export interface ChaosRun {
  readonly options: ChaosOptions;
  readonly config: StackConfig;
  readonly progress: (line: string) => void;
  readonly judge: JudgeRun;
  /** Done last, however the run ends: stops the run's stack. */
  readonly afterEnd: () => Promise<void>;
}

/** Runs the gate under faults and judges it; resolves with the judge's report. */
export async function runChaos(r: ChaosRun): Promise<ChaosReport> {
  const { options, progress } = r;
  return withBenchRun(
    { clientId: 'toolgate-chaos', what: 'chaos run', progress, afterEnd: r.afterEnd },
    async ({ config, ns, made, children, logDir, provisioning, onClose }) => {
      provisioning();
      progress(`namespace ${ns.id}: provisioning the gate's installation`);
      const workerRedis = await provisionRun(config, ns, made);
      // Info: a run's logs say when each instance joined its group and what it was assigned.
      const sessionEnv = {
        TOOLGATE_SESSION_TIMEOUT_MS: String(CHAOS_SESSION_TIMEOUT_MS),
        TOOLGATE_LOG_LEVEL: 'info',
      };
      const start: StartOptions = {
        children,
        stack: config,
        relay: { ...ns.relay, workerRedisUrl: workerRedis.relay },
        gate: { ...ns.gate, workerRedisUrl: workerRedis.gate },
        id: ns.id,
        logDir,
        profileDir: undefined,
        profileIntervalUs: 1000,
        fetch: loadVariables(process.env, {
          FETCH_MAX_WAIT_MS: CONFIG_VARIABLES.FETCH_MAX_WAIT_MS,
          FETCH_MIN_BYTES: CONFIG_VARIABLES.FETCH_MIN_BYTES,
          FETCH_BUSY_MIN_BYTES: CONFIG_VARIABLES.FETCH_BUSY_MIN_BYTES,
        }),
        progress,
        gateDeployment: `${REPO_ROOT}bench/chaos/chaos-deployment.ts`,
        gateEnv: sessionEnv,
        // A restart under load on a busy two-core machine: the new process competes with eleven
        // others for the CPU it needs to start.
        readyWithinMs: 180_000,
      };
      const fleet = await startFleet(start, {
        instancesPerStage: INSTANCES_PER_STAGE,
        toolWorkers: TOOL_WORKERS,
        workerEnv: {},
      });
      const injector = createInjector(config, fleet);
      onClose(() => Promise.resolve(injector.release()));
      onClose(() => Promise.resolve(fleet.standDown()));

      const load = await connectLoad(r, ns.id, ns.gate, config);
      onClose(() => load.close());
      const plan = planFaults(
        scheduleOptionsOf(options, {
          instancesPerStage: INSTANCES_PER_STAGE,
          toolWorkers: TOOL_WORKERS,
          kafkaNodes: config.kafkaNodes.length,
          redisCluster: config.redisCluster,
        }),
      );
      let failure: Error | undefined;
      fleet.failed.catch((error: unknown) => {
        failure ??= error instanceof Error ? error : new Error(String(error));
      });
      const failedYet = () => failure !== undefined;
      let loadStopped = false;
      const startedAt = Date.now();
      progress(`load: ${options.rate} proposals/s; ${plan.length} faults planned`);
      const driving = load.drive(options.rate, () => loadStopped || failedYet());
      // However the faults end, the load stops before the run's processes do.
      onClose(async () => {
        loadStopped = true;
        await driving;
      });
      const faults = await Promise.race([
        sleep(LEAD_MS[options.mode]).then(() =>
          runFaults({ plan, injector, stopped: failedYet, progress }),
        ),
        fleet.failed,
      ]);
      await Promise.race([sleep(TAIL_MS[options.mode]), fleet.failed]);
      loadStopped = true;
      await driving;
      progress(`load stopped after ${load.sent.length} proposals; waiting for the last answers`);
      await Promise.race([drain(load, options.mode), fleet.failed]);
      const endedAt = Date.now();
      fleet.standDown();
      if (failure !== undefined) throw failure;
      progress(
        `${load.answered()} of ${load.sent.length} proposals answered, ${load.failedSends()} sends failed; judging`,
      );
      const facts: ChaosRunFacts = {
        mode: options.mode,
        seed: options.seed,
        rate: options.rate,
        startedAt,
        endedAt,
        faults,
        sent: load.sent,
        space: ns.gate,
        stack: config,
        instancesPerStage: INSTANCES_PER_STAGE,
        toolWorkers: TOOL_WORKERS,
        fencedRestarts: fleet.fencedRestarts(),
      };
      return r.judge(facts);
    },
  );
}

/** The load on the gate's topics, with the example's users and the run's approver. */
async function connectLoad(
  r: ChaosRun,
  id: string,
  space: Space,
  config: StackConfig,
): Promise<ChaosLoad> {
  const { topicPrefix } = space;
  const secret = benchDeployment.sessions.secret;
  if (secret === undefined)
    throw new Error('the chaos deployment must use an HS256 session secret');
  const tokens = await tokensFor(secret);
  const topics = gateTopics(topicPrefix);
  const fresh = withFreshObjects(
    buildMix({ size: r.options.rate * MIX_SECONDS[r.options.mode], seed: r.options.seed }),
    SEED_OBJECTS,
  );
  await seedObjects(config, space, fresh.objects);
  r.progress(`seeded ${fresh.objects.length} objects of the mix's own`);
  // Its own admin bus, retrying through a Kafka node's death where the benchmark's gives up.
  const bus = adminBus(config, 'toolgate-chaos-load', 10);
  const load = await startChaosLoad({
    bus,
    facts: {
      mix: fresh.mix,
      tokens,
      inputTopic: { gate: topics.proposals, relay: topics.proposals, onehop: topics.proposals },
    },
    groupPrefix: `${id}.chaos.`,
    observationTopics: EXAMPLE_TENANTS.map((t) => topics.observationsOf(t)),
    confirmationsTopic: topics.confirmations,
    approvalsTopic: topics.approvals,
    approverTokens: { acme: tokens.alice, globex: tokens.carol },
    decide: scriptedApprover(r.options.seed),
    progress: r.progress,
  });
  return {
    ...load,
    close: async () => {
      await load.close();
      await bus.close().catch(() => undefined);
    },
  };
}

/** Writes the mix's own objects into the gate's object store, as the stack's admin. */
async function seedObjects(
  config: StackConfig,
  space: Space,
  objects: readonly ResolvedObject[],
): Promise<void> {
  const conn = connectRedis({ url: adminRedisUrl(config), prefix: space.redisPrefix });
  try {
    await createRedisObjectStore(conn, OBJECT_NAMESPACE).seed(objects);
  } finally {
    await conn.close();
  }
}

/** Waits for the last answers (see {@link QUIET_MS}). */
async function drain(load: ChaosLoad, mode: ChaosOptions['mode']): Promise<void> {
  const start = Date.now();
  for (;;) {
    const now = Date.now();
    const waited = now - start;
    if (waited >= DRAIN_MAX_MS[mode] || load.answered() >= load.sent.length) return;
    if (waited >= DRAIN_MIN_MS && now - Math.max(load.lastTerminalAt(), start) >= QUIET_MS) return;
    await sleep(500);
  }
}
