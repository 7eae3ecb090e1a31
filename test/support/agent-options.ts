/**
 * How a test's agent client reaches the gate: the stack's Kafka and schema registry, inside the
 * test file's namespace, signed in to Kafka as the agents of one tenant.
 */
import type { AgentClientOptions } from '@toolgate/agent-client';
import { agentPrincipal } from '@toolgate/platform';
import type { TestNamespace } from './namespace.js';
import { identity, stackAddresses, stackGateKeys } from './stack.js';

/** The options of a client of `tenant`'s agents in `ns`; the test adds the session. */
export function agentOptionsIn(
  ns: TestNamespace,
  tenant: string,
): Omit<AgentClientOptions, 'session'> {
  return {
    brokers: stackAddresses().kafkaBrokers,
    registryUrl: stackAddresses().schemaRegistryUrl,
    topicPrefix: `${ns.id}.`,
    groupPrefix: `${ns.id}.`,
    tenant,
    kafka: identity(agentPrincipal(tenant)),
    observationKeys: [stackGateKeys().observationPublicKey],
  };
}
