/**
 * Starts the processes of the two systems under test, each its own child process: the relay
 * (four hops, the echo worker, the observation hop) and the gate (validate, authorize, confirm,
 * execute through `toolgate start`, and the no-op tool worker). Resolves once every one of them
 * has joined its consumer group.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitUntil, type Child, type Children } from './children.js';
import { CHILD_VARIABLE, RELAY_ROLES, type ChildConfig } from './child-config.js';
import type { StackAddresses } from './stack-probe.js';

/** The repository root (children run from it). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The gate's stages, each in its own process. */
export const GATE_STAGES = ['validate', 'authorize', 'confirm', 'execute'] as const;

/** The example's tools, served by the gate's no-op worker. */
export const GATE_TOOLS = ['search', 'calculate', 'final', 'approve_invoice', 'send_email', 'refund_payment'];

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
  readonly progress: (line: string) => void;
}

const NODE_FLAGS = ['--no-turbo-inline-js-wasm-calls'];

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
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
  };
}

function script(name: string): string {
  return join(REPO_ROOT, 'bench', 'pipeline', name);
}

function startOwn(o: StartOptions, name: string, file: string, env: Record<string, string>, config: Omit<ChildConfig, 'readyFile'>) {
  const readyFile = join(o.logDir, `${name}.ready`);
  const child = o.children.start({
    name,
    args: [...NODE_FLAGS, '--import', 'tsx', script(file)],
    env: { ...env, [CHILD_VARIABLE]: JSON.stringify({ ...config, readyFile }) },
  });
  return { child, ready: () => waitUntil(`${name} joining its group`, child, () => Promise.resolve(existsSync(readyFile))) };
}

/** Starts both systems; resolves with their processes once all are ready. */
export async function startSystems(o: StartOptions): Promise<{ relay: SystemProcesses; gate: SystemProcesses }> {
  const integrityKey = randomBytes(32).toString('hex');
  const relayEnv = (instance: string) => ({ ...baseEnv(o, o.relay, instance), TOOLGATE_INTEGRITY_KEY: integrityKey });
  const starting: { child: Child; ready: () => Promise<void> }[] = [];
  for (const role of RELAY_ROLES) {
    if (role === 'obs') continue;
    starting.push(startOwn(o, `relay-${role}`, 'relay-hop.ts', relayEnv(role), { role }));
  }
  starting.push(startOwn(o, 'relay-worker', 'noop-worker.ts', baseEnv(o, o.relay, 'relay-worker'), { tools: ['echo'] }));
  starting.push(startOwn(o, 'relay-obs', 'relay-hop.ts', relayEnv('obs'), { role: 'obs' }));
  const profile = o.profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${o.profileDir}`];
  for (const stage of GATE_STAGES) {
    const port = await freePort();
    const child = o.children.start({
      name: `gate-${stage}`,
      args: [...NODE_FLAGS, ...profile, '--import', 'tsx', join(REPO_ROOT, 'packages/cli/src/main.ts'), 'start', stage, '--config', script('bench-deployment.ts')],
      env: {
        ...baseEnv(o, o.gate, stage),
        TOOLGATE_INTEGRITY_KEY: integrityKey,
        TOOLGATE_HTTP_PORT: String(port),
      },
    });
    const probe = async () => (await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1_000) })).ok;
    starting.push({ child, ready: () => waitUntil(`gate-${stage} joining its group`, child, probe) });
  }
  const worker = startOwn(o, 'gate-worker', 'noop-worker.ts', baseEnv(o, o.gate, 'gate-worker'), { tools: GATE_TOOLS });
  starting.push({
    child: worker.child,
    ready: worker.ready,
  });
  o.progress(`starting ${starting.length} processes (logs in ${o.logDir})`);
  await Promise.all(starting.map((s) => s.ready()));
  const of = (prefix: string) => starting.map((s) => s.child).filter((c) => c.name.startsWith(prefix));
  return { relay: of('relay-'), gate: of('gate-') };
}
