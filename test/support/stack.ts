/**
 * The stack's addresses as the global setup provides them to every integration test file, and
 * clients for them that keep their noise out of the test output.
 */
import kafkajs, { type Kafka } from 'kafkajs';
import { Redis } from 'ioredis';
import { inject } from 'vitest';
import type { StackAddresses } from '../../infra/stack-config.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the stack the global setup brought up (or found) answers. */
    stack: StackAddresses;
  }
}

const { Kafka: KafkaClient, logLevel } = kafkajs;

/** The addresses of the stack under test. */
export function stackAddresses(): StackAddresses {
  return inject('stack');
}

/** A kafkajs client for the stack, silent (tests assert on outcomes, not on client logs). */
export function kafkaClient(clientId: string): Kafka {
  return new KafkaClient({
    clientId,
    brokers: [...stackAddresses().kafkaBrokers],
    logLevel: logLevel.NOTHING,
  });
}

/** An ioredis client for the stack that fails fast instead of queueing while disconnected. */
export function redisClient(): Redis {
  const redis = new Redis(stackAddresses().redisUrl, { maxRetriesPerRequest: 1 });
  return redis;
}
