/**
 * A namespace of its own for a demo run with prefixes (the integration test runs the demo so):
 * as the stack's admin, what an operator provisions for a gate installation under those prefixes,
 * since `stack:up` provisions only the stack's own names. The namespace's topics, the ACL table's
 * bindings under its topic and group prefixes, and, for a Redis prefix of its own, a Redis user for
 * the tool worker confined to that prefix's ledger and objects. Nothing is removed afterwards:
 * whoever chose the namespace drops it ({@link namespaceBindings} and {@link namespaceWorkerUser}
 * name what was made).
 */
import {
  aclTable,
  CONFIG_VARIABLES,
  exampleAclScope,
  kafkaIdentityFromEnv,
  kafkaSecurityOf,
  type AclBinding,
} from '@toolgate/platform';
import {
  provisionNamespace as provisionStackNamespace,
  workerRedisUserFor,
} from '../../../infra/provision.js';
import { STACK_ADMIN } from '../../../infra/stack-principals.js';
import { adminRedisUrl } from './demo-connections.js';
import type { DemoSettings } from './demo-settings.js';

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

/** The Redis user of the tool worker for `redisPrefix`. */
export function namespaceWorkerUser(redisPrefix: string): string {
  return workerRedisUserFor(redisPrefix);
}

/**
 * Provisions the run's namespace as the stack's admin (see the module comment and
 * infra/provision.ts); nothing to do for the stack's own prefixes.
 *
 * @throws a Fault when Kafka refuses or cannot be reached; an Error when Redis does.
 */
export async function provisionNamespace(settings: DemoSettings): Promise<Provisioned> {
  const { topicPrefix, groupPrefix, redisPrefix } = settings.config;
  if (
    topicPrefix === '' &&
    groupPrefix === '' &&
    redisPrefix === CONFIG_VARIABLES.REDIS_PREFIX.default
  ) {
    return {};
  }
  // As the stack's own admin, whose credentials the stack keeps, even where the demo was given
  // the stack's addresses (which would make them "external" to the stack's configuration).
  const admin = STACK_ADMIN;
  const kafka = {
    brokers: settings.config.kafkaBrokers,
    security: kafkaSecurityOf(kafkaIdentityFromEnv(settings.envOf(admin))),
  };
  const made = await provisionStackNamespace(
    settings.stack,
    { ...exampleAclScope(topicPrefix, groupPrefix), redisPrefix },
    { kafka, redisUrl: adminRedisUrl(settings) },
  );
  return redisPrefix === CONFIG_VARIABLES.REDIS_PREFIX.default
    ? {}
    : { workerRedisUrl: made.workerRedisUrl };
}
