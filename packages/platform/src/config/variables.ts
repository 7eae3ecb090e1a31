/**
 * Every variable a Toolgate process reads, in the order `docs/configuration.md` lists them, and
 * the typed configuration they load into; the variables of other programs and of the deployment
 * file are listed too, so they are documented and not reported as unknown.
 */
import { KAFKA_SECURITY_VARIABLES, type KafkaIdentitySettings } from '../kafka/index.js';
import {
  KAFKA_VARIABLES,
  PREFIX_VARIABLES,
  REDIS_VARIABLES,
  REGISTRY_VARIABLES,
} from './connection-variables.js';
import { ANALYTICS_VARIABLES } from './analytics-variables.js';
import { APPROVAL_VARIABLES } from './approval-variables.js';
import { FETCH_VARIABLES } from './fetch-settings.js';
import { HTTP_VARIABLES } from './http-variables.js';
import { KEY_VARIABLES } from './key-variables.js';
import {
  DEPLOYMENT_FILE_VARIABLES,
  EXECUTE_VARIABLES,
  PROCESS_VARIABLES,
} from './process-variables.js';
import type { VariableTable } from './variable-spec.js';

/** The shared variables of every Toolgate process. */
export const CONFIG_VARIABLES = {
  ...KAFKA_VARIABLES,
  ...KAFKA_SECURITY_VARIABLES,
  ...REGISTRY_VARIABLES,
  ...REDIS_VARIABLES,
  ...PREFIX_VARIABLES,
  ...KEY_VARIABLES,
  ...DEPLOYMENT_FILE_VARIABLES,
  ...HTTP_VARIABLES,
  ...APPROVAL_VARIABLES,
  ...EXECUTE_VARIABLES,
  ...FETCH_VARIABLES,
  ...ANALYTICS_VARIABLES,
  ...PROCESS_VARIABLES,
} as const satisfies VariableTable;

/**
 * Variables read by the deployment file, not by `loadConfig`; listed so they are documented
 * and not reported as unknown.
 */
export const DEPLOYMENT_VARIABLES: Readonly<Record<string, string>> = {
  SESSION_SECRET:
    'HS256 secret for session tokens (development, at least 32 random bytes); read by the example deployment (`sessions.secret`).',
  SESSION_JWKS_FILE:
    "JWKS file of the identity provider's public EdDSA/ES256/RS256 keys (production), read again when it changes (no restart); read by the example deployment (`sessions.jwksFile`). See docs/sessions.md.",
  SESSION_JWKS_URL:
    'JWKS URL of the identity provider (its `jwks_uri`; https, or http on a loopback host), cached and fetched again with a bounded wait; tokens are refused while it cannot be had. Read by the example deployment (`sessions.jwksUrl`).',
  SESSION_ISSUER:
    "The `iss` every session token must carry (the identity provider's issuer); required with a JWKS, default `toolgate-example` with a secret. Read by the example deployment (`sessions.issuer`).",
  DEMO_SESSIONS:
    '`1`: the example deployment is a demo and may verify with the HS256 secret published in the repository when no key is given; otherwise it refuses to start without one.',
};

/**
 * Variables other Toolgate programs read (the CLI, tool workers, the local stack driver), by name
 * without the prefix: known, so a stage given the same environment does not warn about them.
 */
export const OTHER_VARIABLES: Readonly<Record<string, string>> = {
  WORKER_NAME:
    "Tool workers: names the worker's consumer group (`toolgate.worker.<name>`); default the worker's tool names joined by `.`.",
  TOOL_KEYS:
    "Tool workers: the keys of the worker's tools, `<tool>:<key>` comma-separated (`npx toolgate keys tool <name>`); a command runs only when its proof verifies with its tool's key. A secret.",
  TENANT:
    'Agent clients: the tenant the agent works for; it reads `toolgate.observations.<tenant>` and asks for refusals its session cannot place to go there.',
  OBSERVATION_PUBLIC_KEYS:
    "Agent clients: the gate's observation public keys (base64 SPKI DER, comma-separated; several during a rotation): an observation that does not verify with one of them is dropped.",
  APPROVAL_URL:
    "CLI (`pending`, `approve`, `reject`): the confirm stage's approval API (`TOOLGATE_APPROVAL_HOST`/`_PORT`); default `http://127.0.0.1:9110`.",
  APPROVAL_CA_FILE:
    "CLI (`pending`, `approve`, `reject`): PEM file of the CA that signed an HTTPS approval API's certificate, trusted besides the system's.",
  SESSION_TOKEN:
    'CLI (`pending`, `approve`, `reject`): the session token to act as, when `--as` is not given.',
  STACK_DIR:
    'Local stack: where `stack:up` keeps jars, data, logs and pid files; default `.stack/`.',
  STACK_KAFKA_PORT: "Local stack: Kafka listener port (the first node's); default 9092.",
  STACK_KAFKA_CONTROLLER_PORT: 'Local stack: KRaft controller port; default 9093.',
  STACK_KAFKA_NODES:
    'Local stack: 1 or 3 KRaft nodes (3: replication factor 3, min.insync.replicas 2, ports stepping by 2 from the Kafka and controller ports); default 1.',
  STACK_REGISTRY_PORT: 'Local stack: Apicurio Registry port; default 8081.',
  STACK_REGISTRY_MANAGEMENT_PORT: "Local stack: the registry's health port; default 9081.",
  STACK_REDIS_PORT:
    'Local stack: port of the Redis it starts (with ACL users, no default user); default 6380. A cluster takes it and the five after it.',
  STACK_REDIS:
    'Local stack: `server` (default) starts one Redis; `cluster` a Redis Cluster of three primaries with a replica each.',
  STACK_REDIS_CLUSTER_BUS_PORT:
    "Local stack: the cluster bus port of a Redis Cluster's first node (`TOOLGATE_STACK_REDIS=cluster`), the others after it; default 16380.",
  CORPORA_DIR:
    'Tests: the shared test corpora (JSON Schema Test Suite, JSON parsing suite, BFCL, malformed calls); default `../shared/corpora` beside the repository.',
  REGISTRY_JAVA_HOME:
    'Local stack: the JDK (21 or later) that runs Apicurio Registry, when the default `java` is older.',
};

/**
 * The loaded configuration of a Toolgate process; its Kafka identity is the
 * {@link KafkaIdentitySettings} of the TOOLGATE_KAFKA_* variables.
 */
export interface Config extends KafkaIdentitySettings {
  /** TOOLGATE_KAFKA_BROKERS: bootstrap brokers, `host:port` each. */
  readonly kafkaBrokers: readonly string[];
  /** TOOLGATE_SCHEMA_REGISTRY_URL: the Confluent-compatible registry API. */
  readonly schemaRegistryUrl: string;
  /** TOOLGATE_REDIS_URL: the Redis URL. */
  readonly redisUrl: string;
  /** TOOLGATE_TOPIC_PREFIX: prepended to every topic name; default empty. */
  readonly topicPrefix: string;
  /** TOOLGATE_REDIS_PREFIX: prepended to every Redis key; default `toolgate:`. */
  readonly redisPrefix: string;
  /** TOOLGATE_GROUP_PREFIX: prepended to consumer groups and transactional ids; default empty. */
  readonly groupPrefix: string;
  /** TOOLGATE_INTEGRITY_KEY: HMAC key of internal envelopes, ≥ 32 bytes. A secret: never log it. */
  readonly integrityKey: string;
  /** TOOLGATE_INTEGRITY_KEYS_ACCEPTED: further keys whose tags verify, for a rotation. */
  readonly integrityKeysAccepted: readonly string[];
  /** TOOLGATE_ENVELOPE_MAX_AGE_MS: the oldest internal envelope accepted, in ms; default 1 h. */
  readonly envelopeMaxAgeMs: number;
  /** TOOLGATE_OBSERVATION_KEY: the Ed25519 key that signs observations. A secret. */
  readonly observationKey: string;
  /** TOOLGATE_COMMAND_KEY: execute's key, from which each tool's key is derived. A secret. */
  readonly commandKey?: string;
  /** TOOLGATE_COMMAND_KEYS_ACCEPTED: further command keys whose tools' keys verify results. */
  readonly commandKeysAccepted: readonly string[];
  /** TOOLGATE_CONFIG: the deployment file, if given by environment. */
  readonly deploymentFile?: string;
  /** TOOLGATE_HTTP_HOST: the address the HTTP server binds to; default `127.0.0.1`. */
  readonly httpHost: string;
  /** TOOLGATE_HTTP_PORT: health/metrics port; unset = the stage default ({@link httpPortFor}). */
  readonly httpPort?: number;
  /** TOOLGATE_APPROVAL_HOST: the address the approval API binds to; default `127.0.0.1`. */
  readonly approvalHost: string;
  /** TOOLGATE_APPROVAL_PORT: the approval API's port, never /metrics'; default 9110. */
  readonly approvalPort: number;
  /** TOOLGATE_APPROVAL_TLS_CERT_FILE: the approval API's certificate (PEM); with the key: HTTPS. */
  readonly approvalTlsCertFile?: string;
  /** TOOLGATE_APPROVAL_TLS_KEY_FILE: the approval API's private key (PEM). */
  readonly approvalTlsKeyFile?: string;
  /** TOOLGATE_EXECUTE_INPUTS: what an execute process consumes, one of {@link EXECUTE_INPUTS}. */
  readonly executeInputs: string;
  /** TOOLGATE_FETCH_MAX_WAIT_MS: a busy stage's fetch wait in ms; default 25. */
  readonly fetchMaxWaitMs: number;
  /** TOOLGATE_FETCH_MIN_BYTES: bytes a busy stage's fetch waits for; default 32 KiB. */
  readonly fetchMinBytes: number;
  /** TOOLGATE_FETCH_BUSY_MIN_BYTES: bytes a fetch must bring for the stage to be busy; 2 KiB. */
  readonly fetchBusyMinBytes: number;
  /** TOOLGATE_ANALYTICS_MINUTE_GRACE_MS: grace of one-minute windows, ms; default 30 s. */
  readonly analyticsMinuteGraceMs: number;
  /** TOOLGATE_ANALYTICS_HOUR_GRACE_MS: grace of one-hour windows, ms; default 5 min. */
  readonly analyticsHourGraceMs: number;
  /** TOOLGATE_ANALYTICS_IDLE_MS: idle time after which windows close by the clock, ms; 60 s. */
  readonly analyticsIdleMs: number;
  /** TOOLGATE_ANALYTICS_TICK_MS: how often the clock is checked, ms; default 1 s. */
  readonly analyticsTickMs: number;
  /** The tenant whose operators see every tenant in the analytics API; '' for none. */
  readonly analyticsOperatorTenant: string;
  /** TOOLGATE_LOG_LEVEL: pino level; default `info`. */
  readonly logLevel: string;
  /** TOOLGATE_INSTANCE_ID: unique per running instance; default `<hostname>-<pid>`. */
  readonly instanceId: string;
  /** TOOLGATE_SHUTDOWN_TIMEOUT_MS: hard stop deadline in ms; default 10 000. */
  readonly shutdownTimeoutMs: number;
  /** TOOLGATE_SESSION_TIMEOUT_MS: consumer group session timeout, ms; default 30 000. */
  readonly sessionTimeoutMs: number;
}
