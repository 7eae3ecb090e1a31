/**
 * One namespace per test file: a topic prefix, consumer groups, transactional ids and a Redis key
 * prefix no other file (or earlier run) uses, so files never see each other's data even when they
 * run at the same time against the same stack.
 */
import { randomBytes } from 'node:crypto';
import {
  aclTable,
  createBus,
  EXAMPLE_TENANTS,
  EXAMPLE_TOOLS,
  EXAMPLE_WORKER,
  namespacedTopicName,
  SILENT_LOGGER,
  topicsFor,
  unseenAfterWaiting,
  withNamespace,
  type AclBinding,
  type TopicSpec,
  type WorkerGrant,
} from '@toolgate/platform';
import type { Kafka } from 'kafkajs';
import type { Redis } from 'ioredis';
import { workerRedisRules } from '../../infra/redis.js';
import { identity, redisClient, stackAddresses } from './stack.js';

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

/** What an operator would have done for the namespace: its topics, ACLs and a worker's Redis user. */
export interface Provisioned {
  /** The ACL bindings made for the namespace (deleted again by {@link dropNamespace}). */
  readonly bindings: readonly AclBinding[];
  /** The tools whose command topics were made. */
  readonly tools: readonly string[];
  /**
   * A Redis URL whose user may touch only the namespace's ledger and object keys, as the stack's
   * worker user may only the default prefix's.
   */
  readonly workerRedisUrl: string;
}

const provisioned = new Map<string, Provisioned>();

/**
 * As the stack's super user: creates the namespace's topics (the example's tools and tenants,
 * unless told others), the ACL table's bindings under its prefixes (so every component works as
 * its own principal, within its rights only), and a Redis user for its tool workers. Idempotent.
 */
export async function provisionNamespace(
  ns: TestNamespace,
  options: ProvisionOptions = {},
): Promise<Provisioned> {
  const known = provisioned.get(ns.id);
  if (known !== undefined) return known;
  const prefix = `${ns.id}.`;
  const tools = options.tools ?? EXAMPLE_TOOLS;
  const tenants = options.tenants ?? EXAMPLE_TENANTS;
  const bindings = aclTable({
    topicPrefix: prefix,
    groupPrefix: prefix,
    tools,
    tenants,
    workers: options.workers ?? [{ ...EXAMPLE_WORKER, tools }],
  });
  const bus = createBus({
    brokers: [...stackAddresses().kafkaBrokers],
    clientId: `${ns.id}-provision`,
    logger: SILENT_LOGGER,
    security: identity(),
  });
  try {
    await bus.ensureTopics(withNamespace(ns.id, topicsFor(tools, tenants)));
    await bus.createAcls(bindings.map(bindingOf));
  } finally {
    await bus.close();
  }
  await aclsInForce(ns, bindings);
  const done = { bindings: bindings.map(bindingOf), tools, workerRedisUrl: await workerUser(ns) };
  provisioned.set(ns.id, done);
  return done;
}

/**
 * Resolves once the broker's authorizer holds the bindings just made (they reach it a moment after
 * the request that made them returns): each principal can see a topic its rows name.
 */
async function aclsInForce(ns: TestNamespace, bindings: readonly AclBinding[]): Promise<void> {
  const firstTopic = new Map<string, string>();
  for (const b of bindings) {
    if (b.resourceType === 'TOPIC' && !firstTopic.has(b.principal)) {
      firstTopic.set(b.principal, b.resourceName);
    }
  }
  for (const [principal, topic] of firstTopic) {
    const bus = createBus({
      brokers: [...stackAddresses().kafkaBrokers],
      clientId: `${ns.id}-acl-check`,
      logger: SILENT_LOGGER,
      security: identity(principal),
    });
    try {
      const unseen = await unseenAfterWaiting(bus, [topic]);
      if (unseen.length > 0) throw new Error(`${principal}'s ACLs in ${ns.id} are not in force`);
    } finally {
      await bus.close();
    }
  }
}

function bindingOf(row: AclBinding): AclBinding {
  const { principal, resourceType, resourceName, patternType, operation } = row;
  return { principal, resourceType, resourceName, patternType, operation };
}

/** What {@link provisionNamespace} made for `ns`; throws when it has not been called. */
export function provisionedFor(ns: TestNamespace): Provisioned {
  const made = provisioned.get(ns.id);
  if (made === undefined) throw new Error(`call provisionNamespace for ${ns.id} first`);
  return made;
}

/** A Redis user confined to the namespace's ledger and object keys; its URL. */
async function workerUser(ns: TestNamespace): Promise<string> {
  const user = `worker-${ns.id}`;
  const password = randomBytes(16).toString('hex');
  const redis = redisClient();
  try {
    await redis.call(
      'ACL',
      'SETUSER',
      user,
      'reset',
      'on',
      `>${password}`,
      ...workerRedisRules(ns.redisPrefix),
    );
  } finally {
    redis.disconnect();
  }
  const url = new URL(stackAddresses().redisUrl);
  url.username = user;
  url.password = password;
  return url.toString().replace(/\/$/, '');
}

/**
 * Deletes the namespace's topics, Redis keys, ACL bindings and Redis user: an `afterAll` courtesy
 * to the shared stack.
 */
export async function dropNamespace(
  ns: TestNamespace,
  clients: { readonly kafka?: Kafka; readonly redis?: Redis },
): Promise<void> {
  const made = provisioned.get(ns.id);
  if (made !== undefined) {
    provisioned.delete(ns.id);
    const bus = createBus({
      brokers: [...stackAddresses().kafkaBrokers],
      clientId: `${ns.id}-drop`,
      logger: SILENT_LOGGER,
      security: identity(),
    });
    try {
      await bus.deleteAcls(made.bindings);
    } finally {
      await bus.close();
    }
    const redis = redisClient();
    try {
      await redis.call('ACL', 'DELUSER', `worker-${ns.id}`);
    } finally {
      redis.disconnect();
    }
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
    let cursor = '0';
    do {
      const [next, keys] = await clients.redis.scan(
        cursor,
        'MATCH',
        `${ns.redisPrefix}*`,
        'COUNT',
        500,
      );
      if (keys.length > 0) await clients.redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  }
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
  };
}
