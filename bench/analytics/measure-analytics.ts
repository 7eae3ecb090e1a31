/**
 * The analytics benchmark's shell: a namespace of its own on the secured stack (made and dropped
 * as the pipeline benchmark's are), `toolgate start analytics` as a child process running as
 * `toolgate-analytics`, an open-loop writer of audit events in transactions keyed by tenant (as
 * the stages write them), and a sampler of the group's lag, analytics' consumed counter and its
 * CPU every 500 ms. Each phase offers a rate for a while, then waits for the lag to return to zero.
 */
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import {
  aclTable,
  analyticsGroupPrefix,
  ANALYTICS_PRINCIPAL,
  createCodec,
  exampleAclScope,
  gateTopics,
  SILENT_LOGGER,
  type Bus,
  type Codec,
  type OutRecord,
} from '@toolgate/platform';
import { MESSAGE_SCHEMAS } from '@toolgate/shared';
import type { StackConfig } from '../../infra/stack-config.js';
import { stackEnv } from '../../infra/stack-env.js';
import { provisionNamespace, workerRedisUserFor } from '../../infra/provision.js';
import type { BenchNamespace, Made } from '../pipeline/bench-namespace.js';
import { withBenchRun } from '../pipeline/bench-run.js';
import { waitUntil, type Child, type Children } from '../pipeline/children.js';
import { sampleProcess } from '../pipeline/proc-stats.js';
import { freePort, REPO_ROOT } from '../pipeline/start-systems.js';
import type { AnalyticsBenchOptions } from './analytics-options.js';
import {
  auditEventsPerProposal,
  createAuditMix,
  GATE_SATURATION_PROPOSALS_PER_S,
} from './audit-mix.js';
import {
  caughtUp,
  DRAIN_LIMIT_MS,
  seriesTotal,
  summarizePhase,
  type LagSample,
  type PhaseFacts,
  type PhaseSummary,
} from './summarize.js';

/** Events per transaction, at most: stages commit a fetched chunk's outputs together. */
const MAX_TRANSACTION_EVENTS = 100;
/** Transactions per second the writer aims at, so that each holds ~20–100 events. */
const TRANSACTIONS_PER_S = 20;
const SAMPLE_MS = 500;

/** What `npm run bench:analytics` writes. */
export interface AnalyticsBenchResult {
  readonly machine: {
    readonly cpus: number;
    readonly cpuModel: string;
    readonly node: string;
    readonly loadAverageAtStart: readonly number[];
    readonly loadAverageAtEnd: readonly number[];
  };
  readonly seed: number;
  readonly gateSaturationProposalsPerS: number;
  readonly auditEventsPerProposal: number;
  readonly phases: readonly PhaseSummary[];
  readonly samples: Readonly<Record<string, readonly LagSample[]>>;
}

interface Run {
  readonly bus: Bus;
  readonly codec: Codec;
  readonly audit: string;
  readonly groupId: string;
  readonly analytics: Child;
  readonly metricsUrl: string;
  readonly progress: (line: string) => void;
}

/** Runs the benchmark: the main phase at `options.rate`, then (with headroom) one at twice it. */
export async function measureAnalytics(
  options: AnalyticsBenchOptions,
  progress: (line: string) => void,
): Promise<AnalyticsBenchResult> {
  return withBenchRun(
    { clientId: 'toolgate-bench-analytics', what: 'benchmark', progress },
    async ({ config, bus, ns, made, children, provisioning }) => {
      const loadAverageAtStart = loadavg();
      provisioning();
      const run = await prepareRun({ config, ns, made, bus, children, progress });
      const rates = options.headroom ? [options.rate, options.rate * 2] : [options.rate];
      const phases: PhaseSummary[] = [];
      const samples: Record<string, readonly LagSample[]> = {};
      for (const [i, rate] of rates.entries()) {
        const name = i === 0 ? 'target' : 'headroom 2x';
        const facts = await runPhase(run, {
          name,
          rate,
          seconds: options.seconds,
          seed: options.seed + i,
        });
        phases.push(summarizePhase(facts));
        samples[name] = facts.samples;
      }
      const cpu = cpus();
      return {
        machine: {
          cpus: cpu.length,
          cpuModel: cpu[0]?.model ?? 'unknown',
          node: process.version,
          loadAverageAtStart,
          loadAverageAtEnd: loadavg(),
        },
        seed: options.seed,
        gateSaturationProposalsPerS: GATE_SATURATION_PROPOSALS_PER_S,
        auditEventsPerProposal: auditEventsPerProposal(),
        phases,
        samples,
      };
    },
  );
}

/**
 * Provisions the namespace (recorded in `made`), registers the audit schema and starts analytics
 * among `children`; resolves once it has joined its group.
 */
async function prepareRun(o: {
  readonly config: StackConfig;
  readonly ns: BenchNamespace;
  readonly made: Made;
  readonly bus: Bus;
  readonly children: Children;
  readonly progress: (line: string) => void;
}): Promise<Run> {
  const prefix = o.ns.gate.topicPrefix;
  o.progress(`namespace ${o.ns.id}: provisioning the gate's topics and grants`);
  await provisionGate(o.config, prefix, o.ns.gate.redisPrefix, o.made);
  const audit = gateTopics(prefix).audit;
  const codec = createCodec({
    registryUrl: o.config.addresses.schemaRegistryUrl,
    logger: SILENT_LOGGER,
  });
  await codec.register(`${audit}-value`, MESSAGE_SCHEMAS.audit);
  const port = await freePort();
  const analytics = startAnalyticsChild(o.children, o.config, prefix, o.ns.id, port);
  o.progress(`started analytics as ${ANALYTICS_PRINCIPAL} (log ${analytics.log})`);
  const ready = async () =>
    (await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1_000) })).ok;
  await waitUntil('analytics joining its group', analytics, ready);
  return {
    bus: o.bus,
    codec,
    audit,
    groupId: analyticsGroupPrefix(prefix),
    analytics,
    metricsUrl: `http://127.0.0.1:${port}/metrics`,
    progress: o.progress,
  };
}

/** The gate's installation under `prefix`, recorded in `made` first so a failure still drops it. */
async function provisionGate(
  config: StackConfig,
  prefix: string,
  redisPrefix: string,
  made: Made,
): Promise<void> {
  const scope = exampleAclScope(prefix, prefix);
  made.gate = {
    bindings: aclTable(scope),
    workerRedisUser: workerRedisUserFor(redisPrefix),
    workerRedisUrl: '',
  };
  made.gate = await provisionNamespace(config, { ...scope, redisPrefix });
}

/** `toolgate start analytics` as `toolgate-analytics`, under the run's prefixes. */
function startAnalyticsChild(
  children: Children,
  config: StackConfig,
  prefix: string,
  id: string,
  port: number,
): Child {
  const env = stackEnv(config, ANALYTICS_PRINCIPAL);
  if (env === undefined) throw new Error(`the stack has no principal ${ANALYTICS_PRINCIPAL}`);
  return children.start({
    name: 'analytics',
    args: [join(REPO_ROOT, 'packages/cli/bin/toolgate.js'), 'start', 'analytics'],
    env: {
      ...env,
      TOOLGATE_TOPIC_PREFIX: prefix,
      TOOLGATE_GROUP_PREFIX: prefix,
      TOOLGATE_HTTP_PORT: String(port),
      TOOLGATE_LOG_LEVEL: 'warn',
      TOOLGATE_INSTANCE_ID: `${id}-analytics`,
    },
  });
}

/** What one phase offers: `rate` events/s for `seconds`, drawn from the mix of `seed`. */
interface Phase {
  readonly name: string;
  readonly rate: number;
  readonly seconds: number;
  readonly seed: number;
}

/** One phase: `rate` events/s for `seconds`, then sampling until drained or the limit passed. */
async function runPhase(run: Run, phase: Phase): Promise<PhaseFacts> {
  const samples: LagSample[] = [];
  const consumedAtStart = (await readConsumed(run)) ?? 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const started = Date.now();
      samples.push(await sample(run));
      await delay(Math.max(0, SAMPLE_MS - (Date.now() - started)));
    }
  })();
  run.progress(`${phase.name}: offering ${phase.rate} audit events/s for ${phase.seconds} s`);
  const loadStartMs = Date.now();
  const wrote = await writeOpenLoop(run, phase, loadStartMs);
  const loadEndMs = Date.now();
  const partial = {
    name: phase.name,
    targetRate: phase.rate,
    loadStartMs,
    loadEndMs,
    written: wrote.events,
    transactions: wrote.transactions,
    consumedAtStart,
  };
  run.progress(`${phase.name}: wrote ${wrote.events} events; waiting for the lag to return to 0`);
  const deadline = loadEndMs + DRAIN_LIMIT_MS + 5_000;
  while (Date.now() < deadline) {
    const last = samples.at(-1);
    if (last !== undefined && last.atMs >= loadEndMs && caughtUp({ ...partial, samples }, last))
      break;
    if (run.analytics.hasExited()) throw new Error(`analytics exited; see ${run.analytics.log}`);
    await delay(SAMPLE_MS);
  }
  sampling = false;
  await sampler;
  return { ...partial, samples };
}

/**
 * Writes the mix open loop: whatever is due by the clock goes in the next transaction (whole
 * proposals, at most {@link MAX_TRANSACTION_EVENTS}), so a writer that falls behind sends larger
 * transactions rather than a lower rate, until the transaction bound holds it back.
 */
async function writeOpenLoop(
  run: Run,
  phase: Phase,
  startMs: number,
): Promise<{ events: number; transactions: number }> {
  const mix = createAuditMix(phase.seed);
  const producer = run.bus.producer({ transactionalId: `${run.audit}.bench-writer` });
  await producer.connect();
  const endMs = startMs + phase.seconds * 1000;
  const perTransaction = Math.min(
    MAX_TRANSACTION_EVENTS,
    Math.max(20, Math.round(phase.rate / TRANSACTIONS_PER_S)),
  );
  let events = 0;
  let transactions = 0;
  try {
    for (let now = Date.now(); now < endMs; now = Date.now()) {
      const due = Math.floor(((now - startMs) / 1000) * phase.rate) - events;
      if (due < perTransaction) {
        await delay(Math.ceil(((perTransaction - due) / phase.rate) * 1000));
        continue;
      }
      const batch = mix.nextEvents(Math.min(due, MAX_TRANSACTION_EVENTS), new Date(now));
      const records: OutRecord[] = await Promise.all(
        batch.map(async (e) => ({
          topic: run.audit,
          key: e.tenant ?? '-',
          value: await run.codec.encode(`${run.audit}-value`, e),
        })),
      );
      const tx = await producer.transaction();
      await tx.send(records);
      await tx.commit();
      events += batch.length;
      transactions += 1;
    }
  } finally {
    await producer.disconnect();
  }
  return { events, transactions };
}

/** One reading: the group's lag over the audit partitions, consumed events, analytics' CPU. */
async function sample(run: Run): Promise<LagSample> {
  const atMs = Date.now();
  const [ends, consumed] = await Promise.all([run.bus.latestOffsets(run.audit), readConsumed(run)]);
  const lags = await Promise.all(
    ends.map(async (end) => {
      const committed = await run.bus.committedOffset(run.groupId, run.audit, end.partition);
      const behind = BigInt(end.offset) - BigInt(committed ?? '0');
      return behind > 0n ? Number(behind) : 0;
    }),
  );
  const cpu = sampleProcess(run.analytics.pid)?.cpuSeconds;
  return {
    atMs,
    lag: lags.reduce((a, b) => a + b, 0),
    ...(consumed === undefined ? {} : { consumed }),
    ...(cpu === undefined ? {} : { cpuSeconds: cpu }),
  };
}

async function readConsumed(run: Run): Promise<number | undefined> {
  try {
    const response = await fetch(run.metricsUrl, { signal: AbortSignal.timeout(2_000) });
    return seriesTotal(await response.text(), 'toolgate_analytics_events_consumed_total');
  } catch {
    return undefined;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
