/**
 * Starts gate stages in-process against the real stack, in a namespace of their own, and gives a
 * test what an agent, an approver and a tool see: a producer for proposals and approvals, and a
 * read-committed tap on observations, audit events, confirmation requests and command topics.
 */
import type { Consumer, Kafka, Producer } from 'kafkajs';
import {
  createCodec,
  GATE_STAGE_NAMES,
  stagePrincipal,
  superviseStages,
  type Codec,
  type KafkaSecurity,
  type StageModule,
  type SupervisedStages,
} from '@toolgate/platform';
import {
  mintingIssuer,
  mintSession,
  REPLY_TENANT_HEADER,
  SESSION_HEADER,
  type Deployment,
  type Principal,
} from '@toolgate/shared';
import { SILENT_LOGGER } from '@toolgate/platform';
import { eventually } from './deadline.js';
import { TEST_DEPLOYMENT } from './deployment/index.js';
import {
  dropNamespace,
  provisionNamespace,
  testNamespace,
  type TestNamespace,
} from './namespace.js';
import { dropSubjects } from './registry-cleanup.js';
import {
  identity,
  kafkaClient,
  principalEnv,
  redisClient,
  stackAddresses,
  stackGateKeys,
} from './stack.js';

/** One consumed record, decoded. */
export interface Tapped {
  readonly topic: string;
  readonly key: string | null;
  readonly value: Record<string, unknown>;
  /** The value's bytes as they arrived (null for a tombstone). */
  readonly raw: Buffer | null;
  readonly headers: Readonly<Record<string, string>>;
}

/** A running gate under test. */
export interface GateHarness {
  readonly ns: TestNamespace;
  readonly gate: SupervisedStages;
  /** Full topic name of a short one, in this namespace (`proposals`, `commands.search`, …). */
  topic(short: string): string;
  /** The short names of every tenant's observations topic (`observations.acme`, …). */
  readonly observationTopics: readonly string[];
  /** A session token for a principal, signed with the deployment's secret. */
  session(who: Principal, ttlSeconds?: number): Promise<string>;
  /** Sends a value as plain JSON (or raw bytes) to a topic, with headers. */
  send(
    short: string,
    key: string | null,
    value: unknown,
    headers?: Record<string, string>,
  ): Promise<void>;
  /** Every record tapped so far from `short`'s topic. */
  seen(short: string): readonly Tapped[];
  /** Resolves with the records of `short` matching `match` once there are `count` of them. */
  waitFor(
    short: string,
    what: string,
    match: (r: Tapped) => boolean,
    count?: number,
    ms?: number,
  ): Promise<Tapped[]>;
  /** Stops the stages and the tap, drops the namespace. */
  close(): Promise<void>;
}

/** Options of {@link startGateHarness}. */
export interface HarnessOptions {
  readonly label: string;
  readonly modules: readonly StageModule[];
  /** Extra environment (e.g. TOOLGATE_REDIS_URL of a test's own Redis). */
  readonly env?: Readonly<Record<string, string>>;
  /** Default the tests' own deployment (test/support/deployment); sessions need its HS256 secret. */
  readonly deployment?: Deployment;
  /** Short topic names to tap; default observations, audit, validated, authorized, cleared, confirmations and every command topic. */
  readonly tap?: readonly string[];
  /** Collects the gate's log lines here instead of writing them to standard output. */
  readonly logLines?: string[];
}

/**
 * What a harness taps unless told otherwise: every tenant's observations (`seen('observations')`
 * and `waitFor('observations', …)` read them all), the internal topics and every command topic.
 */
function defaultTap(deployment: Deployment): string[] {
  return [
    'observations',
    'audit',
    'validated',
    'authorized',
    'cleared',
    'confirmations',
    'quarantine',
    ...deployment.tools.map((t) => `commands.${t.name}`),
  ];
}

/** The HS256 secret the harness signs sessions with: the deployment's own. */
function sessionSecret(deployment: Deployment): string {
  const secret = deployment.sessions.secret;
  if (secret === undefined) throw new Error(`deployment ${deployment.name} has no session secret`);
  return secret;
}

/**
 * The environment of a gate in namespace `ns`: the stack's addresses and gate keys, and the
 * validate stage's Kafka identity as the process's own (each stage gets its own principal through
 * {@link stageIdentities}).
 */
export function gateEnv(
  ns: TestNamespace,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const stack = stackAddresses();
  const keys = stackGateKeys();
  return {
    TOOLGATE_KAFKA_BROKERS: stack.kafkaBrokers.join(','),
    ...identityEnv(stagePrincipal('validate')),
    TOOLGATE_SCHEMA_REGISTRY_URL: stack.schemaRegistryUrl,
    TOOLGATE_REDIS_URL: stack.redisUrl,
    TOOLGATE_TOPIC_PREFIX: `${ns.id}.`,
    TOOLGATE_GROUP_PREFIX: `${ns.id}.`,
    TOOLGATE_REDIS_PREFIX: ns.redisPrefix,
    TOOLGATE_INTEGRITY_KEY: keys.integrityKey,
    TOOLGATE_OBSERVATION_KEY: keys.observationKey,
    TOOLGATE_COMMAND_KEY: keys.commandKey,
    TOOLGATE_HTTP_PORT: '0',
    TOOLGATE_APPROVAL_PORT: '0',
    TOOLGATE_LOG_LEVEL: 'warn',
    TOOLGATE_INSTANCE_ID: `${ns.id}-i1`,
    ...extra,
  };
}

/**
 * The `TOOLGATE_KAFKA_*` variables of `principal`: give them to a process that runs as that
 * principal (a stage alone in its process runs as its own, e.g. `toolgate-execute`).
 */
export function identityEnv(principal: string): Record<string, string> {
  const own = principalEnv(principal);
  return {
    TOOLGATE_KAFKA_SASL_MECHANISM: own['TOOLGATE_KAFKA_SASL_MECHANISM'] ?? '',
    TOOLGATE_KAFKA_USERNAME: own['TOOLGATE_KAFKA_USERNAME'] ?? '',
    TOOLGATE_KAFKA_PASSWORD_FILE: own['TOOLGATE_KAFKA_PASSWORD_FILE'] ?? '',
  };
}

/** Each stage's own Kafka identity: the principal the ACL table gives its rights to. */
export function stageIdentities(): Record<(typeof GATE_STAGE_NAMES)[number], KafkaSecurity> {
  return Object.fromEntries(
    GATE_STAGE_NAMES.map((stage) => [stage, identity(stagePrincipal(stage))]),
  ) as Record<(typeof GATE_STAGE_NAMES)[number], KafkaSecurity>;
}

/** Starts `modules` in a fresh namespace with a tap on the topics a test watches. */
export async function startGateHarness(options: HarnessOptions): Promise<GateHarness> {
  const ns = testNamespace(options.label);
  const topic = (short: string) => `${ns.id}.toolgate.${short}`;
  const used = options.deployment ?? TEST_DEPLOYMENT;
  await provisionNamespace(ns, {
    tools: used.tools.map((t) => t.name),
    tenants: used.tenants,
  });
  const gate = await superviseStages({
    env: gateEnv(ns, options.env),
    deployment: used,
    modules: options.modules,
    identities: stageIdentities(),
    ...(options.logLines === undefined
      ? {}
      : { logDestination: { write: (line: string) => void options.logLines?.push(line) } }),
    exit: (code) => {
      if (code !== 0) throw new Error(`the gate under test asked to exit with ${code}`);
    },
    process: { on: () => undefined, off: () => undefined },
  });
  const kafka = kafkaClient(`${ns.id}-harness`);
  const codec = createCodec({
    registryUrl: stackAddresses().schemaRegistryUrl,
    logger: SILENT_LOGGER,
  });
  const producer = kafka.producer();
  await producer.connect();
  const tapped = new Map<string, Tapped[]>();
  const observationTopics = used.tenants.map((t) => `observations.${t}`);
  const shorts = (options.tap ?? defaultTap(used)).flatMap((short) =>
    short === 'observations' ? observationTopics : [short],
  );
  const consumer = await startTap(kafka, codec, ns, shorts.map(topic), tapped);
  await eventually(
    60_000,
    'the gate stages to join their groups',
    () => Promise.resolve(gate.ready()),
    20,
  );
  // `observations` is every tenant's topic at once; `observations.<tenant>` is one tenant's.
  const seen = (short: string) =>
    short === 'observations'
      ? (tapped.get(EVERY_OBSERVATION) ?? []).filter((r) => r.topic.startsWith(topic('')))
      : (tapped.get(topic(short)) ?? []);
  return {
    ns,
    gate,
    topic,
    observationTopics,
    session: (who, ttlSeconds = 3600) =>
      mintSession(who, sessionSecret(used), {
        now: new Date(),
        ttlSeconds,
        issuer: mintingIssuer(used.sessions),
      }),
    async send(short, key, value, headers = {}) {
      const bytes = Buffer.isBuffer(value) ? value : Buffer.from(JSON.stringify(value));
      await producer.send({ topic: topic(short), messages: [{ key, value: bytes, headers }] });
    },
    seen,
    async waitFor(short, what, match, count = 1, ms = 30_000) {
      const found = () => seen(short).filter(match);
      await eventually(
        ms,
        `${count} × ${what} on ${short}`,
        () => Promise.resolve(found().length >= count),
        20,
      );
      return found();
    },
    async close() {
      await consumer.disconnect();
      await producer.disconnect();
      await gate.lifecycle.stop('test finished');
      gate.lifecycle.dispose();
      await dropGateNamespace(ns, kafka);
    },
  };
}

/** Drops what a gate in `ns` left on the stack: its topics, Redis keys and registry subjects. */
export async function dropGateNamespace(ns: TestNamespace, kafka: Kafka): Promise<void> {
  const redis = redisClient();
  try {
    await dropNamespace(ns, { kafka, redis });
    // Every start registers a subject per topic; the registry lists only the first 1000.
    await dropSubjects(stackAddresses().schemaRegistryUrl, `${ns.id}.`);
  } finally {
    redis.disconnect();
  }
}

/**
 * Builds the headers of a proposal sent by `token`'s holder, from an agent of `replyTenant` (as
 * the agent client sends them: a refusal the session cannot place is answered there).
 */
export function sessionHeaders(
  token: string | undefined,
  replyTenant = 'acme',
): Record<string, string> {
  const reply = { [REPLY_TENANT_HEADER]: replyTenant };
  return token === undefined ? reply : { [SESSION_HEADER]: token, ...reply };
}

/** The key under which the tap keeps every tenant's observations, in arrival order. */
const EVERY_OBSERVATION = '\u0000observations';

async function startTap(
  kafka: Kafka,
  codec: Codec,
  ns: TestNamespace,
  topics: readonly string[],
  into: Map<string, Tapped[]>,
): Promise<Consumer> {
  const consumer = kafka.consumer({ groupId: ns.group('tap'), readUncommitted: false });
  await consumer.connect();
  await consumer.subscribe({ topics: [...topics], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ topic, message }) => {
      const decoded = await codec.decode(message.value, { plainJsonAllowed: true });
      const value =
        'value' in decoded
          ? (decoded.value as Record<string, unknown>)
          : { undecodable: decoded.error };
      const headers = Object.fromEntries(
        Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]),
      );
      const record = {
        topic,
        key: message.key?.toString() ?? null,
        value,
        raw: message.value,
        headers,
      };
      const list = into.get(topic) ?? [];
      list.push(record);
      into.set(topic, list);
      // Every tenant's observations also in one list, in the order they arrived.
      if (topic.includes('.toolgate.observations.')) {
        const every = into.get(EVERY_OBSERVATION) ?? [];
        every.push(record);
        into.set(EVERY_OBSERVATION, every);
      }
    },
  });
  return consumer;
}

export type { Producer };
