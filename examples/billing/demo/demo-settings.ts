/**
 * What one demo run works with: the environment its child processes get, where the confirm stage's
 * approval API and each stage's health endpoint answer, where logs go, and the run's tag. Read
 * once from the demo's own environment and arguments; the demo honours the same `TOOLGATE_*`
 * variables as every Toolgate process, so it can run in a namespace (topic, group and Redis
 * prefixes) next to other users of one stack.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { httpPortFor, loadConfig, type Config, type Env } from '@toolgate/platform';
import { ConfigError } from '@toolgate/shared';
import { loadStackConfig, type StackAddresses } from '../../../infra/stack-config.js';
import { StackError } from '../../../infra/stack-error.js';
import { EXAMPLE_SESSION_SECRET } from '../toolgate.config.js';

/**
 * The integrity key the demo's stages share when TOOLGATE_INTEGRITY_KEY is not set. Published in
 * this repository, so it protects nothing: never deploy it.
 */
export const DEMO_INTEGRITY_KEY = 'toolgate-demo-only-integrity-key-never-deploy-0001';

/** The stages `toolgate start all` runs, in the order it assigns ports from TOOLGATE_HTTP_PORT. */
export const DEMO_STAGES = ['validate', 'authorize', 'confirm', 'execute'] as const;

/** One of {@link DEMO_STAGES}. */
export type DemoStage = (typeof DEMO_STAGES)[number];

/** The repository's root directory. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Settings of one demo run. */
export interface DemoSettings {
  /** Exit after the table (`--once`) instead of keeping the system up until Ctrl-C. */
  readonly once: boolean;
  /** Short, unique per run: in every run id, request id and per-run object id. */
  readonly runTag: string;
  /** The environment every child process gets: the caller's, plus the demo's defaults. */
  readonly env: Env;
  /** The gate's configuration as the stages will read it from {@link env}. */
  readonly config: Readonly<Config>;
  /** The HMAC secret of session tokens (the deployment file reads the same variable). */
  readonly sessionSecret: string;
  /** Health and metrics port of each stage. */
  readonly ports: Readonly<Record<DemoStage, number>>;
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
}

/**
 * Reads the settings from `argv` (after the script name) and `env`.
 *
 * @throws ConfigError naming every problem: an unknown argument, or what `loadConfig` finds wrong
 *   with the `TOOLGATE_*` variables.
 */
export function demoSettings(argv: readonly string[], env: Env): DemoSettings {
  const unknown = argv.filter((a) => a !== '--once');
  if (unknown.length > 0) {
    throw new ConfigError('npm start', [
      `unknown argument(s) ${unknown.join(' ')}; the only option is --once`,
    ]);
  }
  const filled = stackAddressesFor(env);
  const childEnv: Env = {
    ...env,
    ...filled,
    TOOLGATE_INTEGRITY_KEY: nonEmpty(env['TOOLGATE_INTEGRITY_KEY']) ?? DEMO_INTEGRITY_KEY,
    TOOLGATE_LOG_LEVEL: nonEmpty(env['TOOLGATE_LOG_LEVEL']) ?? 'info',
  };
  const config = loadConfig(childEnv);
  if (config.httpPort === 0) {
    throw new ConfigError('npm start', [
      'TOOLGATE_HTTP_PORT=0 picks ports the demo cannot know; give a base port or leave it unset',
    ]);
  }
  const ports = portsOf(config);
  const approvalPort = config.confirmationHttpPort ?? ports.confirm;
  const host = config.httpHost === '0.0.0.0' ? '127.0.0.1' : config.httpHost;
  return {
    once: argv.includes('--once'),
    runTag: `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`,
    env: childEnv,
    config,
    sessionSecret: nonEmpty(env['TOOLGATE_SESSION_SECRET']) ?? EXAMPLE_SESSION_SECRET,
    ports,
    approvalUrl: `http://${host}:${approvalPort}`,
    logDir: logDirOf(config.topicPrefix),
    deploymentFile: path.join(REPO_ROOT, 'examples/billing/demo/toolgate.demo.config.ts'),
    addressExports: exportsOf(filled),
  };
}

/**
 * The address variables `env` leaves unset, as `stack:up` reads the same `env`: `npm start` brings
 * the stack up first, on the ports TOOLGATE_STACK_*_PORT may have moved it to, and the gate must
 * talk to that stack rather than to whatever holds the default ports.
 */
function stackAddressesFor(env: Env): Record<string, string> {
  let stack: Record<string, string>;
  try {
    stack = addressVariables(loadStackConfig(env, REPO_ROOT).addresses);
  } catch (error) {
    if (error instanceof StackError) throw new ConfigError('npm start', [error.reason]);
    throw error;
  }
  return Object.fromEntries(
    Object.entries(stack).filter(([variable]) => nonEmpty(env[variable]) === undefined),
  );
}

function addressVariables(addresses: StackAddresses): Record<string, string> {
  return {
    TOOLGATE_KAFKA_BROKERS: addresses.kafkaBrokers.join(','),
    TOOLGATE_SCHEMA_REGISTRY_URL: addresses.schemaRegistryUrl,
    TOOLGATE_REDIS_URL: addresses.redisUrl,
  };
}

/** `export` lines for the addresses taken from a stack off its default ports. */
function exportsOf(filled: Readonly<Record<string, string>>): string[] {
  const defaults = addressVariables(loadStackConfig({}, REPO_ROOT).addresses);
  return Object.entries(filled)
    .filter(([variable, value]) => defaults[variable] !== value)
    .map(([variable, value]) => `export ${variable}=${value}`);
}

/** Ports as `toolgate start all` assigns them: consecutive from a base, or each stage's default. */
function portsOf(config: Config): Record<DemoStage, number> {
  const base = config.httpPort;
  return Object.fromEntries(
    DEMO_STAGES.map((s, i) => [s, base === undefined ? httpPortFor(config, s) : base + i]),
  ) as Record<DemoStage, number>;
}

/** `.demo/logs`, or a directory of its own per topic prefix, so namespaced runs keep apart. */
function logDirOf(topicPrefix: string): string {
  const namespace = topicPrefix.replace(/[^A-Za-z0-9_-]+/g, '');
  return path.join(REPO_ROOT, '.demo', 'logs', ...(namespace === '' ? [] : [namespace]));
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
