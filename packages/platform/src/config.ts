/**
 * The process configuration: `TOOLGATE_*` environment variables, validated with ajv (defaults,
 * integer coercion, every problem at once), returned typed and frozen. The environment is an
 * argument: only `main.ts` passes `process.env`. `docs/configuration.md` is rendered from the
 * table below ({@link renderConfigurationDoc}) and a test keeps the two in sync.
 */
import { hostname } from 'node:os';
import { Ajv, type ErrorObject } from 'ajv';
import { ConfigError, observationKeyProblems } from '@toolgate/shared';
import {
  KAFKA_SECURITY_VARIABLES,
  kafkaIdentityFromEnv,
  resolveKafkaSecurity,
  type KafkaIdentitySettings,
} from './kafka/kafka-security.js';
import {
  ENV_PREFIX,
  type ConfigOf,
  type VariableSpec,
  type VariableTable,
} from './config-variables.js';

export {
  ENV_PREFIX,
  type ConfigOf,
  type VariableKind,
  type VariableSpec,
  type VariableTable,
} from './config-variables.js';

const PORT = { minimum: 0, maximum: 65_535 } as const;
const NAME_PART = { pattern: '^[A-Za-z0-9._-]*$', maxLength: 100 } as const;

/** What an execute process consumes (TOOLGATE_EXECUTE_INPUTS). */
export const EXECUTE_INPUTS = ['both', 'cleared', 'results'] as const;

/** One of {@link EXECUTE_INPUTS}. */
export type ExecuteInputs = (typeof EXECUTE_INPUTS)[number];

/**
 * The stage loop's fetch defaults: a busy stage's fetch waits up to `maxWaitMs` for `minBytes` of
 * records; it is busy while its last fetch brought `busyMinBytes`; an idle stage's fetch long-polls
 * up to `idleMaxWaitMs`. The first three are TOOLGATE_FETCH_*; the idle wait adds no latency.
 */
export const FETCH_DEFAULTS = {
  maxWaitMs: 25,
  minBytes: 32 * 1024,
  busyMinBytes: 2 * 1024,
  idleMaxWaitMs: 500,
} as const;

/**
 * The part of TOOLGATE_SHUTDOWN_TIMEOUT_MS the stage loops of a process share, one after another;
 * the rest is left for what closes after them (HTTP servers, Redis, the admin client).
 */
export const STOP_SHARE = 0.8;

/** The shared variables of every Toolgate process. */
export const CONFIG_VARIABLES = {
  KAFKA_BROKERS: {
    key: 'kafkaBrokers',
    kind: 'list',
    default: ['127.0.0.1:9092'],
    schema: { hostPort: true },
    description: 'Kafka bootstrap brokers, comma-separated `host:port` (port 1–65535).',
  },
  ...KAFKA_SECURITY_VARIABLES,
  SCHEMA_REGISTRY_URL: {
    key: 'schemaRegistryUrl',
    kind: 'string',
    default: 'http://127.0.0.1:8081/apis/ccompat/v7',
    schema: { pattern: '^https?://\\S+$' },
    description: "Confluent-compatible schema registry API (Apicurio's `/apis/ccompat/v7`).",
  },
  REDIS_URL: {
    key: 'redisUrl',
    kind: 'string',
    default: 'redis://127.0.0.1:6379',
    schema: { pattern: '^rediss?://\\S+$' },
    description:
      'Redis for idempotency records, confirmations and counters: `redis[s]://[user:pass@]host:port[/db]`.',
  },
  TOPIC_PREFIX: {
    key: 'topicPrefix',
    kind: 'string',
    default: '',
    schema: NAME_PART,
    description:
      'Prepended to every topic name (`toolgate.proposals` → `<prefix>toolgate.proposals`).',
  },
  REDIS_PREFIX: {
    key: 'redisPrefix',
    kind: 'string',
    default: 'toolgate:',
    schema: { pattern: '^[^{}\\s]*$', maxLength: 100 },
    description: 'Prepended to every Redis key. No braces: they would capture the tenant hash tag.',
  },
  GROUP_PREFIX: {
    key: 'groupPrefix',
    kind: 'string',
    default: '',
    schema: NAME_PART,
    description: 'Prepended to every consumer group (`toolgate.<stage>`) and transactional id.',
  },
  INTEGRITY_KEY: {
    key: 'integrityKey',
    kind: 'string',
    required: true,
    secret: true,
    schema: { minBytes: 32 },
    description:
      'HMAC-SHA256 key of the integrity tag on internal topics; at least 32 bytes (UTF-8). The same in every stage.',
  },
  INTEGRITY_KEYS_ACCEPTED: {
    key: 'integrityKeysAccepted',
    kind: 'list',
    default: [],
    secret: true,
    schema: { minBytes: 32 },
    description:
      'Further integrity keys whose tags are accepted but never made: for a rotation (docs/security.md). Comma-separated.',
  },
  ENVELOPE_MAX_AGE_MS: {
    key: 'envelopeMaxAgeMs',
    kind: 'integer',
    default: 3_600_000,
    schema: { minimum: 60_000, maximum: 43_200_000 },
    description:
      'The oldest internal envelope a stage accepts, in ms from when it was issued (1 min to 12 h): an older one is refused as `authentication/stale_envelope`, audited and not forwarded, so a recorded envelope published again later issues nothing. Keep it well inside the idempotency retention.',
  },
  OBSERVATION_KEY: {
    key: 'observationKey',
    kind: 'string',
    required: true,
    secret: true,
    schema: { minLength: 1 },
    description:
      "The stages' Ed25519 private key (base64 of PKCS#8 DER) that signs every observation, so agent clients can tell the gate's observations from forged ones. The same in every stage; agents get its public key (TOOLGATE_OBSERVATION_PUBLIC_KEYS).",
  },
  COMMAND_KEY: {
    key: 'commandKey',
    kind: 'string',
    secret: true,
    schema: { minBytes: 32 },
    description:
      "Execute's key, at least 32 bytes (UTF-8): each tool's key is derived from it, and proves commands to that tool's workers and their results to execute. Required where execute runs; no other stage needs it.",
  },
  COMMAND_KEYS_ACCEPTED: {
    key: 'commandKeysAccepted',
    kind: 'list',
    default: [],
    secret: true,
    schema: { minBytes: 32 },
    description:
      "Further command keys whose tools' keys still verify results (never used for new commands): for a rotation. Comma-separated.",
  },
  CONFIG: {
    key: 'deploymentFile',
    kind: 'string',
    schema: { minLength: 1 },
    description:
      'The deployment file (`toolgate.config.ts`): tools, policies, session keys, object store.',
  },
  HTTP_HOST: {
    key: 'httpHost',
    kind: 'string',
    default: '127.0.0.1',
    schema: { pattern: '^[A-Za-z0-9.:_-]+$' },
    description:
      'Address the HTTP server binds to. The default keeps it off the network; use 0.0.0.0 in a container so probes and Prometheus can reach it.',
  },
  HTTP_PORT: {
    key: 'httpPort',
    kind: 'integer',
    schema: PORT,
    description:
      'Port of /healthz, /readyz and /metrics; 0 picks a free one. Unset: the stage default (validate 9101, authorize 9102, confirm 9103, execute 9104).',
  },
  CONFIRMATION_HTTP_PORT: {
    key: 'confirmationHttpPort',
    kind: 'integer',
    schema: PORT,
    description:
      "Port of the confirm stage's approval API (/pending, /confirmations/:id/approve|reject); 0 picks a free one. Unset: served on the confirm stage's HTTP_PORT.",
  },
  EXECUTE_INPUTS: {
    key: 'executeInputs',
    kind: 'string',
    default: 'both',
    schema: { enum: EXECUTE_INPUTS },
    description:
      "What the execute stage consumes: `both`, or `cleared` (issue commands) or `results` (settle results and sweep deadlines), to run execute's two hops as separate processes, as a loaded deployment should (docs/decisions/0005). All share the consumer group `toolgate.execute`, whose members each get only partitions of their own topics; at least one process must settle results (`both` or `results`), and a `cleared` process logs an error while none does.",
  },
  FETCH_MAX_WAIT_MS: {
    key: 'fetchMaxWaitMs',
    kind: 'integer',
    default: FETCH_DEFAULTS.maxWaitMs,
    schema: { minimum: 1, maximum: 10_000 },
    description:
      'How long a busy stage\'s fetch waits for `FETCH_MIN_BYTES` of records, in ms: under steady traffic each hop may wait this long. Lower answers sooner, and can cost CPU in the process and the broker (README, "Tuning: the fetch settings"). At least 1: a stage whose partitions are all paused (a fault being retried) sleeps this long between fetches, and with 0 it would spin.',
  },
  FETCH_MIN_BYTES: {
    key: 'fetchMinBytes',
    kind: 'integer',
    default: FETCH_DEFAULTS.minBytes,
    schema: { minimum: 1, maximum: 1_048_576 },
    description:
      "Bytes of records a busy stage's fetch waits for, at most `FETCH_MAX_WAIT_MS`: larger chunks share one transaction. 1 takes whatever is there.",
  },
  FETCH_BUSY_MIN_BYTES: {
    key: 'fetchBusyMinBytes',
    kind: 'integer',
    default: FETCH_DEFAULTS.busyMinBytes,
    schema: { minimum: 1, maximum: 1_048_576 },
    description: `A stage is busy while its last fetch brought at least this many bytes of records; otherwise its next fetch returns with the first record (a long poll of up to ${FETCH_DEFAULTS.idleMaxWaitMs} ms), so light traffic is not held back.`,
  },
  LOG_LEVEL: {
    key: 'logLevel',
    kind: 'string',
    default: 'info',
    schema: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
    description: 'Least level logged: fatal, error, warn, info, debug, trace or silent.',
  },
  INSTANCE_ID: {
    key: 'instanceId',
    kind: 'string',
    default: () => `${hostname()}-${process.pid}`,
    defaultText: '`<hostname>-<pid>`',
    schema: { pattern: '^[A-Za-z0-9._-]{1,100}$' },
    description:
      "This process's name in logs and in Kafka transactional ids (`<group>.<instanceId>`). Unique per running instance; keep it stable across restarts of one instance (e.g. the pod name) so Kafka fences a zombie predecessor.",
  },
  SHUTDOWN_TIMEOUT_MS: {
    key: 'shutdownTimeoutMs',
    kind: 'integer',
    default: 10_000,
    schema: { minimum: 100, maximum: 600_000 },
    description: `Hard deadline of a graceful stop, in ms; past it the process exits non-zero. The stage loops of a process share ${STOP_SHARE * 100} % of it, one after another, so a loop whose stop hangs gives up with a warning and the rest still closes in time.`,
  },
} as const satisfies VariableTable;

/**
 * Variables read by the deployment file, not by {@link loadConfig}; listed so they are documented
 * and not reported as unknown.
 */
export const DEPLOYMENT_VARIABLES: Readonly<Record<string, string>> = {
  SESSION_SECRET: 'HS256 secret for session tokens (development); read by the example deployment.',
  SESSION_JWKS_FILE:
    'JWKS file for EdDSA/RS256 session tokens (production); read by the deployment.',
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
  CONFIRMATION_URL:
    "CLI (`pending`, `approve`, `reject`): the confirm stage's approval API; default `http://127.0.0.1:9103`.",
  SESSION_TOKEN:
    'CLI (`pending`, `approve`, `reject`): the session token to act as, when `--as` is not given.',
  STACK_DIR:
    'Local stack: where `stack:up` keeps jars, data, logs and pid files; default `.stack/`.',
  STACK_KAFKA_PORT: 'Local stack: Kafka listener port; default 9092.',
  STACK_KAFKA_CONTROLLER_PORT: 'Local stack: KRaft controller port; default 9093.',
  STACK_REGISTRY_PORT: 'Local stack: Apicurio Registry port; default 8081.',
  STACK_REGISTRY_MANAGEMENT_PORT: "Local stack: the registry's health port; default 9081.",
  STACK_REDIS_PORT:
    'Local stack: port of the Redis it starts (with ACL users, no default user); default 6380.',
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
  /** TOOLGATE_CONFIRMATION_HTTP_PORT: approval API port; unset = the confirm stage's HTTP port. */
  readonly confirmationHttpPort?: number;
  /** TOOLGATE_EXECUTE_INPUTS: what an execute process consumes, one of {@link EXECUTE_INPUTS}. */
  readonly executeInputs: string;
  /** TOOLGATE_FETCH_MAX_WAIT_MS: a busy stage's fetch wait in ms; default 25. */
  readonly fetchMaxWaitMs: number;
  /** TOOLGATE_FETCH_MIN_BYTES: bytes a busy stage's fetch waits for; default 32 KiB. */
  readonly fetchMinBytes: number;
  /** TOOLGATE_FETCH_BUSY_MIN_BYTES: bytes a fetch must bring for the stage to be busy; 2 KiB. */
  readonly fetchBusyMinBytes: number;
  /** TOOLGATE_LOG_LEVEL: pino level; default `info`. */
  readonly logLevel: string;
  /** TOOLGATE_INSTANCE_ID: unique per running instance; default `<hostname>-<pid>`. */
  readonly instanceId: string;
  /** TOOLGATE_SHUTDOWN_TIMEOUT_MS: hard stop deadline in ms; default 10 000. */
  readonly shutdownTimeoutMs: number;
}

/** Default HTTP ports of the stages (TOOLGATE_HTTP_PORT overrides). */
export const DEFAULT_HTTP_PORTS = {
  validate: 9101,
  authorize: 9102,
  confirm: 9103,
  execute: 9104,
} as const;

/** A stage that runs as a service. */
export type ServiceStage = keyof typeof DEFAULT_HTTP_PORTS;

/** The HTTP port of `stage`: TOOLGATE_HTTP_PORT if set, else the stage's default. */
export function httpPortFor(config: Config, stage: ServiceStage): number {
  return config.httpPort ?? DEFAULT_HTTP_PORTS[stage];
}

/** Environment as `process.env` has it. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Reads the shared variables (and those of `extension`, a stage's own) from `env`: unset or empty
 * takes the default, integers are coerced, every problem is collected.
 *
 * @throws ConfigError listing every problem, each naming its variable (never a secret's value).
 * @throws TypeError when `extension` redefines a shared variable or key (a programming error).
 */
export function loadConfig<X extends VariableTable = Record<never, VariableSpec>>(
  env: Env,
  extension?: X,
): Readonly<Config & ConfigOf<X>> {
  return loadVariables(env, merged(extension)) as Readonly<Config & ConfigOf<X>>;
}

/**
 * Reads exactly the variables of `table` from `env`, the way {@link loadConfig} does (defaults,
 * integer coercion, every problem at once, frozen). For processes that are not gate stages and
 * must not need the gate's shared variables, e.g. a tool worker, which has no business holding
 * TOOLGATE_INTEGRITY_KEY: with it, it could forge the gate's internal envelopes.
 *
 * @throws ConfigError listing every problem, each naming its variable (never a secret's value).
 */
export function loadVariables<T extends VariableTable>(env: Env, table: T): Readonly<ConfigOf<T>> {
  const input = Object.fromEntries(
    Object.entries(table).flatMap(([name, spec]) => {
      const value = valueOf(env[ENV_PREFIX + name], spec);
      return value === undefined ? [] : [[ENV_PREFIX + name, value]];
    }),
  );
  const validate = validatorFor(table);
  const problems = validate(input) ? [] : problemsOf(validate.errors ?? []);
  if ('KAFKA_SASL_MECHANISM' in table) {
    problems.push(...kafkaSecurityProblems(input));
  }
  const observationKey = input[`${ENV_PREFIX}OBSERVATION_KEY`];
  if ('OBSERVATION_KEY' in table && typeof observationKey === 'string') {
    problems.push(
      ...observationKeyProblems(observationKey).map((p) => `${ENV_PREFIX}OBSERVATION_KEY: ${p}`),
    );
  }
  if (problems.length > 0) throw new ConfigError('configuration', problems);
  const config = Object.fromEntries(
    Object.entries(table).flatMap(([name, spec]) => {
      const value: unknown = input[ENV_PREFIX + name];
      return value === undefined
        ? []
        : [[spec.key, Array.isArray(value) ? Object.freeze(value) : value]];
    }),
  );
  return Object.freeze(config) as Readonly<ConfigOf<T>>;
}

/**
 * The Kafka identity's problems as a whole (a mechanism without a password, a certificate without
 * its key, a file that cannot be read), checked once each variable is valid on its own.
 */
function kafkaSecurityProblems(input: Readonly<Record<string, unknown>>): readonly string[] {
  const text = Object.fromEntries(
    Object.entries(input).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
  const outcome = resolveKafkaSecurity(kafkaIdentityFromEnv(text));
  return outcome.ok ? [] : outcome.problems;
}

function merged(extension: VariableTable | undefined): VariableTable {
  const base: VariableTable = CONFIG_VARIABLES;
  if (extension === undefined) return base;
  const keys = new Set(Object.values(base).map((spec) => spec.key));
  for (const [name, spec] of Object.entries(extension)) {
    if (name in base || keys.has(spec.key)) {
      throw new TypeError(`configuration extension redefines ${ENV_PREFIX}${name} (${spec.key})`);
    }
  }
  return { ...base, ...extension };
}

/** The text of a variable as a value to validate; unset and empty take the default. */
function valueOf(text: string | undefined, spec: VariableSpec): unknown {
  if (text === undefined || text === '') {
    return typeof spec.default === 'function' ? spec.default() : spec.default;
  }
  // ajv's coercion reads 0x50, 1e4 and ' 8 ' as numbers: only decimal digits are an integer here.
  if (spec.kind === 'integer') return /^-?[0-9]+$/.test(text) ? text : Number.NaN;
  if (spec.kind !== 'list') return text;
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function validatorFor(table: VariableTable) {
  const ajv = new Ajv({ allErrors: true, coerceTypes: true, strict: true });
  ajv.addKeyword({
    keyword: 'minBytes',
    type: 'string',
    schemaType: 'number',
    validate: (min: number, data: string) => Buffer.byteLength(data, 'utf8') >= min,
    error: { message: (cxt) => `must be at least ${String(cxt.schemaValue)} bytes` },
  });
  ajv.addKeyword({
    keyword: 'hostPort',
    type: 'string',
    schemaType: 'boolean',
    validate: (_: boolean, data: string) => isHostPort(data),
    error: { message: 'must be host:port, with a port from 1 to 65535' },
  });
  const properties = Object.fromEntries(
    Object.entries(table).map(([name, spec]) => [ENV_PREFIX + name, schemaOf(spec)]),
  );
  const required = Object.entries(table)
    .filter(([, spec]) => spec.required === true)
    .map(([name]) => ENV_PREFIX + name);
  return ajv.compile({ type: 'object', properties, required });
}

/**
 * True for a broker address as TOOLGATE_KAFKA_BROKERS takes it: `host:port`, no whitespace, colon
 * or comma in the host, and a port from 1 to 65535.
 */
export function isHostPort(text: string): boolean {
  const port = /^[^\s:,]+:([0-9]{1,5})$/.exec(text)?.[1];
  return port !== undefined && Number(port) >= 1 && Number(port) <= 65_535;
}

function schemaOf(spec: VariableSpec): Record<string, unknown> {
  const own = spec.schema ?? {};
  switch (spec.kind) {
    case 'list': {
      // A list whose default is empty may be left empty; any other must name something.
      const empty = Array.isArray(spec.default) && spec.default.length === 0;
      return { type: 'array', minItems: empty ? 0 : 1, items: { type: 'string', ...own } };
    }
    case 'integer':
      return { type: 'integer', ...own };
    case 'string':
      return { type: 'string', ...own };
  }
}

/** One sentence per problem, naming the variable; ajv's messages never quote the value. */
function problemsOf(errors: readonly ErrorObject[]): string[] {
  return errors.map((error) => {
    if (error.keyword === 'required') {
      return `${String(error.params['missingProperty'])} is required`;
    }
    const [name, item] = error.instancePath.split('/').slice(1);
    const where = item === undefined ? `${name}` : `${name} item ${Number(item) + 1}`;
    const allowed =
      error.keyword === 'enum'
        ? ` (${(error.params['allowedValues'] as unknown[]).join(', ')})`
        : '';
    return `${where} ${error.message ?? 'is invalid'}${allowed}`;
  });
}

/**
 * `TOOLGATE_*` variables in `env` that neither the configuration (with `extension`) nor the
 * deployment reads: most likely typos. Names only, for a start-up warning.
 */
export function unknownVariables(env: Env, extension?: VariableTable): string[] {
  const known = new Set(
    [
      ...Object.keys(merged(extension)),
      ...Object.keys(DEPLOYMENT_VARIABLES),
      ...Object.keys(OTHER_VARIABLES),
    ].map((name) => ENV_PREFIX + name),
  );
  return Object.keys(env)
    .filter((name) => name.startsWith(ENV_PREFIX) && !known.has(name))
    .sort();
}

/** The configuration with every secret replaced by `[redacted]`, for the start-up log line. */
export function describeConfig(
  config: Readonly<Record<string, unknown>>,
  extension?: VariableTable,
): Record<string, unknown> {
  const secrets = new Set(
    Object.values(merged(extension))
      .filter((spec) => spec.secret === true)
      .map((spec) => spec.key),
  );
  return Object.fromEntries(
    Object.entries(config).map(([key, value]) => [key, secrets.has(key) ? '[redacted]' : value]),
  );
}

const cell = (text: string) => text.replaceAll('|', '\\|');

function defaultText(spec: VariableSpec): string {
  if (spec.defaultText !== undefined) return spec.defaultText;
  if (spec.required === true) return '**required**';
  if (spec.default === undefined) return '—';
  if (typeof spec.default === 'function') return 'computed';
  const text = Array.isArray(spec.default) ? spec.default.join(',') : String(spec.default);
  return text === '' ? '(empty)' : `\`${text}\``;
}

/** The Markdown page `docs/configuration.md`. */
export function renderConfigurationDoc(): string {
  const rows = Object.entries(CONFIG_VARIABLES as VariableTable).map(
    ([name, spec]) =>
      `| \`${ENV_PREFIX}${name}\` | ${spec.kind} | ${cell(defaultText(spec))} | ${cell(spec.description)} |`,
  );
  const described = (table: Readonly<Record<string, string>>) =>
    Object.entries(table).map(([name, text]) => `| \`${ENV_PREFIX}${name}\` | ${cell(text)} |`);
  return [
    '# Configuration',
    '',
    'Every Toolgate process reads these environment variables once, at start (`loadConfig` in',
    '`packages/platform/src/config.ts`). Unset or empty takes the default; integers are checked as',
    'integers; a list is comma-separated. Bad configuration stops the process with one message that',
    'names every problem. Unknown `TOOLGATE_*` variables are reported as a warning at start.',
    '',
    'Generated from the code: `npx tsx scripts/write-configuration-doc.ts`.',
    '',
    '| variable | kind | default | meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
    '## Read by the deployment file',
    '',
    '| variable | meaning |',
    '|---|---|',
    ...described(DEPLOYMENT_VARIABLES),
    '',
    '## Read by other Toolgate programs',
    '',
    '| variable | meaning |',
    '|---|---|',
    ...described(OTHER_VARIABLES),
    '',
  ].join('\n');
}
