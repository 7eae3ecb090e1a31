/**
 * The agent client's options: given ones win, then the `TOOLGATE_*` variables of an environment
 * the caller passes (never `process.env` on its own), then the gate's defaults. Every problem is
 * reported at once, as the gate's own configuration does.
 */
import {
  CONFIG_VARIABLES,
  ENV_PREFIX,
  isHostPort,
  type AdapterLogger,
  type Env,
} from '@toolgate/platform';
import { ConfigError } from '@toolgate/shared';
import { DEFAULT_BUFFER_LIMIT, MAX_OBSERVATION_TIMEOUT_MS } from './observation-router.js';

/** A session token, or a function that returns a fresh one (called once per submission). */
export type SessionSource = string | (() => Promise<string>);

/** How long the client waits for its consumer to join its group at start, by default (ms). */
export const DEFAULT_JOIN_TIMEOUT_MS = 30_000;

/** Options of `createAgentClient`. */
export interface AgentClientOptions {
  /** Kafka bootstrap brokers, `host:port` each. Default: `TOOLGATE_KAFKA_BROKERS`, else `127.0.0.1:9092`. */
  readonly brokers?: readonly string[];
  /**
   * Where unset options are read from (`TOOLGATE_KAFKA_BROKERS`, `TOOLGATE_SCHEMA_REGISTRY_URL`,
   * `TOOLGATE_TOPIC_PREFIX`, `TOOLGATE_GROUP_PREFIX`): pass `process.env` to use the process's.
   */
  readonly env?: Env;
  /** The registry's Confluent API. Default: `TOOLGATE_SCHEMA_REGISTRY_URL`, else the gate's default. */
  readonly registryUrl?: string;
  /** The gate installation's topic prefix. Default: `TOOLGATE_TOPIC_PREFIX`, else empty. */
  readonly topicPrefix?: string;
  /** Prefix of the client's consumer group. Default: `TOOLGATE_GROUP_PREFIX`, else empty. */
  readonly groupPrefix?: string;
  /** The caller's session token (or a source of fresh ones), sent in `toolgate-session`. */
  readonly session: SessionSource;
  /** Where the client and kafkajs log. Default: nowhere. */
  readonly logger?: AdapterLogger;
  /** Send proposals as plain JSON instead of the registry wire format. Default false. */
  readonly plainJson?: boolean;
  /** Submitted proposals remembered until their observation is awaited. Default 1000. */
  readonly bufferLimit?: number;
  /**
   * How long start-up waits for the consumer to join its group, in ms. Default 30 000, at most
   * 2^31−1 (the longest delay Node's timers honour).
   */
  readonly joinTimeoutMs?: number;
}

/** The options after defaults, checked. */
export interface ClientSettings {
  readonly brokers: readonly string[];
  readonly registryUrl: string;
  readonly topicPrefix: string;
  readonly groupPrefix: string;
  readonly session: SessionSource;
  readonly plainJson: boolean;
  readonly bufferLimit: number;
  readonly joinTimeoutMs: number;
}

const URL_PATTERN = new RegExp(CONFIG_VARIABLES.SCHEMA_REGISTRY_URL.schema.pattern);
const PREFIX = new RegExp(CONFIG_VARIABLES.TOPIC_PREFIX.schema.pattern);

/**
 * The settings of a client with `options`.
 *
 * @throws ConfigError naming every problem (never the session token).
 */
export function clientSettings(options: AgentClientOptions): ClientSettings {
  const env = options.env ?? {};
  const fromEnv = (name: string): string | undefined => {
    const value = env[ENV_PREFIX + name];
    return value === undefined || value === '' ? undefined : value;
  };
  const settings: ClientSettings = {
    brokers: options.brokers ?? brokerList(fromEnv('KAFKA_BROKERS')),
    registryUrl:
      options.registryUrl ??
      fromEnv('SCHEMA_REGISTRY_URL') ??
      CONFIG_VARIABLES.SCHEMA_REGISTRY_URL.default,
    topicPrefix: options.topicPrefix ?? fromEnv('TOPIC_PREFIX') ?? '',
    groupPrefix: options.groupPrefix ?? fromEnv('GROUP_PREFIX') ?? '',
    session: options.session,
    plainJson: options.plainJson ?? false,
    bufferLimit: options.bufferLimit ?? DEFAULT_BUFFER_LIMIT,
    joinTimeoutMs: options.joinTimeoutMs ?? DEFAULT_JOIN_TIMEOUT_MS,
  };
  const problems = problemsOf(settings);
  if (problems.length > 0) throw new ConfigError('agent client options', problems);
  return Object.freeze({ ...settings, brokers: Object.freeze([...settings.brokers]) });
}

function brokerList(text: string | undefined): readonly string[] {
  if (text === undefined) return CONFIG_VARIABLES.KAFKA_BROKERS.default;
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function problemsOf(s: ClientSettings): string[] {
  const problems: string[] = [];
  if (s.brokers.length === 0) problems.push('brokers must name at least one broker');
  for (const broker of s.brokers) {
    if (!isHostPort(broker))
      problems.push(`broker ${JSON.stringify(broker)} is not host:port (port 1–65535)`);
  }
  if (!URL_PATTERN.test(s.registryUrl)) problems.push('registryUrl must be an http(s) URL');
  if (!PREFIX.test(s.topicPrefix)) problems.push('topicPrefix may hold only A-Z a-z 0-9 . _ -');
  if (!PREFIX.test(s.groupPrefix)) problems.push('groupPrefix may hold only A-Z a-z 0-9 . _ -');
  const session = s.session as unknown;
  if (!(typeof session === 'function' || (typeof session === 'string' && session !== ''))) {
    problems.push('session must be a non-empty token or a function that returns one');
  }
  if (!isPositiveInteger(s.bufferLimit)) problems.push('bufferLimit must be a positive integer');
  if (!isPositiveInteger(s.joinTimeoutMs))
    problems.push('joinTimeoutMs must be a positive integer');
  else if (s.joinTimeoutMs > MAX_OBSERVATION_TIMEOUT_MS)
    problems.push(`joinTimeoutMs must be at most ${MAX_OBSERVATION_TIMEOUT_MS}`);
  return problems;
}

function isPositiveInteger(n: number): boolean {
  return Number.isSafeInteger(n) && n > 0;
}
