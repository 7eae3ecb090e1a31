/**
 * Throughput of the stage loop on the real stack: a pass-through stage (decode, copy, encode,
 * one transaction per chunk) at several chunk sizes, and what a transaction costs per chunk.
 * Run with `npm run bench -w @toolgate/platform` while the stack is up (TOOLGATE_KAFKA_BROKERS and
 * TOOLGATE_SCHEMA_REGISTRY_URL override the local addresses). Prints figures; asserts nothing.
 */
import { randomBytes } from 'node:crypto';
import kafkajs from 'kafkajs';
import {
  createBus,
  createCodec,
  namespacedTopicName,
  SILENT_LOGGER,
  startStageLoop,
  type TopicSpec,
} from '../src/index.js';

const brokers = (process.env['TOOLGATE_KAFKA_BROKERS'] ?? '127.0.0.1:9092').split(',');
const registryUrl =
  process.env['TOOLGATE_SCHEMA_REGISTRY_URL'] ?? 'http://127.0.0.1:8081/apis/ccompat/v7';
const namespace = `bench-loop-${Date.now().toString(36)}-${randomBytes(2).toString('hex')}`;
const PARTITIONS = 3;
const RUNS: readonly { readonly chunk: number; readonly messages: number }[] = [
  { chunk: 1, messages: 600 },
  { chunk: 10, messages: 3_000 },
  { chunk: 100, messages: 20_000 },
  { chunk: 500, messages: 20_000 },
];

// About the size of a StageEnvelope: ids, a context, a few arguments (≈ 600 bytes of JSON).
const schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['proposalId', 'runId', 'seq'],
  properties: {
    proposalId: { type: 'string' },
    runId: { type: 'string' },
    seq: { type: 'integer' },
    context: { type: 'object' },
    args: { type: 'object' },
  },
};

function envelope(seq: number) {
  return {
    proposalId: `p-${seq.toString(16).padStart(8, '0')}`,
    runId: `run-${seq % 97}`,
    seq,
    context: {
      subject: 'user-42',
      tenant: 'acme',
      roles: ['billing.viewer', 'billing.approver'],
      requestId: `req-${seq}`,
      callId: `call_${seq}`,
    },
    args: {
      invoice_id: `inv-${seq}`,
      amount: { currency: 'EUR', cents: 12_345 + seq },
      note: 'Pay the supplier for the October delivery; reference on the attached purchase order.',
      tags: ['q4', 'supplier', 'priority'],
    },
  };
}

const topicSpec = (name: string): TopicSpec => ({
  name: namespacedTopicName(namespace, name),
  partitions: PARTITIONS,
  retentionMs: 3_600_000,
  segmentMs: 3_600_000,
  cleanupPolicy: 'delete',
  role: 'pipeline',
  key: 'runId',
  timestampType: 'CreateTime',
});

const bus = createBus({ brokers, clientId: namespace, logger: SILENT_LOGGER });
const codec = createCodec({ registryUrl, logger: SILENT_LOGGER });

async function fill(topic: string, count: number): Promise<void> {
  const producer = bus.producer();
  await producer.connect();
  for (let start = 0; start < count; start += 1_000) {
    const records = Array.from({ length: Math.min(1_000, count - start) }, (_, i) => {
      const value = envelope(start + i);
      return { topic, key: value.runId, value: Buffer.from(JSON.stringify(value)) };
    });
    await producer.send(records);
  }
  await producer.disconnect();
}

/** Runs one pass-through loop over `messages` inputs in chunks of `chunk`; returns its figures. */
async function run(chunk: number, messages: number) {
  const input = topicSpec(`in-${chunk}`);
  const output = topicSpec(`out-${chunk}`);
  await bus.ensureTopics([input, output]);
  await codec.register(`${output.name}-value`, schema);
  await fill(input.name, messages);

  let handled = 0;
  let handleSeconds = 0;
  let batchSeconds = 0;
  let batches = 0;
  let finished: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const started = performance.now();
  const loop = await startStageLoop({
    stage: 'bench',
    groupId: `${namespace}.bench-${chunk}`,
    instanceId: 'bench',
    topics: [{ name: input.name, plainJsonAllowed: true }],
    bus,
    codec,
    logger: SILENT_LOGGER,
    maxBatchMessages: chunk,
    handle: (msg) => Promise.resolve([{ topic: output.name, key: msg.key, value: msg.value }]),
    metrics: {
      handled: (s) => (handleSeconds += s),
      batch: (s, size) => {
        batchSeconds += s;
        batches += 1;
        handled += size;
        if (handled >= messages) finished();
      },
    },
  });
  await done;
  const elapsed = (performance.now() - started) / 1000;
  await loop.stop();
  return {
    chunk,
    messages,
    perSecond: Math.round(messages / elapsed),
    meanChunk: Math.round(messages / batches),
    handleMsPerMessage: (handleSeconds * 1000) / messages,
    transactionMsPerChunk: ((batchSeconds - handleSeconds) * 1000) / batches,
  };
}

/** Microseconds per encode of one envelope, with the read-back check the codec does. */
async function encodeCost(): Promise<number> {
  const subject = `${topicSpec('encode').name}-value`;
  await codec.register(subject, schema);
  const value = envelope(1);
  for (let i = 0; i < 2_000; i++) await codec.encode(subject, value);
  const start = performance.now();
  const n = 20_000;
  for (let i = 0; i < n; i++) await codec.encode(subject, value);
  return ((performance.now() - start) * 1000) / n;
}

async function cleanUp(): Promise<void> {
  // Like the tests, the bench may use kafkajs directly: only production code goes through the bus.
  const admin = new kafkajs.Kafka({ brokers, logLevel: kafkajs.logLevel.NOTHING }).admin();
  await admin.connect();
  const topics = (await admin.listTopics()).filter((t) => t.startsWith(`${namespace}.`));
  if (topics.length > 0) await admin.deleteTopics({ topics });
  await admin.disconnect();
  const subjects = (await (await fetch(`${registryUrl}/subjects`)).json()) as string[];
  for (const s of subjects.filter((x) => x.startsWith(namespace))) {
    await fetch(`${registryUrl}/subjects/${encodeURIComponent(s)}`, { method: 'DELETE' });
    await fetch(`${registryUrl}/subjects/${encodeURIComponent(s)}?permanent=true`, {
      method: 'DELETE',
    });
  }
}

try {
  const rows = [];
  for (const { chunk, messages } of RUNS) rows.push(await run(chunk, messages));
  console.table(
    rows.map((r) => ({
      'max chunk': r.chunk,
      messages: r.messages,
      'msg/s': r.perSecond,
      'mean chunk': r.meanChunk,
      'handle ms/msg': r.handleMsPerMessage.toFixed(3),
      'tx ms/chunk': r.transactionMsPerChunk.toFixed(2),
    })),
  );
  console.log(
    `codec.encode (validate + read-back + frame): ${(await encodeCost()).toFixed(1)} µs/message`,
  );
} finally {
  await cleanUp();
  await bus.close();
}
