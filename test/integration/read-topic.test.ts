import {
  createBus,
  createCodec,
  followTopic,
  readTopicWindow,
  SILENT_LOGGER,
  topicsFor,
  withNamespace,
  type Bus,
  type ReadRecord,
} from '@toolgate/platform';
import type { Kafka } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/deadline.js';
import { dropNamespace, testNamespace } from '../support/namespace.js';
import { kafkaClient, stackAddresses, identity } from '../support/stack.js';

const ns = testNamespace('read-topic');
const codec = createCodec({
  registryUrl: stackAddresses().schemaRegistryUrl,
  logger: SILENT_LOGGER,
});
let bus: Bus;
let kafka: Kafka;
const audit = ns.topic('toolgate.audit');

beforeAll(async () => {
  kafka = kafkaClient(ns.id);
  bus = createBus({
    security: identity(),
    brokers: stackAddresses().kafkaBrokers,
    clientId: ns.id,
    logger: SILENT_LOGGER,
  });
  await bus.ensureTopics(withNamespace(ns.id, topicsFor([])).filter((t) => t.name === audit));
});

afterAll(async () => {
  await bus.close();
  await dropNamespace(ns, { kafka });
});

/** Writes `values` to the audit topic, stamped `at` (ms since the epoch; default now). */
async function send(values: readonly unknown[], at = Date.now()): Promise<void> {
  // Through kafkajs directly, whose records may carry their own timestamp.
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({
    topic: audit,
    messages: values.map((v, i) => ({
      key: `k${i}`,
      value: Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)),
      timestamp: String(at),
    })),
  });
  await producer.disconnect();
}

describe('readTopicWindow', () => {
  it('reads an empty topic as nothing, without waiting for a record', async () => {
    const got: ReadRecord[] = [];
    const n = await readTopicWindow(bus, codec, { topic: audit, onRecord: (r) => got.push(r) });
    expect(n).toBe(0);
    expect(got).toEqual([]);
  });

  it('reads every record written before the call, decoded, and only records after `sinceMs`', async () => {
    // Stamped a minute apart, so `sinceMs` between them splits them whatever the clock does.
    const now = Date.now();
    await send([{ n: 1 }, { n: 2 }, 'not json {'], now - 60_000);
    await send([{ n: 3 }], now);
    const mark = now - 30_000;

    const all: ReadRecord[] = [];
    await readTopicWindow(bus, codec, { topic: audit, onRecord: (r) => all.push(r) });
    expect(all.map((r) => r.value).filter((v) => v !== undefined)).toEqual(
      expect.arrayContaining([{ n: 1 }, { n: 2 }, { n: 3 }]),
    );
    expect(all).toHaveLength(4);
    const bad = all.find((r) => r.value === undefined);
    expect(bad?.decodeError).toMatch(/^undecodable/);

    const recent: ReadRecord[] = [];
    await readTopicWindow(bus, codec, {
      topic: audit,
      sinceMs: mark,
      onRecord: (r) => recent.push(r),
    });
    expect(recent.map((r) => r.value)).toEqual([{ n: 3 }]);
  });
});

describe('followTopic', () => {
  it('delivers records written after it started, not the ones before', async () => {
    await send([{ before: true }]);
    const got: ReadRecord[] = [];
    const following = await followTopic(bus, codec, { topic: audit, onRecord: (r) => got.push(r) });
    try {
      await send([{ after: 1 }, { after: 2 }]);
      await eventually(30_000, 'two followed records', () => Promise.resolve(got.length >= 2), 20);
      expect(got.map((r) => r.value)).toEqual(expect.arrayContaining([{ after: 1 }, { after: 2 }]));
      expect(got.some((r) => (r.value as { before?: boolean }).before)).toBe(false);
    } finally {
      await following.stop();
    }
  });
});
