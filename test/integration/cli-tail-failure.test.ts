/**
 * `toolgate tail` when what it reads stops answering: it says so on one line and exits 3 (README:
 * "infrastructure unavailable: Kafka, the registry, …"), instead of waiting without a word.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCaptured } from '../../packages/cli/src/run-cli.test-support.js';
import { within } from '../support/deadline.js';
import { dropNamespace, testNamespace } from '../support/namespace.js';
import { identityEnv } from '../support/gate-harness.js';
import { kafkaClient, stackAddresses } from '../support/stack.js';

const ns = testNamespace('cli-tail-failure');
const kafka = kafkaClient(`${ns.id}-setup`);
const topic = ns.topic('toolgate.audit');

beforeAll(async () => {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
  // One record in the registry's wire format: magic byte 0, a 4-byte schema id, then JSON.
  const wire = Buffer.concat([Buffer.from([0, 0, 0, 0, 7]), Buffer.from('{"eventId":"e1"}')]);
  const producer = kafka.producer();
  await producer.connect();
  try {
    await producer.send({ topic, messages: [{ key: 'acme', value: wire }] });
  } finally {
    await producer.disconnect();
  }
});

afterAll(async () => {
  await dropNamespace(ns, { kafka });
});

describe('toolgate tail', () => {
  it('exits 3 with one line when the registry cannot be reached to decode a record', async () => {
    const stop = new AbortController();
    const tail = runCaptured(['tail', 'audit', '--since', '1h', '--max', '1'], {
      env: {
        TOOLGATE_KAFKA_BROKERS: stackAddresses().kafkaBrokers.join(','),
        ...identityEnv('admin'),
        TOOLGATE_SCHEMA_REGISTRY_URL: 'http://127.0.0.1:1/apis/ccompat/v7',
        TOOLGATE_TOPIC_PREFIX: `${ns.id}.`,
        TOOLGATE_GROUP_PREFIX: `${ns.id}.`,
      },
      stop: stop.signal,
    });
    try {
      const ended = await within(45_000, 'tail to give up on the registry', tail);
      expect(ended.code).toBe(3);
      expect(ended.err).toMatch(
        /^toolgate tail: tail \S+toolgate\.audit: .*\(registry_unavailable\)\n$/,
      );
      expect(ended.out).toBe('');
    } finally {
      stop.abort();
      await tail;
    }
  }, 60_000);
});
