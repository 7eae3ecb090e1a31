/**
 * Starts gate stages in-process against the real stack, in a namespace of their own, and gives a
 * test what an agent, an approver and a tool see: a producer for proposals and approvals, and a
 * read-committed tap on observations, audit events, confirmation requests and command topics.
 */
import { randomBytes } from 'node:crypto';
import type { Consumer, Kafka, Producer } from 'kafkajs';
import {
  createCodec,
  superviseStages,
  type Codec,
  type StageModule,
  type SupervisedStages,
} from '@toolgate/platform';
import { mintSession, SESSION_HEADER, type Deployment, type Principal } from '@toolgate/shared';
import deployment, { EXAMPLE_SESSION_SECRET } from '../../examples/billing/toolgate.config.js';
import { SILENT_LOGGER } from '@toolgate/platform';
import { eventually } from './deadline.js';
import { dropNamespace, testNamespace, type TestNamespace } from './namespace.js';
import { dropSubjects } from './registry-cleanup.js';
import { kafkaClient, redisClient, stackAddresses } from './stack.js';

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
  /** A session token for a principal, signed with the example's secret. */
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
  readonly deployment?: Deployment;
  /** Short topic names to tap; default observations, audit, validated, authorized, cleared, confirmations and every command topic. */
  readonly tap?: readonly string[];
  /** Collects the gate's log lines here instead of writing them to standard output. */
  readonly logLines?: string[];
}

const TOOL_TOPICS = deployment.tools.map((t) => `commands.${t.name}`);
const DEFAULT_TAP = [
  'observations',
  'audit',
  'validated',
  'authorized',
  'cleared',
  'confirmations',
  'quarantine',
  ...TOOL_TOPICS,
];

/** The environment of a gate in namespace `ns`. */
export function gateEnv(
  ns: TestNamespace,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const stack = stackAddresses();
  return {
    TOOLGATE_KAFKA_BROKERS: stack.kafkaBrokers.join(','),
    TOOLGATE_SCHEMA_REGISTRY_URL: stack.schemaRegistryUrl,
    TOOLGATE_REDIS_URL: stack.redisUrl,
    TOOLGATE_TOPIC_PREFIX: `${ns.id}.`,
    TOOLGATE_GROUP_PREFIX: `${ns.id}.`,
    TOOLGATE_REDIS_PREFIX: ns.redisPrefix,
    TOOLGATE_INTEGRITY_KEY: randomBytes(32).toString('hex'),
    TOOLGATE_HTTP_PORT: '0',
    TOOLGATE_LOG_LEVEL: 'warn',
    TOOLGATE_INSTANCE_ID: `${ns.id}-i1`,
    ...extra,
  };
}

/** Starts `modules` in a fresh namespace with a tap on the topics a test watches. */
export async function startGateHarness(options: HarnessOptions): Promise<GateHarness> {
  const ns = testNamespace(options.label);
  const topic = (short: string) => `${ns.id}.toolgate.${short}`;
  const gate = await superviseStages({
    env: gateEnv(ns, options.env),
    deployment: options.deployment ?? deployment,
    modules: options.modules,
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
  const consumer = await startTap(
    kafka,
    codec,
    ns,
    (options.tap ?? DEFAULT_TAP).map(topic),
    tapped,
  );
  await eventually(
    60_000,
    'the gate stages to join their groups',
    () => Promise.resolve(gate.ready()),
    20,
  );
  const seen = (short: string) => tapped.get(topic(short)) ?? [];
  return {
    ns,
    gate,
    topic,
    session: (who, ttlSeconds = 3600) =>
      mintSession(who, EXAMPLE_SESSION_SECRET, { now: new Date(), ttlSeconds }),
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

/** Builds the headers of a proposal sent by `token`'s holder. */
export function sessionHeaders(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { [SESSION_HEADER]: token };
}

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
      const list = into.get(topic) ?? [];
      list.push({
        topic,
        key: message.key?.toString() ?? null,
        value,
        raw: message.value,
        headers,
      });
      into.set(topic, list);
    },
  });
  return consumer;
}

export type { Producer };
