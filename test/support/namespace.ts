/**
 * One namespace per test file: a topic prefix, consumer groups, transactional ids and a Redis key
 * prefix no other file (or earlier run) uses, so files never see each other's data even when they
 * run at the same time against the same stack.
 */
import { randomBytes } from 'node:crypto';
import {
  EXAMPLE_TENANTS,
  EXAMPLE_TOOLS,
  EXAMPLE_WORKER,
  namespacedTopicName,
  type TopicSpec,
  type WorkerGrant,
} from '@toolgate/platform';
import type { Kafka } from 'kafkajs';
import { Cluster, type Redis } from 'ioredis';
import {
  dropProvisioned,
  provisionNamespace as provisionStackNamespace,
  type ProvisionedNamespace,
} from '../../infra/provision.js';
import { stackConfig } from './stack.js';

/** Names inside one test file's namespace. */
export interface TestNamespace {
  /** The namespace itself, e.g. `t-kafka-tx-m3x9q1-5f2a9c`. */
  readonly id: string;
  /** A topic name in the namespace: `<id>.<name>`. */
  topic(name: string): string;
  /** A consumer group id in the namespace. */
  group(name: string): string;
  /** A transactional id in the namespace. */
  transactionalId(name: string): string;
  /** Prefix of every Redis key of the namespace: `<id>:`. */
  readonly redisPrefix: string;
  /** A Redis key in the namespace. */
  key(name: string): string;
}

/** A fresh namespace; `label` (letters, digits, `-`) says which file it belongs to. */
export function testNamespace(label: string): TestNamespace {
  const id = `t-${label}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  return {
    id,
    topic: (name) => namespacedTopicName(id, name),
    group: (name) => `${id}.${name}`,
    transactionalId: (name) => `${id}.${name}`,
    redisPrefix: `${id}:`,
    key: (name) => `${id}:${name}`,
  };
}

/** What {@link provisionNamespace} sets up: the gate of the example, in the namespace. */
export interface ProvisionOptions {
  readonly tools?: readonly string[];
  readonly tenants?: readonly string[];
  /** The workers the ACLs let in; default the example's (principal `worker-billing`). */
  readonly workers?: readonly WorkerGrant[];
}

/** What an operator would have made for the namespace: its topics, ACLs and a worker's Redis user. */
export interface Provisioned extends ProvisionedNamespace {
  /** The tools whose command topics were made. */
  readonly tools: readonly string[];
}

const provisioned = new Map<string, Provisioned>();

/**
 * As the stack's super user: creates the namespace's topics (the example's tools and tenants,
 * unless told others), the ACL table's bindings under its prefixes (so every component works as
 * its own principal, within its rights only), and a Redis user for its tool workers (see
 * infra/provision.ts). Idempotent.
 */
export async function provisionNamespace(
  ns: TestNamespace,
  options: ProvisionOptions = {},
): Promise<Provisioned> {
  const known = provisioned.get(ns.id);
  if (known !== undefined) return known;
  const tools = options.tools ?? EXAMPLE_TOOLS;
  const made = await provisionStackNamespace(stackConfig(), {
    topicPrefix: `${ns.id}.`,
    groupPrefix: `${ns.id}.`,
    redisPrefix: ns.redisPrefix,
    tools,
    tenants: options.tenants ?? EXAMPLE_TENANTS,
    workers: options.workers ?? [{ ...EXAMPLE_WORKER, tools }],
  });
  const done = { ...made, tools };
  provisioned.set(ns.id, done);
  return done;
}

/** What {@link provisionNamespace} made for `ns`; throws when it has not been called. */
export function provisionedFor(ns: TestNamespace): Provisioned {
  const made = provisioned.get(ns.id);
  if (made === undefined) throw new Error(`call provisionNamespace for ${ns.id} first`);
  return made;
}

/**
 * Deletes the namespace's topics, Redis keys, ACL bindings and Redis user: an `afterAll` courtesy
 * to the shared stack.
 */
export async function dropNamespace(
  ns: TestNamespace,
  clients: { readonly kafka?: Kafka; readonly redis?: Redis | Cluster },
): Promise<void> {
  const made = provisioned.get(ns.id);
  if (made !== undefined) {
    provisioned.delete(ns.id);
    await dropProvisioned(stackConfig(), made);
  }
  if (clients.kafka) {
    const admin = clients.kafka.admin();
    await admin.connect();
    try {
      const topics = (await admin.listTopics()).filter((t) => t.startsWith(`${ns.id}.`));
      if (topics.length > 0) await admin.deleteTopics({ topics });
    } finally {
      await admin.disconnect();
    }
  }
  if (clients.redis) {
    // On a cluster stack each primary holds some of the keys: scan every one.
    const { redis } = clients;
    const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis];
    for (const node of nodes) await dropKeys(node, ns.redisPrefix);
  }
}

/** Deletes the keys under `prefix` on one server, one at a time (a cluster's keys span slots). */
async function dropKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    await Promise.all(keys.map((key) => redis.del(key)));
    cursor = next;
  } while (cursor !== '0');
}

/** A test topic's spec: `partitions` partitions, kept an hour, deleted with its namespace. */
export function testTopicSpec(name: string, partitions = 1): TopicSpec {
  return {
    name,
    partitions,
    retentionMs: 3_600_000,
    segmentMs: 3_600_000,
    cleanupPolicy: 'delete',
    role: 'pipeline',
    key: 'key',
    timestampType: 'CreateTime',
  };
}
