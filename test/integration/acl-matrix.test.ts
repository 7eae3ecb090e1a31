/**
 * The ACL table as the broker enforces it, not as a sample: in a namespace provisioned with the
 * table, every principal tries to write every topic and to read every topic, and the broker allows
 * exactly what the table grants (a refusal is kafkajs's authorization error, nothing else). Each
 * principal also tries another component's consumer group and transactional id. A client without
 * credentials gets nothing at all.
 */
import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  aclTable,
  EXAMPLE_TENANTS,
  EXAMPLE_TOOLS,
  EXAMPLE_WORKER,
  principalsOf,
  topicsFor,
  withNamespace,
  type AclRow,
} from '@toolgate/platform';
import { within } from '../support/deadline.js';
import { dropNamespace, provisionNamespace, testNamespace } from '../support/namespace.js';
import { identity, kafkaClient, redisClient, stackAddresses } from '../support/stack.js';

const { Kafka: KafkaClient, logLevel } = kafkajs;

const ns = testNamespace('acl-matrix');
const prefix = `${ns.id}.`;
const table = aclTable({
  topicPrefix: prefix,
  groupPrefix: prefix,
  tools: EXAMPLE_TOOLS,
  tenants: EXAMPLE_TENANTS,
  workers: [EXAMPLE_WORKER],
});
const principals = principalsOf(table);
const topics = withNamespace(ns.id, topicsFor(EXAMPLE_TOOLS, EXAMPLE_TENANTS)).map((t) => t.name);

/** Whether the table grants `principal` `operation` on `resourceType` `name`. */
function granted(principal: string, operation: 'READ' | 'WRITE', type: string, name: string) {
  return table.some(
    (r: AclRow) =>
      r.principal === principal &&
      r.operation === operation &&
      r.resourceType === type &&
      (r.patternType === 'LITERAL' ? r.resourceName === name : name.startsWith(r.resourceName)),
  );
}

/** A group the table lets `principal` use: its own, or one under its prefix. */
function ownGroup(principal: string): string {
  const row = table.find((r) => r.principal === principal && r.resourceType === 'GROUP');
  if (row === undefined) throw new Error(`${principal} has no group`);
  return row.patternType === 'LITERAL' ? row.resourceName : `${row.resourceName}probe`;
}

/** The text of every error in a kafkajs error's cause chain, and nested per-topic errors. */
function errorText(error: unknown): string {
  const parts: string[] = [];
  for (
    let e = error as
      { message?: string; type?: string; cause?: unknown; errors?: unknown[] } | undefined;
    e;
    e = e.cause as typeof e
  ) {
    parts.push(`${e.type ?? ''} ${e.message ?? ''}`);
    for (const nested of e.errors ?? []) parts.push(errorText(nested));
  }
  return parts.join(' | ');
}

/** Undefined when `work` succeeded, the authorization error's text when the broker refused it. */
async function outcome(work: () => Promise<unknown>): Promise<'allowed' | 'refused'> {
  try {
    await work();
    return 'allowed';
  } catch (error) {
    const text = errorText(error);
    if (/AUTHORIZATION_FAILED|[Nn]ot authorized/.test(text)) return 'refused';
    throw error;
  }
}

/** Writes one record to `topic` as `principal`, with a producer of its own (see {@link readAs}). */
async function writeAs(principal: string, topic: string) {
  const producer = kafkaClient(`${ns.id}-${principal}-write`, principal).producer({
    retry: { retries: 0 },
  });
  await producer.connect();
  try {
    return await outcome(() =>
      producer.send({ topic, messages: [{ key: 'acl-probe', value: '{"probe":true}' }] }),
    );
  } finally {
    await producer.disconnect();
  }
}

/** The nodes that lead a partition of `topic`: a fetch from any other node reads none of it. */
async function leadersOf(topic: string): Promise<ReadonlySet<number>> {
  const admin = kafkaClient(`${ns.id}-leaders`).admin();
  await admin.connect();
  try {
    const { topics: found } = await admin.fetchTopicMetadata({ topics: [topic] });
    return new Set(found.flatMap((t) => t.partitions.map((p) => p.leader)));
  } finally {
    await admin.disconnect();
  }
}

/**
 * Reads `topic` as `principal` in consumer group `group`, as a stage or an agent reads: allowed
 * once a fetch comes back, refused when the broker refuses the subscription, the group or the
 * fetch. A consumer of its own each time: kafkajs keeps asking for the metadata of a topic it was
 * refused, which would spoil the next request of a shared client.
 */
async function readAs(principal: string, group: string, topic: string) {
  // A consumer fetches from every node, one that leads none of its partitions too: only a fetch
  // from a leader of the topic's partitions shows that the broker let it read.
  const leaders = await leadersOf(topic);
  const consumer = kafkaClient(`${ns.id}-${principal}-read`, principal).consumer({
    groupId: group,
    retry: { retries: 0 },
    maxWaitTimeInMs: 100,
    sessionTimeout: 6_000,
    heartbeatInterval: 500,
  });
  const fetched = new Promise<'allowed' | 'refused'>((resolve, reject) => {
    consumer.on(consumer.events.FETCH, ({ payload }) => {
      // kafkajs's types say a number; it passes the node id as a string.
      if (leaders.has(Number(payload.nodeId))) resolve('allowed');
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      outcome(() => Promise.reject(payload.error)).then(resolve, reject);
    });
  });
  await consumer.connect();
  try {
    const subscribed = await outcome(() =>
      consumer.subscribe({ topics: [topic], fromBeginning: true }),
    );
    if (subscribed === 'refused') return subscribed;
    await consumer.run({ eachMessage: () => Promise.resolve() });
    return await within(30_000, `${principal} to fetch ${topic} or be refused`, fetched);
  } finally {
    await consumer.disconnect();
  }
}

beforeAll(async () => {
  await provisionNamespace(ns, { workers: [EXAMPLE_WORKER] });
}, 120_000);

afterAll(async () => {
  const redis = redisClient();
  try {
    await dropNamespace(ns, { kafka: kafkaClient(`${ns.id}-cleanup`), redis });
  } finally {
    redis.disconnect();
  }
});

describe('the ACL table, as the broker enforces it', () => {
  it('lists every component: four stages, an agent per tenant, the worker, analytics and the console', () => {
    expect([...principals].sort()).toEqual(
      [
        'toolgate-validate',
        'toolgate-authorize',
        'toolgate-confirm',
        'toolgate-execute',
        'agent-acme',
        'agent-globex',
        'worker-billing',
        'toolgate-analytics',
        'toolgate-console',
      ].sort(),
    );
  });

  it.each(principals)('lets %s write exactly the topics the table gives it', async (principal) => {
    const seen: Record<string, string> = {};
    const expected: Record<string, string> = {};
    for (const topic of topics) {
      expected[topic] = granted(principal, 'WRITE', 'TOPIC', topic) ? 'allowed' : 'refused';
      seen[topic] = await writeAs(principal, topic);
    }
    expect(seen).toEqual(expected);
    expect(Object.values(seen)).toContain('refused');
  });

  it.each(principals)('lets %s read exactly the topics the table gives it', async (principal) => {
    const group = ownGroup(principal);
    const seen: Record<string, string> = {};
    const expected: Record<string, string> = {};
    for (const topic of topics) {
      expected[topic] = granted(principal, 'READ', 'TOPIC', topic) ? 'allowed' : 'refused';
      seen[topic] = await readAs(principal, group, topic);
    }
    expect(seen).toEqual(expected);
  });

  it.each(principals)(
    "refuses %s another component's consumer group and transactional ids",
    async (principal) => {
      const other = principal === 'toolgate-execute' ? 'toolgate-validate' : 'toolgate-execute';
      const theirGroup = ownGroup(other);
      const readable = topics.find((t) => granted(principal, 'READ', 'TOPIC', t)) ?? topics[0]!;
      // kafkajs reports a refused coordinator lookup as "coordinator not found"; what the broker
      // answered is in its debug log, which this client keeps.
      const { kafka, answers } = listeningClient(principal);
      const consumer = kafka.consumer({ groupId: theirGroup, retry: { retries: 0 } });
      const crashed = new Promise<Error>((resolve) =>
        consumer.on(consumer.events.CRASH, ({ payload }) => resolve(payload.error)),
      );
      await consumer.connect();
      try {
        await consumer.subscribe({ topics: [readable], fromBeginning: true });
        await consumer.run({ eachMessage: () => Promise.resolve() });
        const error = await within(30_000, `${principal}'s join of ${theirGroup} to fail`, crashed);
        expect(error.message).toMatch(/group coordinator/);
      } finally {
        await consumer.disconnect();
      }
      expect(answers).toContain('GROUP_AUTHORIZATION_FAILED');
      const producer = kafka.producer({
        transactionalId: `${theirGroup}.impostor`,
        idempotent: true,
        maxInFlightRequests: 1,
        retry: { retries: 1, initialRetryTime: 50 },
      });
      try {
        const begun = (async () => {
          await producer.connect();
          const tx = await producer.transaction();
          await tx.send({ topic: readable, messages: [{ value: '{}' }] });
        })();
        const refusal = await begun.then(
          () => 'began',
          (error: unknown) => errorText(error),
        );
        expect(refusal).not.toBe('began');
        // The broker refuses the transactional id itself, or (a principal that may write nothing
        // at all) the producer id it would need first.
        expect(`${answers.join(' ')} ${refusal}`).toMatch(
          /TRANSACTIONAL_ID_AUTHORIZATION_FAILED|Cluster authorization failed/,
        );
      } finally {
        await producer.disconnect();
      }
    },
  );
});

/**
 * A client of `principal` that keeps the error type of every broker answer kafkajs logs, at debug
 * level included: kafkajs hides a refused coordinator lookup behind "coordinator not found".
 */
function listeningClient(principal: string) {
  const answers: string[] = [];
  const kafka = new KafkaClient({
    clientId: `${ns.id}-${principal}-listening`,
    brokers: [...stackAddresses().kafkaBrokers],
    sasl: { mechanism: 'scram-sha-512', ...saslOf(principal) },
    logLevel: logLevel.DEBUG,
    logCreator: () => (entry) => {
      const type = (entry.log as { error?: { type?: unknown } }).error?.type;
      if (typeof type === 'string') answers.push(type);
    },
  });
  return { kafka, answers };
}

function saslOf(principal: string): { username: string; password: string } {
  const sasl = identity(principal).sasl;
  if (sasl === undefined) throw new Error(`no SASL identity for ${principal}`);
  return { username: sasl.username, password: sasl.password };
}

describe('a client without credentials', () => {
  it('is cut off at its first request: it can list, write and read nothing', async () => {
    const anonymous = new KafkaClient({
      clientId: `${ns.id}-anonymous`,
      brokers: [...stackAddresses().kafkaBrokers],
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
      connectionTimeout: 3_000,
    });
    const admin = anonymous.admin();
    const producer = anonymous.producer();
    await expect(
      (async () => {
        await admin.connect();
        await admin.listTopics();
      })(),
    ).rejects.toThrow();
    await expect(
      (async () => {
        await producer.connect();
        await producer.send({ topic: topics[0]!, messages: [{ value: 'x' }] });
      })(),
    ).rejects.toThrow();
    await admin.disconnect();
    await producer.disconnect();
  });
});
