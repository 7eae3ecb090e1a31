/**
 * The fairness scenario (`npm run bench -- --fairness`): the gate alone (no relay) on the secured
 * stack, in a namespace of its own, on `fairness-deployment.ts`; one driver per tenant, each
 * reading only its tenant's observations. Each repetition runs the victim alone, then the victim
 * and the flood at once (the order alternating by repetition, as the pipeline benchmark
 * interleaves its systems); see fairness.ts for what is sent and checked. Everything it started is
 * stopped and everything it made on the stack dropped, whatever happens.
 */
import { cpus, loadavg } from 'node:os';
import { gateTopics, type Bus } from '@toolgate/platform';
import { buildMix, type MixEntry, type UserName } from '../core/build-mix.js';
import type { BenchOptions } from './bench-options.js';
import { whileRunning, type Child } from './children.js';
import {
  FAIRNESS,
  fairnessPhaseMs,
  fairnessVerdict,
  floodPerSecond,
  paramsLine,
  tenantReads,
  type FairnessParams,
  type FairnessRun,
  type FairnessVerdict,
  type TenantRun,
} from './fairness.js';
import { formatPhaseLegs, phaseLegs, type PhaseLegs } from './fairness-hops.js';
import { mergeHistograms, type Histogram } from './histogram.js';
import { hopTopicsOf, readStamps } from './hop-times.js';
import { createLoadDriver, type LoadDriver, type RunResult } from './load-driver.js';
import { findServiceProcesses, sampleProcess } from './proc-stats.js';
import type { StackConfig } from '../../infra/stack-config.js';
import { provisionRun, type BenchNamespace } from './bench-namespace.js';
import { withBenchRun } from './bench-run.js';
import { readerCodec, scraped, tokensFor, type StageTimings } from './measure-pipeline.js';
import { formatStageTimings, timingOf, type MovedCounters } from './stage-timings.js';
import { probeStack } from './stack-probe.js';
import { runStartOptions, startSystems } from './start-systems.js';
import deployment from './fairness-deployment.js';

/** Everything the scenario measured, as bench/results/fairness.json holds it. */
export interface FairnessResult {
  readonly params: FairnessParams;
  readonly phaseMs: number;
  readonly reps: number;
  readonly seed: number;
  readonly runs: readonly FairnessRun[];
  readonly verdict: FairnessVerdict;
  /** The victim's calls leg by leg, alone and beside the flood. */
  readonly victimLegs: Readonly<Record<'alone' | 'flooded', PhaseLegs>>;
  /** Each gate stage's loop, alone and beside the flood (from the stages' `/metrics`). */
  readonly stageTimings: StageTimings;
  /** The load average (1, 5, 15 min) before the gate started and after the last run. */
  readonly loadAverage: { readonly atStart: readonly number[]; readonly atEnd: readonly number[] };
  readonly cpus: number;
  readonly cpuModel: string;
  readonly node: string;
  readonly notes: readonly string[];
  readonly at: string;
}

const rounded = (load: readonly number[]) => load.map((l) => Number(l.toFixed(2)));

function tenantRun(r: RunResult): TenantRun {
  return {
    sent: r.sent,
    lost: r.lost,
    latency: r.histogram.summary(),
    outcomes: Object.fromEntries(r.outcomes),
  };
}

/** Runs the scenario; `progress` gets a line per phase and every couple of seconds. */
export async function measureFairness(
  options: BenchOptions,
  progress: (line: string) => void,
): Promise<FairnessResult> {
  const params = FAIRNESS;
  const phaseMs = fairnessPhaseMs(options.mode);
  return withBenchRun(
    { clientId: 'toolgate-bench-fairness', what: 'scenario', progress },
    async ({ config, bus, ns, made, children, logDir, provisioning, onClose }) => {
      await probeStack(config, bus);
      const atStart = loadavg();
      progress(paramsLine(params));
      progress(`load average at the start: ${rounded(atStart).join(', ')}`);
      provisioning();
      progress(`namespace ${ns.id}: provisioning the gate's installation`);
      const workerRedis = await provisionRun(config, ns, made);
      const started = await startSystems({
        ...runStartOptions({ children, stack: config, ns, workerRedis, logDir, options, progress }),
        gateDeployment: 'fairness-deployment.ts',
        gateOnly: true,
      });
      const secret = deployment.sessions.secret;
      if (secret === undefined)
        throw new Error('the fairness deployment must use an HS256 session secret');
      const tokens = await tokensFor(secret);
      const mix = buildMix({ size: 500, seed: options.seed });
      const driverOf = (tenant: string, reads: readonly MixEntry[], keepCallTimes: boolean) =>
        tenantDriver(
          bus,
          ns.id,
          ns.gate.topicPrefix,
          { tenant, reads, keepCallTimes },
          tokens,
          progress,
        );
      const victim = await driverOf(
        params.victimTenant,
        tenantReads(mix, params.victimTenant),
        true,
      );
      onClose(() => victim.close());
      const flood = await driverOf(params.floodTenant, tenantReads(mix, params.floodTenant), false);
      onClose(() => flood.close());
      const services = findServiceProcesses(
        [config.stackDir],
        Number(new URL(config.addresses.redisUrl).port || 6379),
      );
      const measured = [...started.gate, ...services.found];
      const { runs, victimHistograms, stageTimings } = await runPhases(
        { victim, flood },
        { gate: started.gate, measured, ports: started.gatePorts },
        params,
        { ...options, phaseMs },
        progress,
      );
      const verdict = fairnessVerdict(
        mergeHistograms(victimHistograms.alone).summary(),
        mergeHistograms(victimHistograms.flooded).summary(),
        runs,
        params,
      );
      for (const line of formatStageTimings(stageTimings, (phase) =>
        phase === 'alone' ? 'with the victim alone' : 'beside the flood',
      ))
        progress(line);
      const victimLegs = await legsOf(bus, config, ns, victim, progress);
      const cpu = cpus();
      const mismatched = [...victim.mismatches()].map(
        ([what, n]) => `victim answered ${n} × ${what}, not what the mix's recipe expects`,
      );
      return {
        params,
        phaseMs,
        reps: options.reps,
        seed: options.seed,
        runs,
        verdict,
        victimLegs,
        stageTimings,
        loadAverage: { atStart: rounded(atStart), atEnd: rounded(loadavg()) },
        cpus: cpu.length,
        cpuModel: cpu[0]?.model ?? 'unknown',
        node: process.version,
        notes: mismatched,
        at: new Date().toISOString(),
      };
    },
  );
}

/** A driver sending `reads` to the gate and reading only `tenant`'s observations. */
async function tenantDriver(
  bus: Bus,
  id: string,
  topicPrefix: string,
  {
    tenant,
    reads,
    keepCallTimes,
  }: { tenant: string; reads: readonly MixEntry[]; keepCallTimes: boolean },
  tokens: Readonly<Record<UserName, string>>,
  progress: (line: string) => void,
): Promise<LoadDriver> {
  const topics = gateTopics(topicPrefix);
  return createLoadDriver({
    bus,
    facts: {
      mix: reads,
      tokens,
      inputTopic: { onehop: topics.proposals, relay: topics.proposals, gate: topics.proposals },
    },
    groupPrefix: `${id}.${tenant}.`,
    observationTopics: [topics.observationsOf(tenant)],
    confirmationsTopic: topics.confirmations,
    approvalsTopic: topics.approvals,
    approverTokens: { acme: tokens.alice, globex: tokens.carol },
    progress: (line) => progress(`${tenant}:${line}`),
    keepCallTimes,
  });
}

/**
 * Reads the gate's topics again and splits the victim's calls of each phase into legs. Its
 * proposals are `g.r<rep>-<phase>-v.<n>` (traffic.ts, runPhases).
 */
async function legsOf(
  bus: Bus,
  config: StackConfig,
  ns: BenchNamespace,
  victim: LoadDriver,
  progress: (line: string) => void,
): Promise<Record<'alone' | 'flooded', PhaseLegs>> {
  progress("hops: reading the gate's topics again");
  const stamps = await readStamps(
    bus,
    readerCodec(config),
    `${ns.id}.hops.`,
    hopTopicsOf({
      topicPrefix: ns.gate.topicPrefix,
      tools: deployment.tools.map((t) => t.name),
      tenants: [FAIRNESS.victimTenant, FAIRNESS.floodTenant],
    }),
  );
  const of = (phase: 'alone' | 'flooded') =>
    phaseLegs(stamps, victim.callTimes(), (id) => new RegExp(`^g\\.r\\d+-${phase}-v\\.`).test(id));
  const legs = { alone: of('alone'), flooded: of('flooded') };
  for (const line of formatPhaseLegs(legs)) progress(line);
  return legs;
}

/** The victim's latencies of each phase, every repetition's, to pool. */
interface VictimHistograms {
  readonly alone: Histogram[];
  readonly flooded: Histogram[];
}

/** CPU seconds (user + system) of each process, by name. */
function cpuNow(processes: readonly Measured[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of processes) {
    const sample = sampleProcess(p.pid);
    if (sample !== undefined) out.set(p.name, sample.cpuSeconds);
  }
  return out;
}

/** A process whose CPU is read around each phase: a gate process or a service of the stack. */
interface Measured {
  readonly name: string;
  readonly pid: number;
}

/** Runs `work`, and the CPU seconds each of `processes` spent meanwhile. */
async function withCpu<T>(
  processes: readonly Measured[],
  work: () => Promise<T>,
): Promise<{ result: T; cpuSeconds: Record<string, number> }> {
  const before = cpuNow(processes);
  const result = await work();
  const after = cpuNow(processes);
  const cpuSeconds: Record<string, number> = {};
  for (const [name, seconds] of after) {
    const earlier = before.get(name);
    if (earlier !== undefined) cpuSeconds[name] = Number((seconds - earlier).toFixed(3));
  }
  return { result, cpuSeconds };
}

async function runPhases(
  d: { readonly victim: LoadDriver; readonly flood: LoadDriver },
  p: {
    readonly gate: readonly Child[];
    readonly measured: readonly Measured[];
    readonly ports: Readonly<Record<string, number>>;
  },
  params: FairnessParams,
  o: BenchOptions & { readonly phaseMs: number },
  progress: (line: string) => void,
): Promise<{
  runs: FairnessRun[];
  victimHistograms: VictimHistograms;
  stageTimings: StageTimings;
}> {
  const moved = {
    alone: new Map<string, MovedCounters>(),
    flooded: new Map<string, MovedCounters>(),
  };
  const watched = <T>(what: string, work: () => Promise<T>) => whileRunning(what, p.gate, work);
  const floodRate = floodPerSecond(params);
  const both = (tag: string, ms: number) =>
    Promise.all([
      d.victim.openLoop('gate', `${tag}-v`, params.victimPerSecond, ms),
      d.flood.openLoop('gate', `${tag}-f`, floodRate, ms),
    ]);
  progress(`warm-up: ${o.warmupMs / 1000} s of both tenants at their rates, not measured`);
  await watched('warm-up', () => both('warm', o.warmupMs));
  const runs: FairnessRun[] = [];
  const victimHistograms: VictimHistograms = { alone: [], flooded: [] };
  const phases = ['alone', 'flooded'] as const;
  for (let rep = 0; rep < o.reps; rep += 1) {
    // Alternate the order, so a slow moment of the machine does not always fall on one phase.
    for (const phase of rep % 2 === 0 ? phases : [...phases].reverse()) {
      const what = `rep ${rep + 1}/${o.reps}: victim ${phase === 'alone' ? 'alone' : 'beside the flood'}`;
      progress(`${what} (${o.phaseMs / 1000} s)`);
      const tag = `r${rep}-${phase}`;
      const started = performance.now();
      if (phase === 'alone') {
        const { result: v, cpuSeconds } = await withCpu(p.measured, () =>
          scraped(p.ports, moved.alone, progress, () =>
            watched(what, () =>
              d.victim.openLoop('gate', `${tag}-v`, params.victimPerSecond, o.phaseMs),
            ),
          ),
        );
        victimHistograms.alone.push(v.histogram);
        const wallMs = Math.round(performance.now() - started);
        runs.push({ phase, rep, victim: tenantRun(v), cpuSeconds, wallMs });
      } else {
        const { result, cpuSeconds } = await withCpu(p.measured, () =>
          scraped(p.ports, moved.flooded, progress, () =>
            watched(what, () => both(tag, o.phaseMs)),
          ),
        );
        const [v, f] = result;
        victimHistograms.flooded.push(v.histogram);
        const wallMs = Math.round(performance.now() - started);
        runs.push({ phase, rep, victim: tenantRun(v), flood: tenantRun(f), cpuSeconds, wallMs });
      }
      const last = runs.at(-1)?.victim.latency;
      progress(`  → victim p50 ${last?.p50.toFixed(1)} ms, p99 ${last?.p99.toFixed(1)} ms`);
    }
  }
  const timings = (m: Map<string, MovedCounters>) =>
    Object.fromEntries([...m].map(([stage, counters]) => [stage, timingOf(counters)]));
  const stageTimings = { alone: timings(moved.alone), flooded: timings(moved.flooded) };
  return { runs, victimHistograms, stageTimings };
}
