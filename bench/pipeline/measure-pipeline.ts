/**
 * One benchmark run: a namespace of its own, the relay's and the gate's processes, a warm-up,
 * interleaved saturation repetitions, then open-loop repetitions at fractions of the relay's
 * saturation, with CPU and memory read from the OS around each saturation window. Everything it
 * started is stopped and its namespace dropped, whatever happens.
 */
import { mkdtempSync } from 'node:fs';
import { cpus, hostname, loadavg, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { Redis } from 'ioredis';
import {
  createBus,
  createCodec,
  EXAMPLE_TOOLS,
  SILENT_LOGGER,
  topicsFor,
  type Bus,
} from '@toolgate/platform';
import { mintSession } from '@toolgate/shared';
import { USERS } from '../../examples/billing/data.js';
import { dropNamespace, testNamespace } from '../../test/support/namespace.js';
import { dropSubjects } from '../../test/support/registry-cleanup.js';
import { buildMix, type UserName } from '../core/build-mix.js';
import { median } from '../core/stats.js';
import type { BenchOptions } from './bench-options.js';
import { createChildren, whileRunning, type Child, type Children } from './children.js';
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
import { probeStack, stackAddresses, type StackAddresses } from './stack-probe.js';
import { REPO_ROOT, startSystems } from './start-systems.js';
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

async function tokensFor(secret: string): Promise<Record<UserName, string>> {
  const mint = (u: UserName) =>
    mintSession(USERS[u], secret, { now: new Date(), ttlSeconds: 4 * 3600 });
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

/** Runs the benchmark; `progress` gets a line per phase and every couple of seconds. */
export async function measurePipeline(
  options: BenchOptions,
  progress: (line: string) => void,
): Promise<PipelineResult> {
  const stack = stackAddresses(process.env);
  const bus = createBus({
    brokers: [...stack.kafkaBrokers],
    clientId: 'toolgate-bench',
    logger: SILENT_LOGGER,
    retries: 1,
    connectionTimeoutMs: 2_000,
  });
  let children: Children | undefined;
  let driver: LoadDriver | undefined;
  const ns = testNamespace('bench');
  let cleanupNeeded = false;
  const onSignal = (signal: NodeJS.Signals) => {
    progress(`${signal}: stopping the benchmark's processes and dropping its namespace`);
    void cleanup().finally(() => process.exit(130));
  };
  const cleanup = async () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await driver?.close().catch(() => undefined);
    await children?.stopAll();
    if (cleanupNeeded)
      await dropAll(ns.id, ns.redisPrefix, stack).catch((e: unknown) =>
        progress(`cleanup failed: ${String(e)}`),
      );
    await bus.close().catch(() => undefined);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await probeStack(stack, bus);
    // Before any process of the benchmark starts, so the load average is the machine's own.
    const loadAtStart = loadavg();
    const atStart = await calibrated(progress);
    cleanupNeeded = true;
    const relay = { topicPrefix: `${ns.id}.relay.`, redisPrefix: `${ns.redisPrefix}relay:` };
    const gate = { topicPrefix: `${ns.id}.gate.`, redisPrefix: `${ns.redisPrefix}gate:` };
    const onehopTopic = `${ns.id}.onehop.toolgate.observations`;
    progress(`namespace ${ns.id}; creating the relay's topics (same partitions as the gate's)`);
    await createTopics(bus, relay.topicPrefix, onehopTopic);
    const logDir = mkdtempSync(join(tmpdir(), `toolgate-${ns.id}-`));
    children = createChildren(logDir);
    const started = await startSystems({
      children,
      stack,
      relay,
      gate,
      id: ns.id,
      logDir,
      profileDir: options.profileDir,
      profileIntervalUs: options.profileIntervalUs,
      fetch: options.fetch,
      progress,
    });
    const services = findServiceProcesses(
      [
        join(REPO_ROOT, '.stack'),
        ...(process.env['TOOLGATE_STACK_DIR'] ? [process.env['TOOLGATE_STACK_DIR']] : []),
      ],
      Number(new URL(stack.redisUrl).port || 6379),
    );
    for (const name of services.missing)
      progress(`warning: found no ${name} process on this machine; its cost is not reported`);
    const measured: Measured = { onehop: [], relay: started.relay, gate: started.gate };

    const secret = deployment.sessions.secret;
    if (secret === undefined)
      throw new Error('the bench deployment must use an HS256 session secret');
    const tokens = await tokensFor(secret);
    driver = await createLoadDriver({
      bus,
      facts: {
        mix: buildMix({ size: 500, seed: options.seed }),
        tokens,
        inputTopic: {
          onehop: onehopTopic,
          relay: `${relay.topicPrefix}toolgate.proposals`,
          gate: `${gate.topicPrefix}toolgate.proposals`,
        },
      },
      groupPrefix: `${ns.id}.driver.`,
      observationTopics: [
        onehopTopic,
        `${relay.topicPrefix}toolgate.observations`,
        `${gate.topicPrefix}toolgate.observations`,
      ],
      confirmationsTopic: `${gate.topicPrefix}toolgate.confirmations`,
      approvalsTopic: `${gate.topicPrefix}toolgate.approvals`,
      approverTokens: { acme: tokens.alice, globex: tokens.carol },
      progress,
    });
    const stageTimings: StageTimings = {};
    const scrape = options.hops ? { ports: started.gatePorts, into: stageTimings } : undefined;
    const runs = await runPhases(driver, options, measured, services.found, progress, scrape);
    const machine = machineOf(loadAtStart, atStart, await calibrated(progress));
    const notes = notesOf(driver, runs);
    const hops = options.hops
      ? await hopsOf(bus, stack, ns.id, { relay, gate }, options.fractions, progress)
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
      at: new Date().toISOString(),
    };
  } finally {
    await cleanup();
  }
}

/** Each gate stage's loop, by load level and stage. */
type StageTimings = Record<string, Record<string, StageTiming>>;

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
async function scraped<T>(
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

async function createTopics(bus: Bus, relayPrefix: string, onehopTopic: string): Promise<void> {
  const specs = topicsFor(EXAMPLE_TOOLS);
  const observations = specs.find((s) => s.name === 'toolgate.observations');
  if (observations === undefined) throw new Error('the topic catalogue has no observations topic');
  await bus.ensureTopics([
    ...specs.map((s) => ({ ...s, name: `${relayPrefix}${s.name}` })),
    { ...observations, name: onehopTopic },
  ]);
}

/** Reads both systems' topics again for `--hops` and prints what it found. */
async function hopsOf(
  bus: Bus,
  stack: StackAddresses,
  id: string,
  prefixes: { readonly relay: { topicPrefix: string }; readonly gate: { topicPrefix: string } },
  fractions: readonly number[],
  progress: (line: string) => void,
): Promise<HopReport> {
  progress('hops: reading every topic of both systems again');
  const codec = createCodec({ registryUrl: stack.registryUrl, logger: SILENT_LOGGER });
  const report = await measureHops(
    bus,
    codec,
    `${id}.hops.`,
    {
      relay: { topicPrefix: prefixes.relay.topicPrefix, tools: EXAMPLE_TOOLS },
      gate: { topicPrefix: prefixes.gate.topicPrefix, tools: deployment.tools.map((t) => t.name) },
    },
    fractions,
  );
  for (const line of formatHops(report)) progress(line);
  return report;
}

/** Drops the namespace's topics, Redis keys and registry subjects. */
async function dropAll(id: string, redisPrefix: string, stack: StackAddresses): Promise<void> {
  const kafka = new Kafka({
    clientId: `${id}-cleanup`,
    brokers: [...stack.kafkaBrokers],
    logLevel: logLevel.NOTHING,
  });
  const redis = new Redis(stack.redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const ns = { ...testNamespace('unused'), id, redisPrefix };
    await dropNamespace(ns, { kafka, redis });
    await dropSubjects(stack.registryUrl, `${id}.`);
    // A child stopped while starting may have had registrations in flight; they land late.
    await new Promise((r) => setTimeout(r, 2_000));
    await dropSubjects(stack.registryUrl, `${id}.`);
    // Last: a group a killed child never left cannot be deleted yet, and says so.
    await dropGroups(kafka, `${id}.`);
  } finally {
    redis.disconnect();
  }
}

/** Deletes the consumer groups (and their committed offsets) whose id starts with `prefix`. */
async function dropGroups(kafka: Kafka, prefix: string): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { groups } = await admin.listGroups();
    const mine = groups.map((g) => g.groupId).filter((g) => g.startsWith(prefix));
    if (mine.length > 0)
      await admin.deleteGroups(mine).catch((error: unknown) => {
        throw new Error(
          `consumer groups ${prefix}* left behind (a killed child stays a member until its session times out; they hold only offsets): ${String(error)}`,
          { cause: error },
        );
      });
  } finally {
    await admin.disconnect();
  }
}
