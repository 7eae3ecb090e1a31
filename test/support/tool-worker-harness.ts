/**
 * What a tool-worker test needs around the worker: its environment in a namespace, a producer
 * that writes commands as the execute stage does (registry wire format, keyed by idempotency key),
 * and a read-committed tap on the results topic.
 */
import { createCodec, EXAMPLE_WORKER, SILENT_LOGGER, type Codec } from '@toolgate/platform';
import {
  deriveToolKey,
  MESSAGE_SCHEMAS,
  PROOF_HEADER,
  toolProof,
  type Command,
  type ToolResult,
} from '@toolgate/shared';
import type { Consumer, Kafka, Producer } from 'kafkajs';
import { eventually } from './deadline.js';
import { identityEnv } from './gate-harness.js';
import { provisionedFor, provisionNamespace, type TestNamespace } from './namespace.js';
import { stackAddresses, stackGateKeys } from './stack.js';

/** One result as read back: the decoded value, its key, and whether it came in the wire format. */
export interface SeenResult {
  readonly key: string | null;
  readonly value: ToolResult;
  readonly wire: boolean;
}

/**
 * Provisions `ns` for tool workers of `tools` (their command topics, the results topic, the ACLs
 * of the example's worker principal under each of `names`, a Redis user for the namespace's
 * ledger), as an operator would before starting them.
 */
export async function provisionWorkers(
  ns: TestNamespace,
  tools: readonly string[],
  names: readonly string[],
): Promise<void> {
  await provisionNamespace(ns, {
    tools,
    workers: names.map((name) => ({ ...EXAMPLE_WORKER, name, tools })),
  });
  // The gate registers the schemas its stages write and read; here there is no gate.
  const codec = createCodec({
    registryUrl: stackAddresses().schemaRegistryUrl,
    logger: SILENT_LOGGER,
    compatibility: 'NONE',
  });
  await codec.register(`${ns.id}.toolgate.results-value`, MESSAGE_SCHEMAS.results);
  for (const tool of tools) {
    await codec.register(`${ns.id}.toolgate.commands.${tool}-value`, MESSAGE_SCHEMAS.commands);
  }
}

/** The key of `tool`, as `toolgate keys tool` derives it from the stack's command key. */
export function toolKeyOf(tool: string): string {
  return deriveToolKey(stackGateKeys().commandKey, tool);
}

/**
 * The environment of a worker in namespace `ns` (provisioned first): the example worker's Kafka
 * identity, the keys of every tool of the namespace, and a Redis user confined to its ledger.
 */
export function workerEnv(
  ns: TestNamespace,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const { kafkaBrokers, schemaRegistryUrl } = stackAddresses();
  const made = provisionedFor(ns);
  return {
    TOOLGATE_KAFKA_BROKERS: kafkaBrokers.join(','),
    ...identityEnv(EXAMPLE_WORKER.principal),
    TOOLGATE_SCHEMA_REGISTRY_URL: schemaRegistryUrl,
    TOOLGATE_REDIS_URL: made.workerRedisUrl,
    TOOLGATE_TOPIC_PREFIX: `${ns.id}.`,
    TOOLGATE_GROUP_PREFIX: `${ns.id}.`,
    TOOLGATE_REDIS_PREFIX: ns.redisPrefix,
    TOOLGATE_INSTANCE_ID: `${ns.id}-w1`,
    TOOLGATE_LOG_LEVEL: 'warn',
    TOOLGATE_TOOL_KEYS: made.tools.map((tool) => `${tool}:${toolKeyOf(tool)}`).join(','),
    ...extra,
  };
}

/** Commands in, results out, for the tools of one namespace. */
export interface CommandHarness {
  /** The registry codec (compatibility NONE, as the gate's). */
  readonly codec: Codec;
  /** Every result read so far, in arrival order. */
  readonly results: readonly SeenResult[];
  /**
   * Produces commands in the wire format, in order, all to partition 0 of their topics, each
   * proved with its tool's key as execute proves it.
   */
  produce(...commands: readonly Command[]): Promise<void>;
  /**
   * Produces raw bytes to a tool's command topic (partition 0), with `headers` (none by default:
   * no proof); resolves with their offset.
   */
  produceRaw(tool: string, value: Buffer, headers?: Record<string, string>): Promise<number>;
  /** `command` in the wire format, as execute encodes it, without a proof. */
  encode(command: Command): Promise<Buffer>;
  /** The proof header of `bytes` on `tool`'s command topic, made with `provedAs`'s key (default `tool`'s). */
  proofFor(tool: string, bytes: Buffer, provedAs?: string): Record<string, string>;
  /** The results of `commandId` once there are `n` of them. */
  resultsOf(commandId: string, n?: number): Promise<ToolResult[]>;
  close(): Promise<void>;
}

/**
 * Registers the commands schema for `tools` (as the gate does) and starts the results tap. The
 * topics must exist: provision the namespace first ({@link provisionWorkers}).
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
  const send = async (
    tool: string,
    key: string,
    value: Buffer,
    headers: Record<string, string> = {},
  ) => {
    const [sent] = await producer.send({
      topic: topic(`commands.${tool}`),
      messages: [{ key, value, partition: 0, headers }],
    });
    return Number(sent?.baseOffset ?? -1);
  };
  const encode = (c: Command) => codec.encode(`${topic(`commands.${c.tool}`)}-value`, c);
  return {
    codec,
    results,
    async produce(...commands) {
      for (const c of commands) {
        const value = await encode(c);
        const proof = toolProof(toolKeyOf(c.tool), topic(`commands.${c.tool}`), value);
        await send(c.tool, c.idempotencyKey, value, { [PROOF_HEADER]: proof });
      }
    },
    produceRaw: (tool, value, headers) => send(tool, 'raw', value, headers),
    encode,
    proofFor: (tool, bytes, provedAs = tool) => ({
      [PROOF_HEADER]: toolProof(toolKeyOf(provedAs), topic(`commands.${tool}`), bytes),
    }),
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
