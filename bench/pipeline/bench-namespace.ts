/**
 * The run's namespace on the secured stack, made and dropped as the stack's admin: the gate's
 * installation under its prefixes (topics, the ACL table's bindings, its worker's Redis user:
 * `provisionNamespace`), the relay's topics with the grant of `bench-relay` on them and a Redis
 * user for its echo worker confined to the relay's Redis prefix (the same rules as the gate
 * worker's), and the one-hop topic. {@link dropRun} removes all of it, with the topics, Redis
 * keys, registry subjects and consumer groups the run left.
 */
import { randomBytes } from 'node:crypto';
import { Kafka, logLevel, type SASLOptions } from 'kafkajs';
import {
  aclTable,
  createBus,
  EXAMPLE_TENANTS,
  EXAMPLE_TOOLS,
  exampleAclScope,
  observationsTopic,
  SILENT_LOGGER,
  topicsFor,
  unseenAfterWaiting,
  type AclBinding,
  type Bus,
  type KafkaSecurity,
} from '@toolgate/platform';
import { adminAccess, STACK_SASL_MECHANISM } from '../../infra/kafka.js';
import { withRedis } from '../../infra/redis.js';
import {
  adminRedisUrl,
  createWorkerRedisUser,
  dropProvisioned,
  dropWorkerRedisUser,
  provisionNamespace,
  workerRedisUserFor,
  type ProvisionedNamespace,
} from '../../infra/provision.js';
import type { StackConfig } from '../../infra/stack-config.js';
import { BENCH_RELAY_PRINCIPAL } from '../../infra/stack-principals.js';
import { kafkaPassword } from '../../infra/stack-secrets.js';
import { dropSubjects } from '../../test/support/registry-cleanup.js';
import { relayBindings } from './relay-access.js';

/** One system's prefixes; its consumer groups and transactional ids share the topic prefix. */
export interface Space {
  readonly topicPrefix: string;
  readonly redisPrefix: string;
}

/** The names of one run: `t-bench-<time>-<random>`, and under it each system's. */
export interface BenchNamespace {
  readonly id: string;
  /** Every Redis key of the run starts with it: `<id>:`. */
  readonly redisPrefix: string;
  readonly relay: Space;
  readonly gate: Space;
  /** The one-hop baseline's topic. */
  readonly onehopTopic: string;
}

/** A fresh namespace for one run. */
export function benchNamespace(): BenchNamespace {
  const id = `t-bench-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  const redisPrefix = `${id}:`;
  return {
    id,
    redisPrefix,
    relay: { topicPrefix: `${id}.relay.`, redisPrefix: `${redisPrefix}relay:` },
    gate: { topicPrefix: `${id}.gate.`, redisPrefix: `${redisPrefix}gate:` },
    onehopTopic: `${id}.onehop.toolgate.observations`,
  };
}

/**
 * What the run has made on the stack so far, filled in as it is made, so that {@link dropRun}
 * removes it even when making the rest failed.
 */
export interface Made {
  gate?: ProvisionedNamespace;
  relayBindings?: readonly AclBinding[];
  relayRedisUser?: string;
}

/** The Redis URLs of the two tool workers, each a user confined to its system's Redis prefix. */
export interface WorkerRedisUrls {
  readonly gate: string;
  readonly relay: string;
}

/**
 * A bus as the stack's admin. `retries` (default 1: a benchmark stops at the first fault) is how
 * often kafkajs retries a request; a chaos run's driver keeps sending through a broker's death.
 */
export function adminBus(config: StackConfig, clientId: string, retries = 1): Bus {
  const access = adminAccess(config);
  return createBus({
    brokers: [...access.brokers],
    clientId,
    logger: SILENT_LOGGER,
    security: access.security,
    retries,
    connectionTimeoutMs: 2_000,
  });
}

/**
 * Makes the run's namespace (see the module comment), recording each part in `made` as it goes;
 * resolves once `bench-relay`'s grant is in force.
 */
export async function provisionRun(
  config: StackConfig,
  ns: BenchNamespace,
  made: Made,
): Promise<WorkerRedisUrls> {
  const scope = exampleAclScope(ns.gate.topicPrefix, ns.gate.topicPrefix);
  const redisPrefix = ns.gate.redisPrefix;
  // What it is about to make, so that a failure half way still has it dropped.
  const workerRedisUser = workerRedisUserFor(redisPrefix);
  made.gate = { bindings: aclTable(scope), workerRedisUser, workerRedisUrl: '' };
  made.gate = await provisionNamespace(config, { ...scope, redisPrefix });
  const bindings = relayBindings({
    topicPrefix: ns.relay.topicPrefix,
    groupPrefix: ns.relay.topicPrefix,
  });
  const bus = adminBus(config, `${ns.id}-provision`);
  try {
    await bus.ensureTopics(relayTopics(ns));
    made.relayBindings = bindings;
    await bus.createAcls(bindings);
  } finally {
    await bus.close();
  }
  const relay = await relayRedisUser(config, ns.relay.redisPrefix, made);
  await relayGrantInForce(config, ns.relay.topicPrefix);
  return { gate: made.gate.workerRedisUrl, relay };
}

/** The relay's topics, the gate's catalogue under its prefix, and the one-hop topic. */
function relayTopics(ns: BenchNamespace) {
  const specs = topicsFor(EXAMPLE_TOOLS, EXAMPLE_TENANTS);
  const [tenant] = EXAMPLE_TENANTS;
  return [
    ...specs.map((s) => ({ ...s, name: `${ns.relay.topicPrefix}${s.name}` })),
    { ...observationsTopic(tenant), name: ns.onehopTopic },
  ];
}

/** Creates the echo worker's Redis user, with the rules of the gate worker's; its URL. */
async function relayRedisUser(
  config: StackConfig,
  redisPrefix: string,
  made: Made,
): Promise<string> {
  made.relayRedisUser = workerRedisUserFor(redisPrefix);
  return (await createWorkerRedisUser(config, redisPrefix)).url;
}

/** The stack's identity of `principal`, with the password `stack:up` made for it. */
function identityOf(config: StackConfig, principal: string): KafkaSecurity {
  return {
    sasl: {
      mechanism: STACK_SASL_MECHANISM,
      username: principal,
      password: kafkaPassword(config, principal),
    },
  };
}

/** Waits until `bench-relay` sees the relay's topics: new ACLs reach the authorizer a moment late. */
async function relayGrantInForce(config: StackConfig, topicPrefix: string): Promise<void> {
  const bus = createBus({
    brokers: [...config.addresses.kafkaBrokers],
    clientId: 'toolgate-bench-relay-check',
    logger: SILENT_LOGGER,
    security: identityOf(config, BENCH_RELAY_PRINCIPAL),
  });
  try {
    const unseen = await unseenAfterWaiting(bus, [`${topicPrefix}toolgate.proposals`]).catch(
      (error: unknown) => {
        throw new Error(
          `${BENCH_RELAY_PRINCIPAL} cannot use Kafka (\`npm run stack:up\` adds the stack's users): ${messageOf(error)}`,
          { cause: error },
        );
      },
    );
    if (unseen.length > 0)
      throw new Error(`${BENCH_RELAY_PRINCIPAL}'s grant is not in force after 10 s`);
  } finally {
    await bus.close();
  }
}

/**
 * Removes what `made` records, then the topics, Redis keys, registry subjects and consumer groups
 * of the run. Every step is tried; throws one Error naming those that failed.
 */
export async function dropRun(config: StackConfig, ns: BenchNamespace, made: Made): Promise<void> {
  const problems: string[] = [];
  const step = async (what: string, work: () => Promise<unknown>) => {
    await work().catch((error: unknown) => problems.push(`${what}: ${messageOf(error)}`));
  };
  const { gate, relayBindings: bindings, relayRedisUser: user } = made;
  if (gate !== undefined)
    await step("the gate's ACLs and Redis user", () => dropProvisioned(config, gate));
  if (bindings !== undefined) await step("the relay's ACLs", () => deleteAcls(config, bindings));
  if (user !== undefined)
    await step("the relay's Redis user", () => dropWorkerRedisUser(config, user));
  const kafka = adminKafka(config, `${ns.id}-cleanup`);
  await step('topics', () => deleteTopics(kafka, `${ns.id}.`));
  await step('Redis keys', () => deleteKeys(adminRedisUrl(config), ns.redisPrefix));
  await step('registry subjects', () => dropRegistered(config, `${ns.id}.`));
  // Last: a group a killed child never left cannot be deleted yet, and says so.
  await step('consumer groups', () => dropGroups(kafka, `${ns.id}.`));
  if (problems.length > 0) throw new Error(`cleanup left some behind: ${problems.join('; ')}`);
}

async function deleteAcls(config: StackConfig, bindings: readonly AclBinding[]): Promise<void> {
  const bus = adminBus(config, 'toolgate-bench-cleanup');
  try {
    await bus.deleteAcls(bindings);
  } finally {
    await bus.close();
  }
}

async function dropRegistered(config: StackConfig, prefix: string): Promise<void> {
  const url = config.addresses.schemaRegistryUrl;
  await dropSubjects(url, prefix);
  // A child stopped while starting may have had registrations in flight; they land late.
  await new Promise((r) => setTimeout(r, 2_000));
  await dropSubjects(url, prefix);
}

/** A kafkajs client as the stack's admin, for what the bus does not do (deleting topics, groups). */
function adminKafka(config: StackConfig, clientId: string): Kafka {
  const { brokers, security } = adminAccess(config);
  const sasl = security.sasl;
  return new Kafka({
    clientId,
    brokers: [...brokers],
    logLevel: logLevel.NOTHING,
    ...(security.tls === undefined ? {} : { ssl: true }),
    ...(sasl === undefined
      ? {}
      : {
          sasl: {
            mechanism: sasl.mechanism.toLowerCase(),
            username: sasl.username,
            password: sasl.password,
          } as SASLOptions,
        }),
  });
}

async function deleteTopics(kafka: Kafka, prefix: string): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics });
  } finally {
    await admin.disconnect();
  }
}

/** Deletes the consumer groups (and their committed offsets) whose id starts with `prefix`. */
async function dropGroups(kafka: Kafka, prefix: string): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { groups } = await admin.listGroups();
    const mine = groups.map((g) => g.groupId).filter((g) => g.startsWith(prefix));
    if (mine.length > 0)
      await admin.deleteGroups(mine).catch((error: unknown) => {
        throw new Error(
          `consumer groups ${prefix}* left behind (a killed child stays a member until its session times out; they hold only offsets): ${messageOf(error)}`,
          { cause: error },
        );
      });
  } finally {
    await admin.disconnect();
  }
}

async function deleteKeys(url: string, prefix: string): Promise<void> {
  await withRedis(url, async (redis) => {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
