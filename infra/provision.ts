/**
 * What an operator makes for a gate installation under prefixes of its own, done as the stack's
 * super user: its topics, the ACL table's bindings under its topic and group prefixes, and a Redis
 * user for its tool workers confined to its Redis prefix's ledger and objects. `stack:up` does this
 * for the default (empty) prefixes; the tests, the demo in a namespace and the benchmark do it for
 * theirs, and drop it again with {@link dropProvisioned}.
 */
import { randomBytes } from 'node:crypto';
import {
  aclTable,
  createBus,
  SILENT_LOGGER,
  topicsFor,
  unseenAfterWaiting,
  type AclBinding,
  type AclScope,
} from '@toolgate/platform';
import { adminAccess, STACK_SASL_MECHANISM, type KafkaAccess } from './kafka.js';
import {
  REDIS_ADMIN,
  redisUrlAs,
  redisUrlWith,
  saveAcl,
  withEveryRedisNode,
  workerRedisRules,
} from './redis.js';
import type { StackConfig } from './stack-config.js';
import { kafkaPassword } from './stack-secrets.js';

/** An installation to provision: the ACL scope, and the Redis prefix of its keys. */
export interface NamespaceSpec extends AclScope {
  /** TOOLGATE_REDIS_PREFIX of the installation: its workers' Redis user is confined to it. */
  readonly redisPrefix: string;
}

/**
 * The super user to provision as: by default the stack's (for a Kafka or Redis given by
 * TOOLGATE_KAFKA_BROKERS or TOOLGATE_REDIS_URL, the identity the environment names).
 */
export interface ProvisionAdmin {
  readonly kafka: KafkaAccess;
  /** A Redis URL whose user may run ACL SETUSER. */
  readonly redisUrl: string;
}

/** The stack's own super user, as {@link ProvisionAdmin}. */
export function stackAdmin(config: StackConfig): ProvisionAdmin {
  return { kafka: adminAccess(config), redisUrl: adminRedisUrl(config) };
}

/** What {@link provisionNamespace} made. */
export interface ProvisionedNamespace {
  /** The ACL bindings it created. */
  readonly bindings: readonly AclBinding[];
  /** The Redis user of the installation's tool workers, and its URL (password included). */
  readonly workerRedisUser: string;
  readonly workerRedisUrl: string;
}

/**
 * Creates the installation's topics and ACL bindings, and its workers' Redis user (named
 * `worker.<redis prefix>` with a fresh password), as the stack's super user; resolves once the
 * broker's authorizer holds the new bindings (they reach it a moment after they are made).
 */
export async function provisionNamespace(
  config: StackConfig,
  spec: NamespaceSpec,
  admin: ProvisionAdmin = stackAdmin(config),
): Promise<ProvisionedNamespace> {
  const bindings = aclTable(spec).map(bindingOf);
  const bus = busOf(admin.kafka, 'toolgate-provision');
  try {
    const topics = topicsFor(spec.tools, spec.tenants);
    await bus.ensureTopics(topics.map((t) => ({ ...t, name: `${spec.topicPrefix}${t.name}` })));
    await bus.createAcls(bindings);
  } finally {
    await bus.close();
  }
  await aclsInForce(config, bindings);
  const worker = await createWorkerRedisUser(config, spec.redisPrefix, admin.redisUrl);
  return { bindings, workerRedisUser: worker.user, workerRedisUrl: worker.url };
}

/**
 * Creates (or resets, with a fresh password) the Redis user of the tool workers whose keys start
 * with `redisPrefix`: they may touch their ledger and objects there, nothing else. Returns its
 * name and URL (password included).
 */
export async function createWorkerRedisUser(
  config: StackConfig,
  redisPrefix: string,
  adminUrl: string = adminRedisUrl(config),
): Promise<{ readonly user: string; readonly url: string }> {
  const user = workerRedisUserFor(redisPrefix);
  const password = randomBytes(24).toString('base64url');
  await withEveryRedisNode(adminUrl, async (redis) => {
    const rules = workerRedisRules(redisPrefix);
    await redis.call('ACL', 'SETUSER', user, 'reset', 'on', `>${password}`, ...rules);
    await saveAcl(redis);
  });
  return { user, url: redisUrlWith(config.addresses.redisUrl, user, password) };
}

/** Deletes a Redis user {@link createWorkerRedisUser} made. */
export async function dropWorkerRedisUser(config: StackConfig, user: string): Promise<void> {
  await withEveryRedisNode(adminRedisUrl(config), async (redis) => {
    await redis.call('ACL', 'DELUSER', user);
    await saveAcl(redis);
  });
}

/** The stack's Redis as its super user (a Redis the stack did not start: as configured). */
export function adminRedisUrl(config: StackConfig): string {
  return config.external.has('redis') ? config.addresses.redisUrl : redisUrlAs(config, REDIS_ADMIN);
}

/** The Redis user of the tool workers of an installation whose keys start with `redisPrefix`. */
export function workerRedisUserFor(redisPrefix: string): string {
  return `worker.${redisPrefix.replace(/[^A-Za-z0-9_-]+/g, '')}`;
}

/** Deletes the bindings and the Redis user {@link provisionNamespace} made (not the topics). */
export async function dropProvisioned(
  config: StackConfig,
  provisioned: ProvisionedNamespace,
  admin: ProvisionAdmin = stackAdmin(config),
): Promise<void> {
  const bus = busOf(admin.kafka, 'toolgate-unprovision');
  try {
    await bus.deleteAcls(provisioned.bindings);
  } finally {
    await bus.close();
  }
  await withEveryRedisNode(admin.redisUrl, (redis) =>
    redis.call('ACL', 'DELUSER', provisioned.workerRedisUser),
  );
}

function bindingOf(row: AclBinding): AclBinding {
  const { principal, resourceType, resourceName, patternType, operation } = row;
  return { principal, resourceType, resourceName, patternType, operation };
}

function busOf(access: KafkaAccess, clientId: string) {
  return createBus({
    brokers: [...access.brokers],
    clientId,
    logger: SILENT_LOGGER,
    security: access.security,
  });
}

/**
 * How long new ACLs may take to reach the authorizer, ms: a second or two, but more than 10 s on a
 * busy two-core machine with a Kafka just started.
 */
const ACLS_IN_FORCE_WITHIN_MS = 30_000;

/** Each principal of `bindings` can see the first topic its rows name. */
async function aclsInForce(config: StackConfig, bindings: readonly AclBinding[]): Promise<void> {
  // The stack knows its own principals' passwords only.
  if (config.external.has('kafka')) return;
  const firstTopic = new Map<string, string>();
  for (const b of bindings) {
    if (b.resourceType === 'TOPIC' && !firstTopic.has(b.principal)) {
      firstTopic.set(b.principal, b.resourceName);
    }
  }
  for (const [principal, topic] of firstTopic) {
    const bus = busOf(
      {
        brokers: config.addresses.kafkaBrokers,
        security: {
          sasl: {
            mechanism: STACK_SASL_MECHANISM,
            username: principal,
            password: kafkaPassword(config, principal),
          },
        },
      },
      'toolgate-provision-check',
    );
    try {
      const unseen = await unseenAfterWaiting(bus, [topic], ACLS_IN_FORCE_WITHIN_MS);
      if (unseen.length > 0)
        throw new Error(
          `${principal}'s new ACLs are not in force after ${ACLS_IN_FORCE_WITHIN_MS / 1000} s`,
        );
    } finally {
      await bus.close();
    }
  }
}
