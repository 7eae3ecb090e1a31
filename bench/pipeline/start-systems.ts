/**
 * Starts the processes of the two systems under test, each its own child process: the relay
 * (four hops, the echo worker, the observation hop) and the gate (validate, authorize, confirm and
 * execute's two halves through `toolgate start`, and the no-op tool worker). Resolves once every
 * one of them has joined its consumer group.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXAMPLE_TOOLS, type FetchConfig } from '@toolgate/platform';
import { waitUntil, type Child, type Children } from './children.js';
import { CHILD_VARIABLE, type ChildConfig, type RelayRole } from './child-config.js';
import type { StackAddresses } from './stack-probe.js';

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
type GateStage = (typeof GATE_STAGES)[number];

/** One system's prefixes. */
export interface Space {
  readonly topicPrefix: string;
  readonly redisPrefix: string;
}

/** The processes of one system, by name. */
export type SystemProcesses = readonly Child[];

/** Options of {@link startSystems}. */
export interface StartOptions {
  readonly children: Children;
  readonly stack: StackAddresses;
  readonly relay: Space;
  readonly gate: Space;
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
}

const NODE_FLAGS = ['--no-turbo-inline-js-wasm-calls'];

async function freePort(): Promise<number> {
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

function baseEnv(o: StartOptions, space: Space, instance: string): Record<string, string> {
  return {
    TOOLGATE_KAFKA_BROKERS: o.stack.kafkaBrokers.join(','),
    TOOLGATE_SCHEMA_REGISTRY_URL: o.stack.registryUrl,
    TOOLGATE_REDIS_URL: o.stack.redisUrl,
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

interface Starter {
  readonly name: string;
  start(): { child: Child; ready: () => Promise<void> };
}

function gateStage(o: StartOptions, gate: GateStage, integrityKey: string, port: number): Starter {
  const name = `gate-${gate.name}`;
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
          script('bench-deployment.ts'),
        ],
        env: {
          ...baseEnv(o, o.gate, gate.name),
          TOOLGATE_INTEGRITY_KEY: integrityKey,
          TOOLGATE_HTTP_PORT: String(port),
          ...gate.env,
        },
      });
      const probe = async () =>
        (await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1_000) })).ok;
      return { child, ready: () => waitUntil(`${name} joining its group`, child, probe) };
    },
  };
}

/** Starts `w`; if it dies before it is ready (a slow registry at start), starts it once more. */
async function startOnceMore(w: Starter, progress: (line: string) => void): Promise<Child> {
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
  const integrityKey = randomBytes(32).toString('hex');
  const relayEnv = (instance: string) => ({
    ...baseEnv(o, o.relay, instance),
    TOOLGATE_INTEGRITY_KEY: integrityKey,
  });
  const hop = (role: RelayRole): Starter => ({
    name: `relay-${role}`,
    start: () => startOwn(o, `relay-${role}`, 'relay-hop.ts', relayEnv(role), { role }),
  });
  const worker = (name: string, space: Space, tools: readonly string[]): Starter => ({
    name,
    start: () => startOwn(o, name, 'noop-worker.ts', baseEnv(o, space, name), { tools }),
  });
  const ports = await Promise.all(GATE_STAGES.map(() => freePort()));
  const stage = (i: number) =>
    gateStage(o, GATE_STAGES[i] ?? GATE_STAGES[0], integrityKey, ports[i] ?? 0);
  // One gate stage at a time: each registers ~17 subjects, and the registry (which writes each
  // through Kafka) answered three stages at once later than the codec's 5 s.
  const waves: Starter[][] = [
    [stage(0), hop('hop1')],
    [stage(1), hop('hop2')],
    [stage(2), hop('hop3')],
    [stage(3), hop('hop4')],
    [stage(4), hop('obs')],
    [worker('gate-worker', o.gate, EXAMPLE_TOOLS), worker('relay-worker', o.relay, EXAMPLE_TOOLS)],
  ];
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
