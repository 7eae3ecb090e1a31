/**
 * One benchmark run on the secured stack: the proofs' cost timed in-process, a namespace of its
 * own provisioned as the stack's admin (bench-namespace.ts), the relay's and the gate's processes
 * each as its own principal, a warm-up, interleaved saturation repetitions, then open-loop
 * repetitions at fractions of the relay's saturation, with CPU and memory read from the OS around
 * each saturation window. Everything it started is stopped and everything it made on the stack
 * dropped, whatever happens.
 */
import { cpus, hostname, loadavg, release, totalmem } from 'node:os';
import {
  createCodec,
  EXAMPLE_TENANTS,
  EXAMPLE_TOOLS,
  gateTopics,
  SILENT_LOGGER,
  type Bus,
  type Codec,
} from '@toolgate/platform';
import { mintSession } from '@toolgate/shared';
import { USERS } from '../../examples/billing/data.js';
import { EXAMPLE_SESSION_ISSUER } from '../../examples/billing/toolgate.config.js';
import type { StackConfig } from '../../infra/stack-config.js';
import { STACK_ADMIN } from '../../infra/stack-principals.js';
import { buildMix, type MixEntry, type UserName } from '../core/build-mix.js';
import { median } from '../core/stats.js';
import type { BenchOptions } from './bench-options.js';
import { whileRunning, type Child } from './children.js';
import {
  calibrateMachine,
  formatCalibration,
  type MachineCalibration,
} from './machine-calibration.js';
import { createLoadDriver, type LoadDriver, type RunResult } from './load-driver.js';
import {
  findServiceProcesses,
  sampleProcess,
  type ProcSample,
  type ServiceProcess,
} from './proc-stats.js';
import { formatHops, measureHops, type HopReport } from './hop-times.js';
import {
  addDifference,
  formatStageTimings,
  parseStageCounters,
  timingOf,
  type MovedCounters,
  type StageTiming,
} from './stage-timings.js';
import { provisionRun, type BenchNamespace } from './bench-namespace.js';
import { formatProofCost, measureProofCost, proofCountsOf, type ProofCost } from './proof-cost.js';
import { proofSamples } from './proof-samples.js';
import { withBenchRun } from './bench-run.js';
import { probeStack } from './stack-probe.js';
import { runStartOptions, startSystems } from './start-systems.js';
import deployment from './bench-deployment.js';
import {
  percentOf,
  ratiosOf,
  summarizeSystem,
  type ProcessCost,
  type Ratios,
  type RunRecord,
  type SystemName,
  type SystemSummary,
} from './summarize.js';

/** Everything a run measured, as latest.json holds it. */
export interface PipelineResult {
  readonly relay: SystemSummary;
  readonly gate: SystemSummary;
  readonly onehop: SystemSummary;
  readonly ratios: Ratios;
  readonly machine: Machine;
  readonly options: BenchOptions;
  readonly notes: readonly string[];
  /** Each hop's time, with `--hops`. */
  readonly hops?: HopReport;
  /** Each gate stage's loop during the open-loop runs, by load level (`"25"`), with `--hops`. */
  readonly stageTimings?: StageTimings;
  /** The proofs' CPU cost per proposal, measured in this process apart from the pipelines. */
  readonly proofCost: ProofCost;
  readonly at: string;
}

/** The processes measured for a system (the shared services are added to every system). */
type Measured = Readonly<Record<SystemName, readonly Child[]>>;

/** The machine a run measured on. */
export interface Machine {
  readonly host: string;
  readonly cpus: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
  readonly node: string;
  readonly kernel: string;
  readonly loadAverageAtStart: readonly number[];
  /**
   * How fast its cores ran when all were busy, against one alone, and a loopback round trip: before
   * the benchmark's processes started, and after the last measured run (a host's other tenants
   * come and go).
   */
  readonly calibrationAtStart: MachineCalibration;
  readonly calibrationAtEnd: MachineCalibration;
}

function machineOf(
  loadAverageAtStart: readonly number[],
  calibrationAtStart: MachineCalibration,
  calibrationAtEnd: MachineCalibration,
): Machine {
  const cpu = cpus();
  return {
    host: hostname(),
    cpus: cpu.length,
    cpuModel: cpu[0]?.model ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    kernel: release(),
    loadAverageAtStart: loadAverageAtStart.map((l) => Number(l.toFixed(2))),
    calibrationAtStart,
    calibrationAtEnd,
  };
}

/** Calibrates the machine (see {@link calibrateMachine}), saying so before and after. */
async function calibrated(progress: (line: string) => void): Promise<MachineCalibration> {
  progress('timing a CPU loop on one core, then on every core at once, and a loopback round trip');
  const calibration = await calibrateMachine();
  progress(formatCalibration(calibration));
  return calibration;
}

/** Session tokens of the example's three users, minted with the deployment's secret. */
export async function tokensFor(secret: string): Promise<Record<UserName, string>> {
  const mint = (u: UserName) =>
    mintSession(USERS[u], secret, {
      now: new Date(),
      ttlSeconds: 4 * 3600,
      issuer: EXAMPLE_SESSION_ISSUER,
    });
  return { alice: await mint('alice'), bob: await mint('bob'), carol: await mint('carol') };
}

/** Reads every measured process and the shared services. */
function sampleAll(processes: readonly { name: string; pid: number }[]): Map<string, ProcSample> {
  const out = new Map<string, ProcSample>();
  for (const p of processes) {
    const s = sampleProcess(p.pid);
    if (s !== undefined) out.set(p.name, s);
  }
  return out;
}

function costsBetween(
  before: Map<string, ProcSample>,
  after: Map<string, ProcSample>,
  completed: number,
): ProcessCost[] {
  return [...after].flatMap(([name, a]) => {
    const b = before.get(name);
    if (b === undefined) return [];
    const cpuSeconds = a.cpuSeconds - b.cpuSeconds;
    const writeCalls =
      a.writeCalls === undefined || b.writeCalls === undefined
        ? Number.NaN
        : a.writeCalls - b.writeCalls;
    return [
      {
        name,
        cpuSeconds,
        cpuMsPerProposal: completed > 0 ? (cpuSeconds * 1000) / completed : Number.NaN,
        writeCallsPerProposal: completed > 0 ? writeCalls / completed : Number.NaN,
        rssMiB: a.rssMiB,
      },
    ];
  });
}

function record(
  system: SystemName,
  phase: RunRecord['phase'],
  rep: number,
  r: RunResult,
  extra: Partial<RunRecord> = {},
): RunRecord {
  return {
    system,
    phase,
    fraction: null,
    offeredPerSec: null,
    rep,
    sent: r.sent,
    completed: r.completed,
    lost: r.lost,
    throughput: r.throughput,
    latency: r.histogram.summary(),
    latencyUnattended: r.unattended.summary(),
    costs: [],
    ...extra,
  };
}

/**
 * Times the proofs of origin on the mix's own records (see proof-cost.ts), before any process of
 * the benchmark starts, and says what it found.
 */
async function measuredProofCost(
  mix: readonly MixEntry[],
  topicPrefix: string,
  progress: (line: string) => void,
): Promise<ProofCost> {
  progress('timing the proofs of origin (HMAC tool proofs, Ed25519 observation signatures)');
  const cost = measureProofCost(await proofSamples(mix, topicPrefix), proofCountsOf(mix));
  for (const line of formatProofCost(cost)) progress(line);
  return cost;
}

/** Every observations topic of a system: one per tenant. */
function observationTopicsOf(topicPrefix: string): string[] {
  const t = gateTopics(topicPrefix);
  return EXAMPLE_TENANTS.map((tenant) => t.observationsOf(tenant));
}

/** Runs the benchmark; `progress` gets a line per phase and every couple of seconds. */
export async function measurePipeline(
  options: BenchOptions,
  progress: (line: string) => void,
): Promise<PipelineResult> {
  return withBenchRun(
    { clientId: 'toolgate-bench', what: 'benchmark', progress },
    async ({ config, bus, ns, made, children, logDir, provisioning, onClose }) => {
      await probeStack(config, bus);
      // Before any process of the benchmark starts, so the load average is the machine's own.
      const loadAtStart = loadavg();
      const atStart = await calibrated(progress);
      const mix = buildMix({ size: 500, seed: options.seed });
      const proofCost = await measuredProofCost(mix, ns.gate.topicPrefix, progress);
      provisioning();
      progress(
        `namespace ${ns.id}: as ${STACK_ADMIN}, provisioning the gate's installation, the relay's topics (same partitions) and its grant`,
      );
      const workerRedis = await provisionRun(config, ns, made);
      const started = await startSystems({
        ...runStartOptions({ children, stack: config, ns, workerRedis, logDir, options, progress }),
      });
      const services = findServiceProcesses(
        [config.stackDir],
        Number(new URL(config.addresses.redisUrl).port || 6379),
      );
      for (const name of services.missing)
        progress(`warning: found no ${name} process on this machine; its cost is not reported`);
      const measured: Measured = { onehop: [], relay: started.relay, gate: started.gate };

      const secret = deployment.sessions.secret;
      if (secret === undefined)
        throw new Error('the bench deployment must use an HS256 session secret');
      const tokens = await tokensFor(secret);
      const gate = gateTopics(ns.gate.topicPrefix);
      const driver = await createLoadDriver({
        bus,
        facts: {
          mix,
          tokens,
          inputTopic: {
            onehop: ns.onehopTopic,
            relay: gateTopics(ns.relay.topicPrefix).proposals,
            gate: gate.proposals,
          },
        },
        groupPrefix: `${ns.id}.driver.`,
        observationTopics: [
          ns.onehopTopic,
          ...observationTopicsOf(ns.relay.topicPrefix),
          ...observationTopicsOf(ns.gate.topicPrefix),
        ],
        confirmationsTopic: gate.confirmations,
        approvalsTopic: gate.approvals,
        approverTokens: { acme: tokens.alice, globex: tokens.carol },
        progress,
      });
      onClose(() => driver.close());
      const stageTimings: StageTimings = {};
      const scrape = options.hops ? { ports: started.gatePorts, into: stageTimings } : undefined;
      const runs = await runPhases(driver, options, measured, services.found, progress, scrape);
      const machine = machineOf(loadAtStart, atStart, await calibrated(progress));
      const notes = notesOf(driver, runs);
      const hops = options.hops
        ? await hopsOf(bus, config, ns, options.fractions, progress)
        : undefined;
      if (options.hops) for (const line of formatStageTimings(stageTimings)) progress(line);
      const summaries = {
        onehop: summarizeSystem(runs.filter((r) => r.system === 'onehop')),
        relay: summarizeSystem(runs.filter((r) => r.system === 'relay')),
        gate: summarizeSystem(runs.filter((r) => r.system === 'gate')),
      };
      return {
        ...summaries,
        ratios: ratiosOf(summaries.relay, summaries.gate),
        machine,
        options,
        notes,
        ...(hops === undefined ? {} : { hops, stageTimings }),
        proofCost,
        at: new Date().toISOString(),
      };
    },
  );
}

/** Each gate stage's loop, by load level and stage. */
export type StageTimings = Record<string, Record<string, StageTiming>>;

/** Where the gate stages' metrics are, and where their timings go (`--hops`). */
interface StageScrape {
  readonly ports: Readonly<Record<string, number>>;
  readonly into: StageTimings;
}

async function scrapeStages(ports: Readonly<Record<string, number>>) {
  const entries = await Promise.all(
    Object.entries(ports).map(async ([stage, port]) => {
      const response = await fetch(`http://127.0.0.1:${port}/metrics`, {
        signal: AbortSignal.timeout(5_000),
      });
      return [stage, parseStageCounters(await response.text())] as const;
    }),
  );
  return new Map(entries);
}

/**
 * Runs `run` between two scrapes of the gate stages, and adds what moved to `moved`. A scrape
 * that fails is reported and leaves this run out of the timings; the run itself still counts.
 */
export async function scraped<T>(
  ports: Readonly<Record<string, number>>,
  moved: Map<string, MovedCounters>,
  progress: (line: string) => void,
  run: () => Promise<T>,
): Promise<T> {
  const scrape = () =>
    scrapeStages(ports).catch((error: unknown) => {
      progress(`warning: could not read the gate stages' metrics: ${String(error)}`);
      return undefined;
    });
  const before = await scrape();
  const result = await run();
  const after = before === undefined ? undefined : await scrape();
  for (const [stage, counters] of after ?? []) {
    const earlier = before?.get(stage);
    if (earlier !== undefined) moved.set(stage, addDifference(moved.get(stage), earlier, counters));
  }
  return result;
}

async function runPhases(
  driver: LoadDriver,
  options: BenchOptions,
  measured: Measured,
  services: readonly ServiceProcess[],
  progress: (line: string) => void,
  scrape?: StageScrape,
): Promise<RunRecord[]> {
  const systems: SystemName[] = ['onehop', 'relay', 'gate'];
  // A process that stopped would have every later proposal of its system counted lost: stop there.
  const watched = <T>(what: string, work: () => Promise<T>) =>
    whileRunning(what, [...measured.relay, ...measured.gate], work);
  progress(
    `warm-up: ${options.warmupMs / 1000} s per system at 20/s, then ${options.saturationMs / 1000} s as fast as it goes`,
  );
  for (const system of systems)
    await watched(`warm-up of the ${system}`, () =>
      driver.openLoop(system, `warm-${system}`, 20, options.warmupMs),
    );
  // A broker just started is still compiling its hot paths, and so are the stages: without a
  // burst at full load first, the first repetition was the slowest in nearly every run (relay
  // 340, 538, 591/s in one), so the median favoured whichever system ran later. The burst
  // narrows that and does not remove it (bench/pipeline/README.md).
  for (const system of systems)
    await watched(`warm-up burst of the ${system}`, () =>
      driver.saturate(system, `warmsat-${system}`, options.saturationMs, options.window),
    );
  const runs: RunRecord[] = [];
  for (let rep = 0; rep < options.reps; rep += 1) {
    // Alternate the order, so a slow moment of the machine does not always fall on one system.
    for (const system of rep % 2 === 0 ? systems : [...systems].reverse()) {
      const window = options.window;
      progress(
        `saturation rep ${rep + 1}/${options.reps}: ${system} (window ${window} outstanding, ${options.saturationMs / 1000} s)`,
      );
      const processes = [
        ...measured[system].map((c) => ({ name: c.name, pid: c.pid })),
        ...services,
      ];
      let before = new Map<string, ProcSample>();
      let costs: ProcessCost[] = [];
      const result = await watched(`saturation rep ${rep + 1} of the ${system}`, () =>
        driver.saturate(system, `sat${rep}-${system}`, options.saturationMs, window, {
          atStart: () => (before = sampleAll(processes)),
          atEnd: (completed) => (costs = costsBetween(before, sampleAll(processes), completed)),
        }),
      );
      progress(`  → ${result.throughput.toFixed(0)} proposals/s, ${result.lost} lost`);
      runs.push(record(system, 'saturation', rep, result, { costs }));
    }
  }
  const relaySaturation = median(
    runs.filter((r) => r.system === 'relay' && r.phase === 'saturation').map((r) => r.throughput),
  );
  progress(`relay saturation (median): ${relaySaturation.toFixed(0)} proposals/s`);
  for (const fraction of options.fractions) {
    const rate = relaySaturation * fraction;
    const percent = percentOf(fraction);
    const moved = new Map<string, MovedCounters>();
    for (let rep = 0; rep < options.reps; rep += 1) {
      const order = fraction === 0.5 ? systems : systems.filter((s) => s !== 'onehop');
      for (const system of rep % 2 === 0 ? order : [...order].reverse()) {
        progress(
          `open loop ${percent}% (${rate.toFixed(0)}/s) rep ${rep + 1}/${options.reps}: ${system}`,
        );
        const open = () =>
          watched(`open loop ${percent}% rep ${rep + 1} of the ${system}`, () =>
            driver.openLoop(system, `o${percent}r${rep}-${system}`, rate, options.openMs),
          );
        const result =
          scrape !== undefined && system === 'gate'
            ? await scraped(scrape.ports, moved, progress, open)
            : await open();
        const s = result.histogram.summary();
        progress(`  → p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms, ${result.lost} lost`);
        runs.push(record(system, 'open', rep, result, { fraction, offeredPerSec: rate }));
      }
    }
    if (scrape !== undefined)
      scrape.into[String(percent)] = Object.fromEntries(
        [...moved].map(([stage, counters]) => [stage, timingOf(counters)]),
      );
  }
  return runs;
}

function notesOf(driver: LoadDriver, runs: readonly RunRecord[]): string[] {
  const notes = [...driver.mismatches()].map(
    ([what, n]) => `gate answered ${n} × ${what}, not what the mix's recipe expects`,
  );
  const lost = runs
    .filter((r) => r.lost > 0)
    .map(
      (r) =>
        `${r.system} ${r.phase}${r.fraction === null ? '' : ` ${percentOf(r.fraction)}%`} rep ${r.rep + 1}: ${r.lost} lost`,
    );
  return [...notes, ...lost];
}

/** Reads both systems' topics again for `--hops`, as the stack's admin, and prints what it found. */
/** A codec to read the stack's topics back with (the registry's schemas, no log lines). */
export function readerCodec(config: StackConfig): Codec {
  return createCodec({ registryUrl: config.addresses.schemaRegistryUrl, logger: SILENT_LOGGER });
}

async function hopsOf(
  bus: Bus,
  config: StackConfig,
  ns: BenchNamespace,
  fractions: readonly number[],
  progress: (line: string) => void,
): Promise<HopReport> {
  progress('hops: reading every topic of both systems again');
  const report = await measureHops(
    bus,
    readerCodec(config),
    `${ns.id}.hops.`,
    {
      relay: { topicPrefix: ns.relay.topicPrefix, tools: EXAMPLE_TOOLS, tenants: EXAMPLE_TENANTS },
      gate: {
        topicPrefix: ns.gate.topicPrefix,
        tools: deployment.tools.map((t) => t.name),
        tenants: EXAMPLE_TENANTS,
      },
    },
    fractions,
  );
  for (const line of formatHops(report)) progress(line);
  return report;
}
