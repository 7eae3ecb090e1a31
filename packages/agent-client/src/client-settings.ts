/**
 * The agent client's options: given ones win, then the `TOOLGATE_*` variables of an environment
 * the caller passes (never `process.env` on its own), then the gate's defaults. Every problem is
 * reported at once, as the gate's own configuration does.
 */
import type { AdapterLogger } from '@toolgate/platform/adapter-logger';
import { CONFIG_VARIABLES, ENV_PREFIX, isHostPort, type Env } from '@toolgate/platform/config';
import {
  kafkaIdentityFromEnv,
  resolveKafkaSecurity,
  type KafkaSecurity,
} from '@toolgate/platform/kafka';
import { ConfigError, observationPublicKeyProblems } from '@toolgate/shared';
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
  /**
   * The tenant this agent works for: it reads `toolgate.observations.<tenant>` (its Kafka
   * principal may read no other), and asks the gate to answer there when a session cannot say.
   * Default: `TOOLGATE_TENANT`.
   */
  readonly tenant?: string;
  /**
   * Who the client is to Kafka: SASL and TLS, as the gate's own processes take them. Default: the
   * `TOOLGATE_KAFKA_*` variables of `env`, which must name an identity (or `none`, said loudly).
   */
  readonly kafka?: KafkaSecurity;
  /**
   * The gate's observation public keys (base64 SPKI DER; several during a rotation): only an
   * observation signed with one of them reaches a waiter. Default:
   * `TOOLGATE_OBSERVATION_PUBLIC_KEYS` (comma-separated).
   */
  readonly observationKeys?: readonly string[];
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
  readonly tenant: string;
  readonly kafka: KafkaSecurity;
  readonly observationKeys: readonly string[];
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
  const identity =
    options.kafka === undefined ? resolveKafkaSecurity(kafkaIdentityFromEnv(env)) : undefined;
  const settings: ClientSettings = {
    brokers: options.brokers ?? brokerList(fromEnv('KAFKA_BROKERS')),
    tenant: options.tenant ?? fromEnv('TENANT') ?? '',
    kafka: options.kafka ?? (identity?.ok === true ? identity.security : {}),
    observationKeys: options.observationKeys ?? listOf(fromEnv('OBSERVATION_PUBLIC_KEYS')),
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
  const problems = [...problemsOf(settings), ...(identity?.ok === false ? identity.problems : [])];
  if (problems.length > 0) throw new ConfigError('agent client options', problems);
  return Object.freeze({ ...settings, brokers: Object.freeze([...settings.brokers]) });
}

function listOf(text: string | undefined): readonly string[] {
  return (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

const TENANT = /^[A-Za-z0-9_-]{1,64}$/;

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
  if (!TENANT.test(s.tenant)) {
    problems.push('tenant (or TOOLGATE_TENANT) must name the tenant: 1-64 of A-Z a-z 0-9 _ -');
  }
  problems.push(
    ...observationPublicKeyProblems(s.observationKeys).map((p) => `observationKeys: ${p}`),
  );
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
