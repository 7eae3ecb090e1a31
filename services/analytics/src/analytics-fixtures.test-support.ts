/**
 * What the analytics process's tests on the real stack share: a namespace provisioned for the
 * test deployment, the process's own variables in it, audit events written there as a stage
 * writes them, and the session of an acme user with the roles a test needs.
 */
import { ANALYTICS_PRINCIPAL, createCodec, SILENT_LOGGER, type Env } from '@toolgate/platform';
import { MESSAGE_SCHEMAS, mintSession, type AuditEvent, type Principal } from '@toolgate/shared';
import type { Kafka } from 'kafkajs';
import { writeAuditEvents } from '../../../test/support/audit-writer.js';
import deployment, {
  TEST_SESSION_ISSUER,
  TEST_SESSION_SECRET,
} from '../../../test/support/deployment/index.js';
import { identityEnv } from '../../../test/support/gate-harness.js';
import {
  dropNamespace,
  provisionNamespace,
  type TestNamespace,
} from '../../../test/support/namespace.js';
import { dropSubjects } from '../../../test/support/registry-cleanup.js';
import { kafkaClient, stackAddresses } from '../../../test/support/stack.js';

/** Provisions `ns` for the test deployment's tools and tenants; the stack admin's client of it. */
export async function provisionForDeployment(ns: TestNamespace): Promise<Kafka> {
  await provisionNamespace(ns, {
    tools: deployment.tools.map((t) => t.name),
    tenants: deployment.tenants,
  });
  return kafkaClient(ns.id);
}

/** Drops `ns`'s topics, ACLs and registry subjects. */
export async function dropProvisioned(ns: TestNamespace, kafka: Kafka): Promise<void> {
  await dropNamespace(ns, { kafka });
  await dropSubjects(stackAddresses().schemaRegistryUrl, ns.id);
}

/**
 * The analytics process's variables in `ns`, as `toolgate-analytics`: its own only (no integrity
 * key, no Redis URL), an HTTP port of the system's choosing, silent; `extra` adds or overrides.
 */
export function analyticsEnv(ns: TestNamespace, extra: Env = {}): Env {
  const stack = stackAddresses();
  return {
    TOOLGATE_KAFKA_BROKERS: stack.kafkaBrokers.join(','),
    ...identityEnv(ANALYTICS_PRINCIPAL),
    TOOLGATE_SCHEMA_REGISTRY_URL: stack.schemaRegistryUrl,
    TOOLGATE_TOPIC_PREFIX: `${ns.id}.`,
    TOOLGATE_GROUP_PREFIX: `${ns.id}.`,
    TOOLGATE_HTTP_PORT: '0',
    TOOLGATE_LOG_LEVEL: 'silent',
    ...extra,
  };
}

/**
 * Writes `events` to `ns`'s audit topic in one transaction, as a stage does, with the
 * transactional id `transactionalId` (one writer at a time per id).
 */
export async function writeAudit(
  kafka: Kafka,
  ns: TestNamespace,
  events: readonly AuditEvent[],
  transactionalId: string,
): Promise<void> {
  const topic = ns.topic('toolgate.audit');
  const codec = createCodec({
    registryUrl: stackAddresses().schemaRegistryUrl,
    logger: SILENT_LOGGER,
    compatibility: 'NONE',
  });
  await codec.register(`${topic}-value`, MESSAGE_SCHEMAS.audit);
  const writer = { kafka, codec, topic, transactionalId };
  await writeAuditEvents(writer, events, { chunk: events.length });
}

/** The `authorization` header of a fresh session of `who`, signed as the test deployment signs. */
export async function bearerFor(who: Principal): Promise<Record<string, string>> {
  const token = await mintSession(who, TEST_SESSION_SECRET, {
    issuer: TEST_SESSION_ISSUER,
    ttlSeconds: 300,
    now: new Date(),
  });
  return { authorization: `Bearer ${token}` };
}

/** The `authorization` header of a fresh session of acme's olivia with `roles`. */
export function oliviaAs(...roles: string[]): Promise<Record<string, string>> {
  return bearerFor({ subject: 'olivia', tenant: 'acme', roles });
}
