/**
 * What a tool-worker test needs around the worker: its environment in a namespace, a producer
 * that writes commands as the execute stage does (registry wire format, keyed by idempotency key),
 * and a read-committed tap on the results topic.
 */
import { createCodec, SILENT_LOGGER, type Codec } from '@toolgate/platform';
import { MESSAGE_SCHEMAS, type Command, type ToolResult } from '@toolgate/shared';
import type { Consumer, Kafka, Producer } from 'kafkajs';
import { eventually } from './deadline.js';
import type { TestNamespace } from './namespace.js';
import { stackAddresses } from './stack.js';

/** One result as read back: the decoded value, its key, and whether it came in the wire format. */
export interface SeenResult {
  readonly key: string | null;
  readonly value: ToolResult;
  readonly wire: boolean;
}

/** The environment of a worker in namespace `ns`. */
export function workerEnv(
  ns: TestNamespace,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const { kafkaBrokers, schemaRegistryUrl, redisUrl } = stackAddresses();
  return {
    TOOLGATE_KAFKA_BROKERS: kafkaBrokers.join(','),
    TOOLGATE_SCHEMA_REGISTRY_URL: schemaRegistryUrl,
    TOOLGATE_REDIS_URL: redisUrl,
    TOOLGATE_TOPIC_PREFIX: `${ns.id}.`,
    TOOLGATE_GROUP_PREFIX: `${ns.id}.`,
    TOOLGATE_REDIS_PREFIX: ns.redisPrefix,
    TOOLGATE_INSTANCE_ID: `${ns.id}-w1`,
    TOOLGATE_LOG_LEVEL: 'warn',
    ...extra,
  };
}

/** Commands in, results out, for the tools of one namespace. */
export interface CommandHarness {
  /** The registry codec (compatibility NONE, as the gate's). */
  readonly codec: Codec;
  /** Every result read so far, in arrival order. */
  readonly results: readonly SeenResult[];
  /** Produces commands in the wire format, in order, all to partition 0 of their topics. */
  produce(...commands: readonly Command[]): Promise<void>;
  /** Produces raw bytes to a tool's command topic (partition 0); resolves with their offset. */
  produceRaw(tool: string, value: Buffer): Promise<number>;
  /** The results of `commandId` once there are `n` of them. */
  resultsOf(commandId: string, n?: number): Promise<ToolResult[]>;
  close(): Promise<void>;
}

/**
 * Registers the commands schema for `tools` and starts the results tap. The results topic must
 * exist: start a worker first (it creates its topics).
 */
export async function startCommandHarness(
  kafka: Kafka,
  ns: TestNamespace,
  tools: readonly string[],
): Promise<CommandHarness> {
  const topic = (short: string) => `${ns.id}.toolgate.${short}`;
  const codec = createCodec({
    registryUrl: stackAddresses().schemaRegistryUrl,
    logger: SILENT_LOGGER,
    compatibility: 'NONE',
  });
  for (const tool of tools) {
    await codec.register(`${topic(`commands.${tool}`)}-value`, MESSAGE_SCHEMAS.commands);
  }
  const producer: Producer = kafka.producer();
  await producer.connect();
  const results: SeenResult[] = [];
  const tap = await startTap(kafka, codec, ns.group('results-tap'), topic('results'), results);
  const send = async (tool: string, key: string, value: Buffer) => {
    const [sent] = await producer.send({
      topic: topic(`commands.${tool}`),
      messages: [{ key, value, partition: 0 }],
    });
    return Number(sent?.baseOffset ?? -1);
  };
  return {
    codec,
    results,
    async produce(...commands) {
      for (const c of commands) {
        const value = await codec.encode(`${topic(`commands.${c.tool}`)}-value`, c);
        await send(c.tool, c.idempotencyKey, value);
      }
    },
    produceRaw: (tool, value) => send(tool, 'raw', value),
    async resultsOf(commandId, n = 1) {
      const found = () => results.filter((r) => r.value.commandId === commandId);
      await eventually(30_000, `${n} result(s) of ${commandId}`, () =>
        Promise.resolve(found().length >= n),
      );
      return found().map((r) => r.value);
    },
    async close() {
      await tap.disconnect();
      await producer.disconnect();
    },
  };
}

async function startTap(
  kafka: Kafka,
  codec: Codec,
  groupId: string,
  resultsTopic: string,
  into: SeenResult[],
): Promise<Consumer> {
  const tap = kafka.consumer({ groupId, readUncommitted: false });
  await tap.connect();
  await tap.subscribe({ topic: resultsTopic, fromBeginning: true });
  await tap.run({
    eachMessage: async ({ message }) => {
      const decoded = await codec.decode(message.value, { plainJsonAllowed: false });
      if (!('value' in decoded)) throw new Error(`an undecodable result: ${decoded.error}`);
      const key = message.key?.toString() ?? null;
      into.push({ key, value: decoded.value as ToolResult, wire: message.value?.[0] === 0 });
    },
  });
  return tap;
}

/** A factory of commands with ids unique within one test file. */
export function commandFactory(): (tool: string, overrides?: Partial<Command>) => Command {
  let made = 0;
  return (tool, overrides = {}) => {
    made += 1;
    const n = made;
    return {
      commandId: `cmd_${n}`,
      idempotencyKey: `key-${n}`,
      tool,
      toolVersion: '1',
      args: { n },
      context: {
        subject: 'alice',
        tenant: 'acme',
        requestId: `req-${n}`,
        runId: `run-${n}`,
        proposalId: `p-${n}`,
        callId: `call-${n}`,
      },
      objects: [],
      deadline: new Date(Date.now() + 30_000).toISOString(),
      issuedAt: new Date().toISOString(),
      ...overrides,
    };
  };
}
