/**
 * The stack's addresses as the global setup provides them to every integration test file, and
 * clients for them that keep their noise out of the test output. The stack is secured: every
 * client connects as a principal of the stack (`admin`, the super user, unless a test says which),
 * with the password `stack:up` made for it under `.stack/secrets/`.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import kafkajs, { type Kafka } from 'kafkajs';
import type { Redis } from 'ioredis';
import { inject } from 'vitest';
import { redisTarget, type KafkaSecurity } from '@toolgate/platform';
import { STACK_SASL_MECHANISM } from '../../infra/kafka.js';
import { REDIS_ADMIN, REDIS_GATE_USER, redisUrlAs } from '../../infra/redis.js';
import {
  loadStackConfig,
  type StackAddresses,
  type StackConfig,
} from '../../infra/stack-config.js';
import { stackEnv } from '../../infra/stack-env.js';
import { STACK_ADMIN } from '../../infra/stack-principals.js';
import { gateKeys, kafkaPassword, type GateKeys } from '../../infra/stack-secrets.js';
import { redisAt } from './redis-at.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the stack the global setup brought up (or found) answers. */
    stack: StackAddresses;
  }
}

const { Kafka: KafkaClient, logLevel } = kafkajs;

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The addresses of the stack under test. `redisUrl` carries the gate's Redis user: what a stage
 * connects with (a worker gets a user of its own, {@link redisClient} the super user).
 */
export function stackAddresses(): StackAddresses {
  const stack = inject('stack');
  return { ...stack, redisUrl: redisUrlAs(stackConfig(), REDIS_GATE_USER) };
}

/** The stack's configuration, for its secrets (passwords and keys under `.stack/secrets/`). */
export function stackConfig(): StackConfig {
  return loadStackConfig(process.env, REPO_ROOT);
}

/** Is the stack's Redis a Redis Cluster (its URL lists several nodes)? */
export function onRedisCluster(): boolean {
  return redisTarget(inject('stack').redisUrl).nodes.length > 1;
}

/** The SCRAM identity of one principal of the stack. */
export function identity(principal: string = STACK_ADMIN): KafkaSecurity {
  return {
    sasl: {
      mechanism: STACK_SASL_MECHANISM,
      username: principal,
      password: kafkaPassword(stackConfig(), principal),
    },
  };
}

/** The `TOOLGATE_*` variables of a principal of the stack (its identity, Redis user and keys). */
export function principalEnv(principal: string): Readonly<Record<string, string>> {
  const env = stackEnv(stackConfig(), principal);
  if (env === undefined) throw new Error(`the stack has no principal ${principal}`);
  return env;
}

/** The stack's gate keys (integrity, command, observation). */
export function stackGateKeys(): GateKeys {
  return gateKeys(stackConfig());
}

/** A kafkajs client for the stack as `principal` (default the super user), silent. */
export function kafkaClient(clientId: string, principal: string = STACK_ADMIN): Kafka {
  return new KafkaClient({
    clientId,
    brokers: [...stackAddresses().kafkaBrokers],
    logLevel: logLevel.NOTHING,
    sasl: {
      mechanism: 'scram-sha-512',
      username: principal,
      password: kafkaPassword(stackConfig(), principal),
    },
  });
}

/** The URL of the stack's Redis as its super user. */
export function redisAdminUrl(): string {
  return redisUrlAs(stackConfig(), REDIS_ADMIN);
}

/**
 * An ioredis client for the stack as its super user, that fails fast instead of queueing. On a
 * cluster (a Redis URL listing several nodes) a `Cluster`, typed as the commands tests run on it.
 */
export function redisClient(): Redis {
  return redisAt(redisAdminUrl(), { maxRetriesPerRequest: 1 });
}
