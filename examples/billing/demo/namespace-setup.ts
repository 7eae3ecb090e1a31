/**
 * A namespace of its own for a demo run with prefixes (the integration test runs the demo so):
 * as the stack's admin, what an operator provisions for a gate installation under those prefixes,
 * since `stack:up` provisions only the stack's own names. The namespace's topics, the ACL table's
 * bindings under its topic and group prefixes, and, for a Redis prefix of its own, a Redis user for
 * the tool worker confined to that prefix's ledger and objects. Nothing is removed afterwards:
 * whoever chose the namespace drops it ({@link namespaceBindings} and {@link namespaceWorkerUser}
 * name what was made).
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  aclTable,
  CONFIG_VARIABLES,
  EXAMPLE_TENANTS,
  EXAMPLE_TOOLS,
  exampleAclScope,
  topicsFor,
  type AclBinding,
} from '@toolgate/platform';
import { workerRedisRules } from '../../../infra/redis.js';
import { STACK_ADMIN } from '../../../infra/stack-principals.js';
import { adminRedisUrl, busAs } from './demo-connections.js';
import type { DemoSettings } from './demo-settings.js';
import { setRedisUser } from './redis-access.js';

/** What the namespace gives the tool worker. */
export interface Provisioned {
  /**
   * The URL (password included) of the worker's Redis user for the run's Redis prefix; undefined
   * when the run uses the stack's own prefix, whose worker user the stack made.
   */
  readonly workerRedisUrl?: string;
}

/** The bindings of the example's ACL table under these prefixes (what {@link provisionNamespace} creates). */
export function namespaceBindings(topicPrefix: string, groupPrefix: string): AclBinding[] {
  return aclTable(exampleAclScope(topicPrefix, groupPrefix)).map(
    ({ principal, resourceType, resourceName, patternType, operation }) => ({
      principal,
      resourceType,
      resourceName,
      patternType,
      operation,
    }),
  );
}

/** The Redis user of the tool worker for `redisPrefix`: `worker-billing.<prefix, cleaned>.<hash>`. */
export function namespaceWorkerUser(redisPrefix: string): string {
  const hash = createHash('sha256').update(redisPrefix).digest('hex').slice(0, 8);
  return `worker-billing.${redisPrefix.replace(/[^A-Za-z0-9_-]+/g, '')}.${hash}`;
}

/**
 * Provisions the run's namespace as the stack's admin (see the module comment); idempotent, and
 * nothing to do for the stack's own prefixes.
 *
 * @throws a Fault when Kafka refuses or cannot be reached; an Error when Redis does.
 */
export async function provisionNamespace(settings: DemoSettings): Promise<Provisioned> {
  const { topicPrefix, groupPrefix, redisPrefix } = settings.config;
  if (topicPrefix !== '' || groupPrefix !== '') {
    const bus = busAs(settings, STACK_ADMIN, 'provision');
    try {
      const topics = topicsFor(EXAMPLE_TOOLS, EXAMPLE_TENANTS);
      await bus.ensureTopics(topics.map((t) => ({ ...t, name: `${topicPrefix}${t.name}` })));
      await bus.createAcls(namespaceBindings(topicPrefix, groupPrefix));
    } finally {
      await bus.close();
    }
  }
  if (redisPrefix === CONFIG_VARIABLES.REDIS_PREFIX.default) return {};
  return { workerRedisUrl: await workerUser(settings, redisPrefix) };
}

/** Sets the worker's Redis user of `redisPrefix` with a fresh password; its URL. */
async function workerUser(settings: DemoSettings, redisPrefix: string): Promise<string> {
  const user = namespaceWorkerUser(redisPrefix);
  const password = randomBytes(24).toString('base64url');
  await setRedisUser(adminRedisUrl(settings), user, password, workerRedisRules(redisPrefix));
  const url = new URL(settings.stack.addresses.redisUrl);
  url.username = user;
  url.password = password;
  return url.toString().replace(/\/$/, '');
}
