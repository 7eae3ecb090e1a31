/**
 * Starts the processes of the two systems under test, each its own child process and each as its
 * own principal of the stack: the relay (four hops, the echo worker, the observation hop, all as
 * `bench-relay`) and the gate (validate, authorize, confirm and execute's two halves through
 * `toolgate start`, each as its stage's principal, and the no-op tool worker as `worker-billing`).
 * Resolves once every one of them has joined its consumer group.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  EXAMPLE_TOOLS,
  EXAMPLE_WORKER,
  stagePrincipal,
  type FetchConfig,
} from '@toolgate/platform';
import type { StackConfig } from '../../infra/stack-config.js';
import { stackEnv } from '../../infra/stack-env.js';
import { BENCH_RELAY_PRINCIPAL } from '../../infra/stack-principals.js';
import type { BenchNamespace, Space, WorkerRedisUrls } from './bench-namespace.js';
import type { BenchOptions } from './bench-options.js';
import { waitUntil, type Child, type Children } from './children.js';
import { CHILD_VARIABLE, type ChildConfig, type RelayRole } from './child-config.js';
import { RELAY_WORKER_NAME, toolKeyEntries } from './relay-access.js';

/** The repository root (children run from it). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The gate's stage processes, each `toolgate start <stage>`: execute runs as two, one issuing
 * commands and one settling results (TOOLGATE_EXECUTE_INPUTS), as the relay's hop4 and
 * observation hop do, and as a loaded deployment should.
 */
export const GATE_STAGES = [
  { name: 'validate', stage: 'validate', env: {} },
  { name: 'authorize', stage: 'authorize', env: {} },
  { name: 'confirm', stage: 'confirm', env: {} },
  { name: 'execute', stage: 'execute', env: { TOOLGATE_EXECUTE_INPUTS: 'cleared' } },
  { name: 'execute-results', stage: 'execute', env: { TOOLGATE_EXECUTE_INPUTS: 'results' } },
] as const;

/** One gate stage process. */
export type GateStage = (typeof GATE_STAGES)[number];

/** One system as its processes are started: its prefixes and its tool worker's Redis URL. */
export interface SystemSpace extends Space {
  /** A Redis user confined to the system's Redis prefix, as an operator makes for its workers. */
  readonly workerRedisUrl: string;
}

/** The processes of one system, by name. */
export type SystemProcesses = readonly Child[];

/** Options of {@link startSystems}. */
export interface StartOptions {
  readonly children: Children;
  /** The stack, for its principals' identities and keys. */
  readonly stack: StackConfig;
  readonly relay: SystemSpace;
  readonly gate: SystemSpace;
  /** Namespace id: names instances. */
  readonly id: string;
  readonly logDir: string;
  /** Directory for the gate processes' `--cpu-prof` profiles, if profiling. */
  readonly profileDir: string | undefined;
  /** The profiler's sampling interval, in µs. */
  readonly profileIntervalUs: number;
  /** Every process's stage-loop fetch settings, the same for both systems. */
  readonly fetch: FetchConfig;
  readonly progress: (line: string) => void;
  /** The gate's deployment: a file of bench/pipeline/, or an absolute path. Default `bench-deployment.ts`. */
  readonly gateDeployment?: string;
  /** Start only the gate (the fairness scenario has no relay). Default false. */
  readonly gateOnly?: boolean;
  /** Variables every gate process gets besides its own (a run's session timeout). */
  readonly gateEnv?: Readonly<Record<string, string>>;
  /** How long a gate process may take to be ready, ms. Default 90 s. */
  readonly readyWithinMs?: number;
}

/**
 * The options every measurement starts its systems with: its namespace's two spaces with their
 * worker Redis users, the stack, and the run's profiling and fetch settings.
 */
export function runStartOptions(run: {
  readonly children: Children;
  readonly stack: StackConfig;
  readonly ns: BenchNamespace;
  readonly workerRedis: WorkerRedisUrls;
  readonly logDir: string;
  readonly options: Pick<BenchOptions, 'profileDir' | 'profileIntervalUs' | 'fetch'>;
  readonly progress: (line: string) => void;
}): StartOptions {
  const { ns, workerRedis, options } = run;
  return {
    children: run.children,
    stack: run.stack,
    relay: { ...ns.relay, workerRedisUrl: workerRedis.relay },
    gate: { ...ns.gate, workerRedisUrl: workerRedis.gate },
    id: ns.id,
    logDir: run.logDir,
    profileDir: options.profileDir,
    profileIntervalUs: options.profileIntervalUs,
    fetch: options.fetch,
    progress: run.progress,
  };
}

const NODE_FLAGS = ['--no-turbo-inline-js-wasm-calls'];

/** A TCP port free on 127.0.0.1 a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/** The `TOOLGATE_*` variables of `principal` against the stack, as `toolgate stack env` prints them. */
function principalEnv(o: StartOptions, principal: string): Readonly<Record<string, string>> {
  const env = stackEnv(o.stack, principal);
  if (env === undefined) throw new Error(`the stack has no principal ${principal}`);
  return env;
}

/** A process of `space` as `principal`: its identity and keys, the run's prefixes and settings. */
export function envAs(
  o: StartOptions,
  principal: string,
  space: Space,
  instance: string,
): Record<string, string> {
  return {
    ...principalEnv(o, principal),
    TOOLGATE_TOPIC_PREFIX: space.topicPrefix,
    TOOLGATE_GROUP_PREFIX: space.topicPrefix,
    TOOLGATE_REDIS_PREFIX: space.redisPrefix,
    TOOLGATE_LOG_LEVEL: 'warn',
    TOOLGATE_INSTANCE_ID: `${o.id}-${instance}`,
    TOOLGATE_FETCH_MAX_WAIT_MS: String(o.fetch.fetchMaxWaitMs),
    TOOLGATE_FETCH_MIN_BYTES: String(o.fetch.fetchMinBytes),
    TOOLGATE_FETCH_BUSY_MIN_BYTES: String(o.fetch.fetchBusyMinBytes),
  };
}

function script(name: string): string {
  return join(REPO_ROOT, 'bench', 'pipeline', name);
}

/** A deployment file: a path, or the name of a file of bench/pipeline/. */
function deploymentFile(file: string): string {
  return isAbsolute(file) ? file : script(file);
}

/**
 * `--cpu-prof` flags writing into `<profile dir>/<name>/`, when profiling: one file per thread
 * (tsx's loader runs on its own), the largest being the main thread's.
 */
function profileFlags(o: StartOptions, name: string): string[] {
  return o.profileDir === undefined
    ? []
    : [
        '--cpu-prof',
        `--cpu-prof-dir=${join(o.profileDir, name)}`,
        `--cpu-prof-interval=${o.profileIntervalUs}`,
      ];
}

function startOwn(
  o: StartOptions,
  name: string,
  file: string,
  env: Record<string, string>,
  config: Omit<ChildConfig, 'readyFile'>,
) {
  const readyFile = join(o.logDir, `${name}.ready`);
  const child = o.children.start({
    name,
    args: [...NODE_FLAGS, ...profileFlags(o, name), '--import', 'tsx', script(file)],
    env: { ...env, [CHILD_VARIABLE]: JSON.stringify({ ...config, readyFile }) },
  });
  return {
    child,
    ready: () =>
      waitUntil(`${name} joining its group`, child, () => Promise.resolve(existsSync(readyFile))),
  };
}

/** A process that can be started (and, once it is gone, started again the same way). */
export interface Starter {
  readonly name: string;
  start(): { child: Child; ready: () => Promise<void> };
}

/**
 * The gate stage `gate` listening on `port`, as instance `instance` (default the stage's name):
 * its child is `gate-<instance>` and its TOOLGATE_INSTANCE_ID `<run id>-<instance>`, the same at
 * every start, so a restart fences its predecessor's transactions.
 */
export function gateStage(
  o: StartOptions,
  gate: GateStage,
  port: number,
  instance: string = gate.name,
): Starter {
  const name = `gate-${instance}`;
  const profile = profileFlags(o, name);
  return {
    name,
    start() {
      const child = o.children.start({
        name,
        args: [
          ...NODE_FLAGS,
          ...profile,
          '--import',
          'tsx',
          join(REPO_ROOT, 'packages/cli/src/main.ts'),
          'start',
          gate.stage,
          '--config',
          deploymentFile(o.gateDeployment ?? 'bench-deployment.ts'),
        ],
        env: {
          ...envAs(o, stagePrincipal(gate.stage), o.gate, instance),
          TOOLGATE_HTTP_PORT: String(port),
          // The bench approves through the approvals topic; the approval API takes any free port.
          TOOLGATE_APPROVAL_PORT: '0',
          ...gate.env,
          ...o.gateEnv,
        },
      });
      return { child, ready: () => readyOnPort(name, child, port, o.readyWithinMs) };
    },
  };
}

/** Resolves once the child's `/readyz` on `port` answers 200: it has joined its group. */
export function readyOnPort(
  name: string,
  child: Child,
  port: number,
  withinMs: number | undefined,
): Promise<void> {
  const probe = async () =>
    (await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1_000) })).ok;
  return waitUntil(`${name} joining its group`, child, probe, withinMs);
}

/** Starts `w`; if it dies before it is ready (a slow registry at start), starts it once more. */
export async function startOnceMore(w: Starter, progress: (line: string) => void): Promise<Child> {
  const first = w.start();
  try {
    await first.ready();
    return first.child;
  } catch (error) {
    if (!first.child.hasExited()) throw error;
    progress(
      `${w.name} did not start (${error instanceof Error ? error.message : String(error)}); trying once more`,
    );
    const second = w.start();
    await second.ready();
    return second.child;
  }
}

/**
 * Starts both systems in waves (twelve tsx processes starting at once on two cores time out on
 * the registry and race to create the same topics); resolves once all are ready.
 */
export async function startSystems(o: StartOptions): Promise<{
  relay: SystemProcesses;
  gate: SystemProcesses;
  /** Each gate stage's HTTP port (`/metrics`). */
  gatePorts: Readonly<Record<string, number>>;
}> {
  // The relay's own command key, made for the run: hop4 proves commands with its tools' keys.
  const commandKey = randomBytes(32).toString('hex');
  const relayEnv = (instance: string) => envAs(o, BENCH_RELAY_PRINCIPAL, o.relay, instance);
  const hop = (role: RelayRole): Starter => ({
    name: `relay-${role}`,
    start: () =>
      startOwn(
        o,
        `relay-${role}`,
        'relay-hop.ts',
        role === 'hop4' ? { ...relayEnv(role), TOOLGATE_COMMAND_KEY: commandKey } : relayEnv(role),
        { role },
      ),
  });
  const worker = (name: string, env: Record<string, string>): Starter => ({
    name,
    start: () => startOwn(o, name, 'noop-worker.ts', env, { tools: EXAMPLE_TOOLS }),
  });
  const gateWorker = worker('gate-worker', {
    ...envAs(o, EXAMPLE_WORKER.principal, o.gate, 'gate-worker'),
    TOOLGATE_REDIS_URL: o.gate.workerRedisUrl,
  });
  const relayWorker = worker('relay-worker', {
    ...relayEnv('relay-worker'),
    TOOLGATE_REDIS_URL: o.relay.workerRedisUrl,
    TOOLGATE_WORKER_NAME: RELAY_WORKER_NAME,
    TOOLGATE_TOOL_KEYS: toolKeyEntries(commandKey, EXAMPLE_TOOLS),
  });
  const ports = await Promise.all(GATE_STAGES.map(() => freePort()));
  const stage = (i: number) => gateStage(o, GATE_STAGES[i] ?? GATE_STAGES[0], ports[i] ?? 0);
  // One gate stage at a time: each registers ~17 subjects, and the registry (which writes each
  // through Kafka) answered three stages at once later than the codec's 5 s.
  const waves: Starter[][] = [
    [stage(0), hop('hop1')],
    [stage(1), hop('hop2')],
    [stage(2), hop('hop3')],
    [stage(3), hop('hop4')],
    [stage(4), hop('obs')],
    [gateWorker, relayWorker],
  ];
  if (o.gateOnly === true)
    waves.forEach((wave, i) => (waves[i] = wave.filter((w) => !w.name.startsWith('relay-'))));
  const started: Child[] = [];
  for (const [i, wave] of waves.entries()) {
    o.progress(
      `starting ${wave.map((w) => w.name).join(', ')} (wave ${i + 1}/${waves.length}; logs in ${o.logDir})`,
    );
    started.push(...(await Promise.all(wave.map((w) => startOnceMore(w, o.progress)))));
  }
  const of = (prefix: string) => started.filter((c) => c.name.startsWith(prefix));
  const gatePorts = Object.fromEntries(GATE_STAGES.map((g, i) => [g.name, ports[i] ?? 0]));
  return { relay: of('relay-'), gate: of('gate-'), gatePorts };
}
