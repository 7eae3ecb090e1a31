/**
 * What one demo run works with: the stack it runs on, the complete environment of each principal
 * it starts or connects as (every stage, the tool worker, the agents, analytics and the stack's
 * admin each connect as themselves, with their own password and only the keys their role holds),
 * where the stages' and the tool worker's HTTP endpoints answer, where logs go, and the run's tag.
 * Read once from the demo's own environment and arguments; the demo honours the same `TOOLGATE_*`
 * variables as every Toolgate process, so it can run in a namespace (topic, group and Redis
 * prefixes) next to other users of one stack.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CONFIG_VARIABLES,
  DEFAULT_HTTP_PORTS,
  GATE_STAGE_NAMES,
  KAFKA_SECURITY_VARIABLES,
  loadConfig,
  stagePrincipal,
  type Config,
  type Env,
  type GateStageName,
} from '@toolgate/platform';
import { ConfigError } from '@toolgate/shared';
import {
  loadStackConfig,
  OVERRIDES,
  type StackAddresses,
  type StackConfig,
} from '../../../infra/stack-config.js';
import { stackEnv } from '../../../infra/stack-env.js';
import { StackError } from '../../../infra/stack-error.js';

/** The gate's stages, each started as a process of its own, in the order of their ports. */
export const DEMO_STAGES = GATE_STAGE_NAMES;

/** One of {@link DEMO_STAGES}. */
export type DemoStage = GateStageName;

/**
 * The demo's processes that serve HTTP (`/readyz`): the stages, the tool worker, analytics and
 * the console.
 */
export type DemoProcess = DemoStage | 'worker' | 'analytics' | 'console';

/** The tool worker's HTTP port when TOOLGATE_HTTP_PORT gives no base: the one after execute's. */
export const DEMO_WORKER_PORT = 9105;

/** Analytics' HTTP port (its API, /readyz, /metrics) when TOOLGATE_HTTP_PORT gives no base. */
export const DEMO_ANALYTICS_PORT = 9106;

/** The console's port when TOOLGATE_HTTP_PORT gives no base: the console's own default. */
export const DEMO_CONSOLE_PORT = 9120;

/** The repository's root directory. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * Variables that say who a process is or which secrets it holds. The caller's are never handed
 * on: each process gets its principal's own from the stack, so no process runs as another or
 * holds a key its role has no business with.
 */
const PRINCIPAL_VARIABLES: readonly string[] = [
  ...Object.keys(KAFKA_SECURITY_VARIABLES),
  'REDIS_URL',
  'INTEGRITY_KEY',
  'INTEGRITY_KEYS_ACCEPTED',
  'OBSERVATION_KEY',
  'COMMAND_KEY',
  'COMMAND_KEYS_ACCEPTED',
  'TOOL_KEYS',
  'WORKER_NAME',
  'TENANT',
  'OBSERVATION_PUBLIC_KEYS',
  'HTTP_PORT',
  'APPROVAL_PORT',
].map((name) => `TOOLGATE_${name}`);

/** Settings of one demo run. */
export interface DemoSettings {
  /** Exit after the summary (`--once`) instead of keeping the system up until Ctrl-C. */
  readonly once: boolean;
  /** Short, unique per run: in every run id, request id and per-run object id. */
  readonly runTag: string;
  /** The stack the demo runs on (its addresses, and its secrets under `stackDir`). */
  readonly stack: StackConfig;
  /** The gate's configuration as the execute stage reads it (addresses, prefixes, ports). */
  readonly config: Readonly<Config>;
  /**
   * True when a topic, group or Redis prefix sets this run apart from the stack's own names: the
   * demo then provisions that namespace first, as the stack's admin.
   */
  readonly namespaced: boolean;
  /**
   * The HS256 secret of session tokens: TOOLGATE_SESSION_SECRET, or 32 random bytes made for this
   * run (never the example's published one); every stage is given it as TOOLGATE_SESSION_SECRET.
   */
  readonly sessionSecret: string;
  /** True when {@link sessionSecret} was made for this run. */
  readonly sessionSecretGenerated: boolean;
  /** HTTP port of each stage and of the tool worker. */
  readonly ports: Readonly<Record<DemoProcess, number>>;
  /** The confirm stage's approval API port (apart from its /metrics). */
  readonly approvalPort: number;
  /** Base URL of the confirm stage's approval API. */
  readonly approvalUrl: string;
  /** Where child processes write their logs. */
  readonly logDir: string;
  /** The deployment file the stages load. */
  readonly deploymentFile: string;
  /**
   * `export` lines for the addresses the demo took from a stack moved off its default ports
   * (TOOLGATE_STACK_*_PORT): the CLI in another terminal needs them too. Empty otherwise.
   */
  readonly addressExports: readonly string[];
  /** Base URL of the HTTP endpoint of one of the demo's processes. */
  urlOf(process: DemoProcess): string;
  /**
   * The complete environment of a process or client running as `principal`: the caller's
   * environment without anyone's identity or keys, the principal's own from the stack, and the
   * demo's defaults. Without a principal, that environment with no identity at all (the console,
   * which holds no Kafka or Redis credentials).
   *
   * @throws Error for a principal the stack does not know.
   */
  envOf(principal?: string): Env;
}

/**
 * Reads the settings from `argv` (after the script name) and `env`.
 *
 * @throws ConfigError naming every problem: an unknown argument, a stack port that is no port, or
 *   what `loadConfig` finds wrong with the `TOOLGATE_*` variables.
 */
export function demoSettings(argv: readonly string[], env: Env): DemoSettings {
  const unknown = argv.filter((a) => a !== '--once');
  if (unknown.length > 0) {
    throw new ConfigError('npm start', [
      `unknown argument(s) ${unknown.join(' ')}; the only option is --once`,
    ]);
  }
  const stack = stackConfigOf(env);
  const sessions = sessionSecretOf(env);
  const envOf = principalEnvs(stack, { ...env, TOOLGATE_SESSION_SECRET: sessions.sessionSecret });
  const config = loadConfig({
    ...envOf(stagePrincipal('execute')),
    TOOLGATE_HTTP_PORT: env['TOOLGATE_HTTP_PORT'],
    TOOLGATE_APPROVAL_PORT: env['TOOLGATE_APPROVAL_PORT'],
  });
  for (const [variable, port] of [
    ['TOOLGATE_HTTP_PORT', config.httpPort],
    ['TOOLGATE_APPROVAL_PORT', config.approvalPort],
  ] as const) {
    if (port === 0) {
      throw new ConfigError('npm start', [
        `${variable}=0 picks ports the demo cannot know; give a base port or leave it unset`,
      ]);
    }
  }
  const ports = portsOf(config.httpPort);
  const host = config.httpHost === '0.0.0.0' ? '127.0.0.1' : config.httpHost;
  const urlOf = (process: DemoProcess) => `http://${host}:${ports[process]}`;
  // After the worker's port when a base is given, so that one base moves every port of the demo.
  const approvalPort =
    nonEmpty(env['TOOLGATE_APPROVAL_PORT']) === undefined && config.httpPort !== undefined
      ? config.httpPort + DEMO_STAGES.length + 2
      : config.approvalPort;
  const approvalHost = config.approvalHost === '0.0.0.0' ? '127.0.0.1' : config.approvalHost;
  const scheme = config.approvalTlsCertFile === undefined ? 'http' : 'https';
  return {
    once: argv.includes('--once'),
    runTag: `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`,
    stack,
    config,
    namespaced: isNamespaced(config),
    ...sessions,
    ports,
    approvalPort,
    approvalUrl: `${scheme}://${approvalHost}:${approvalPort}`,
    logDir: logDirOf(config.topicPrefix),
    deploymentFile: path.join(REPO_ROOT, 'examples/billing/demo/toolgate.demo.config.ts'),
    addressExports: exportsOf(stack.addresses, env),
    urlOf,
    envOf,
  };
}

/**
 * The stack as `stack:up` reads the same `env`: `npm start` brings it up first, on the ports
 * TOOLGATE_STACK_*_PORT may have moved it to, and the demo must talk to that stack rather than to
 * whatever holds the default ports.
 */
function stackConfigOf(env: Env): StackConfig {
  try {
    return loadStackConfig(env, REPO_ROOT);
  } catch (error) {
    if (error instanceof StackError) throw new ConfigError('npm start', [error.reason]);
    throw error;
  }
}

/** `envOf` of {@link DemoSettings}. */
function principalEnvs(stack: StackConfig, env: Env): (principal?: string) => Env {
  const shared: Env = {
    ...Object.fromEntries(
      Object.entries(env).filter(([name]) => !PRINCIPAL_VARIABLES.includes(name)),
    ),
    TOOLGATE_LOG_LEVEL: nonEmpty(env['TOOLGATE_LOG_LEVEL']) ?? 'info',
  };
  return (principal) => {
    if (principal === undefined) return shared;
    const own = stackEnv(stack, principal);
    if (own === undefined) throw new Error(`the stack has no principal ${principal}`);
    return { ...shared, ...own };
  };
}

/** True when any prefix differs from the names the stack provisions for itself. */
function isNamespaced(config: Config): boolean {
  return (
    config.topicPrefix !== '' ||
    config.groupPrefix !== '' ||
    config.redisPrefix !== CONFIG_VARIABLES.REDIS_PREFIX.default
  );
}

/** `export` lines for the addresses the caller left unset whose stack value is not the default. */
function exportsOf(addresses: StackAddresses, env: Env): string[] {
  const defaults = addressVariables(loadStackConfig({}, REPO_ROOT).addresses);
  return Object.entries(addressVariables(addresses))
    .filter(
      ([variable, value]) => nonEmpty(env[variable]) === undefined && defaults[variable] !== value,
    )
    .map(([variable, value]) => `export ${variable}=${value}`);
}

function addressVariables(addresses: StackAddresses): Record<string, string> {
  return {
    [OVERRIDES.kafka]: addresses.kafkaBrokers.join(','),
    [OVERRIDES.registry]: addresses.schemaRegistryUrl,
    [OVERRIDES.redis]: addresses.redisUrl,
  };
}

/**
 * Consecutive ports from a base (the stages in order, the worker, analytics, then the approval
 * API's and the console's), or each default.
 */
function portsOf(base: number | undefined): Record<DemoProcess, number> {
  const stages = DEMO_STAGES.map((s, i) => [
    s,
    base === undefined ? DEFAULT_HTTP_PORTS[s] : base + i,
  ]);
  const worker = base === undefined ? DEMO_WORKER_PORT : base + DEMO_STAGES.length;
  const analytics = base === undefined ? DEMO_ANALYTICS_PORT : base + DEMO_STAGES.length + 1;
  const console = base === undefined ? DEMO_CONSOLE_PORT : base + DEMO_STAGES.length + 3;
  return {
    ...(Object.fromEntries(stages) as Record<DemoStage, number>),
    worker,
    analytics,
    console,
  };
}

/** `.demo/logs`, or a directory of its own per topic prefix, so namespaced runs keep apart. */
function logDirOf(topicPrefix: string): string {
  const namespace = topicPrefix.replace(/[^A-Za-z0-9_-]+/g, '');
  return path.join(REPO_ROOT, '.demo', 'logs', ...(namespace === '' ? [] : [namespace]));
}

/** TOOLGATE_SESSION_SECRET, or a random secret made for this run. */
function sessionSecretOf(env: Env): Pick<DemoSettings, 'sessionSecret' | 'sessionSecretGenerated'> {
  const given = nonEmpty(env['TOOLGATE_SESSION_SECRET']);
  return given === undefined
    ? { sessionSecret: randomBytes(32).toString('base64url'), sessionSecretGenerated: true }
    : { sessionSecret: given, sessionSecretGenerated: false };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
