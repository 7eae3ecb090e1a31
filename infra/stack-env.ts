/**
 * The environment one component needs to run against the local stack as its own principal: its
 * Kafka identity, the registry, its Redis user, and the keys its role holds (and no others: a
 * worker never gets the integrity key, an agent never a private key). What
 * `npx toolgate stack env <principal>` prints, and what the demo, the benchmark and the tests
 * give each process they start.
 */
import {
  ANALYTICS_PRINCIPAL,
  CONSOLE_PRINCIPAL,
  EXAMPLE_TENANTS,
  EXAMPLE_WORKER,
  GATE_STAGE_NAMES,
  agentPrincipal,
  stagePrincipal,
} from '@toolgate/platform';
import { deriveToolKey } from '@toolgate/shared';
import { STACK_SASL_MECHANISM } from './kafka.js';
import { REDIS_ADMIN, REDIS_GATE_USER, REDIS_WORKER_USER, redisUrlAs } from './redis.js';
import type { StackConfig } from './stack-config.js';
import {
  BENCH_RELAY_PRINCIPAL,
  REGISTRY_PRINCIPAL,
  STACK_ADMIN,
  stackPrincipals,
} from './stack-principals.js';
import { gateKeys, kafkaPassword, kafkaPasswordFile } from './stack-secrets.js';

/** What a principal of the stack is for, in a few words (for `stack env --list`). */
export function roleOf(principal: string): string {
  const stage = GATE_STAGE_NAMES.find((s) => stagePrincipal(s) === principal);
  if (stage !== undefined) return `the ${stage} stage`;
  const tenant = EXAMPLE_TENANTS.find((t) => agentPrincipal(t) === principal);
  if (tenant !== undefined) return `agents of tenant ${tenant}`;
  if (principal === EXAMPLE_WORKER.principal) return "the example's tool worker (every tool)";
  if (principal === ANALYTICS_PRINCIPAL)
    return 'analytics: reads the audit topic, writes its window counts and alerts';
  if (principal === CONSOLE_PRINCIPAL) return 'approval UIs: reads confirmations, writes approvals';
  if (principal === STACK_ADMIN) return "the stack's super user, for administration only";
  if (principal === REGISTRY_PRINCIPAL) return 'the schema registry (its own topics only)';
  if (principal === BENCH_RELAY_PRINCIPAL) return "the benchmark's baseline relay";
  return 'unknown';
}

/** Every principal of the stack with its role, in the order the stack knows them. */
export function stackRoles(): readonly { readonly principal: string; readonly role: string }[] {
  return stackPrincipals().map((principal) => ({ principal, role: roleOf(principal) }));
}

/**
 * The `TOOLGATE_*` variables of `principal` against the stack of `config`; undefined for a name
 * the stack does not know. The Kafka password is given as a file, never inline.
 */
export function stackEnv(
  config: StackConfig,
  principal: string,
): Readonly<Record<string, string>> | undefined {
  if (!stackPrincipals().includes(principal)) return undefined;
  kafkaPassword(config, principal);
  const base: Record<string, string> = {
    TOOLGATE_KAFKA_BROKERS: config.addresses.kafkaBrokers.join(','),
    TOOLGATE_KAFKA_SASL_MECHANISM: STACK_SASL_MECHANISM,
    TOOLGATE_KAFKA_USERNAME: principal,
    TOOLGATE_KAFKA_PASSWORD_FILE: kafkaPasswordFile(config, principal),
    TOOLGATE_SCHEMA_REGISTRY_URL: config.addresses.schemaRegistryUrl,
  };
  return { ...base, ...roleEnv(config, principal) };
}

function roleEnv(config: StackConfig, principal: string): Record<string, string> {
  const keys = gateKeys(config);
  const stage = GATE_STAGE_NAMES.find((s) => stagePrincipal(s) === principal);
  if (stage !== undefined) {
    return {
      TOOLGATE_REDIS_URL: redisUrlAs(config, REDIS_GATE_USER),
      TOOLGATE_INTEGRITY_KEY: keys.integrityKey,
      TOOLGATE_OBSERVATION_KEY: keys.observationKey,
      ...(stage === 'execute' ? { TOOLGATE_COMMAND_KEY: keys.commandKey } : {}),
    };
  }
  const tenant = EXAMPLE_TENANTS.find((t) => agentPrincipal(t) === principal);
  if (tenant !== undefined) {
    return { TOOLGATE_TENANT: tenant, TOOLGATE_OBSERVATION_PUBLIC_KEYS: keys.observationPublicKey };
  }
  if (principal === EXAMPLE_WORKER.principal) {
    return {
      TOOLGATE_REDIS_URL: redisUrlAs(config, REDIS_WORKER_USER),
      TOOLGATE_WORKER_NAME: EXAMPLE_WORKER.name,
      TOOLGATE_TOOL_KEYS: EXAMPLE_WORKER.tools
        .map((tool) => `${tool}:${deriveToolKey(keys.commandKey, tool)}`)
        .join(','),
    };
  }
  if (principal === STACK_ADMIN) return { TOOLGATE_REDIS_URL: redisUrlAs(config, REDIS_ADMIN) };
  return {};
}

/** `export NAME='value'` lines for a shell, one per variable. */
export function exportLines(env: Readonly<Record<string, string>>): string {
  return Object.entries(env)
    .map(([name, value]) => `export ${name}='${value.replaceAll("'", "'\\''")}'`)
    .join('\n');
}
