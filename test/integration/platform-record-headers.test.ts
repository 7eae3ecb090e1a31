/**
 * Record headers as they come off a real broker: Kafka lets a header have no value at all (null,
 * which Java clients write for `new RecordHeader(name, null)`), and a stage must read past such a
 * record like any other, not stall on it.
 */
import { createRequire } from 'node:module';
import {
  createBus,
  createCodec,
  startStageLoop,
  type Bus,
  type Incoming,
  type StageLoop,
} from '@toolgate/platform';
import type { Kafka } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, signal, within } from '../support/deadline.js';
import { dropNamespace, testNamespace, testTopicSpec } from '../support/namespace.js';
import { recordingLogger } from '../support/recording-logger.js';
import { kafkaClient, stackAddresses, identity } from '../support/stack.js';

const ns = testNamespace('record-headers');
const { kafkaBrokers, schemaRegistryUrl } = stackAddresses();

/** kafkajs's encoder: it cannot write a null header value, so the test teaches it to. */
interface EncoderClass {
  prototype: { writeVarIntBytes: (this: EncoderLike, value: unknown) => EncoderLike };
}
interface EncoderLike {
  writeVarInt(value: number): EncoderLike;
}

// A header value that kafkajs sizes as 0 bytes (as it sizes null: one varint either way) and that
// the patched encoder writes as length -1, Kafka's null.
const NULL_VALUE = Buffer.alloc(0);

let kafka: Kafka;
let bus: Bus;
const loops: StageLoop[] = [];
let restore: (() => void) | undefined;

beforeAll(() => {
  kafka = kafkaClient(ns.id);
  bus = createBus({
    security: identity(),
    brokers: kafkaBrokers,
    clientId: ns.id,
    logger: recordingLogger(),
  });
  const Encoder = createRequire(import.meta.url)('kafkajs/src/protocol/encoder') as EncoderClass;
  const original = Encoder.prototype.writeVarIntBytes;
  Encoder.prototype.writeVarIntBytes = function (value) {
    return value === NULL_VALUE ? this.writeVarInt(-1) : original.call(this, value);
  };
  restore = () => (Encoder.prototype.writeVarIntBytes = original);
});

afterAll(async () => {
  restore?.();
  await Promise.all(loops.map((l) => l.stop()));
  await bus.close();
  await dropNamespace(ns, { kafka });
});

describe('startStageLoop: a header with no value', () => {
  it('hands the record over without that header, and goes on to the next record', async () => {
    const input = ns.topic('null-header-in');
    await bus.ensureTopics([testTopicSpec(input)]);
    const received: Incoming[] = [];
    const both = signal();
    const crashes: Error[] = [];
    const loop = await startStageLoop({
      stage: 'test',
      groupId: ns.group('null-header'),
      instanceId: 'i1',
      bus,
      codec: createCodec({ registryUrl: schemaRegistryUrl, logger: recordingLogger() }),
      logger: recordingLogger(),
      onCrash: (error) => crashes.push(error),
      topics: [{ name: input, plainJsonAllowed: true }],
      handle: (msg) => {
        received.push(msg);
        if (received.length === 2) both.resolve();
        return Promise.resolve([]);
      },
    });
    loops.push(loop);
    await eventually(30_000, 'the loop to join its group', () => Promise.resolve(loop.ready()));

    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic: input,
      messages: [
        { key: 'k', value: '{"seq":1}', headers: { 'toolgate-session': NULL_VALUE, kept: 'yes' } },
        { key: 'k', value: '{"seq":2}' },
      ],
    });
    await producer.disconnect();

    await within(20_000, 'both records to be handled', both.promise);
    expect(received.map((m) => m.value)).toEqual([{ seq: 1 }, { seq: 2 }]);
    expect(received[0]?.headers).toEqual({ kept: 'yes' });
    expect(crashes).toEqual([]);
  });
});
