/**
 * Where a process finds its infrastructure, and the names it uses there: Kafka brokers (its
 * identity is in `kafka-security.ts`), the schema registry, Redis, and the prefixes of topics,
 * Redis keys and consumer groups.
 */
import type { VariableTable } from './variable-spec.js';

const NAME_PART = { pattern: '^[A-Za-z0-9._-]*$', maxLength: 100 } as const;

/** TOOLGATE_KAFKA_BROKERS. */
export const KAFKA_VARIABLES = {
  KAFKA_BROKERS: {
    key: 'kafkaBrokers',
    kind: 'list',
    default: ['127.0.0.1:9092'],
    schema: { hostPort: true },
    description: 'Kafka bootstrap brokers, comma-separated `host:port` (port 1–65535).',
  },
} as const satisfies VariableTable;

/** TOOLGATE_SCHEMA_REGISTRY_URL. */
export const REGISTRY_VARIABLES = {
  SCHEMA_REGISTRY_URL: {
    key: 'schemaRegistryUrl',
    kind: 'string',
    default: 'http://127.0.0.1:8081/apis/ccompat/v7',
    schema: { pattern: '^https?://\\S+$' },
    description: "Confluent-compatible schema registry API (Apicurio's `/apis/ccompat/v7`).",
  },
} as const satisfies VariableTable;

/** TOOLGATE_REDIS_URL. */
export const REDIS_VARIABLES = {
  REDIS_URL: {
    key: 'redisUrl',
    kind: 'string',
    default: 'redis://127.0.0.1:6379',
    schema: { pattern: '^rediss?://\\S+$' },
    description:
      'Redis for idempotency records, confirmations and counters: `redis[s]://[user:pass@]host:port[/db]`. ' +
      'For a Redis Cluster list two or more of its nodes, comma-separated ' +
      '(`redis://user:pass@h1:p1,h2:p2,h3:p3`, database 0 only): the store then shards its sweeper indexes ' +
      'across slots. A store keeps the layout it was written with: move data between the two by draining it.',
  },
} as const satisfies VariableTable;

/** The prefixes that keep installations (and test files) apart on one Kafka and one Redis. */
export const PREFIX_VARIABLES = {
  TOPIC_PREFIX: {
    key: 'topicPrefix',
    kind: 'string',
    default: '',
    schema: NAME_PART,
    description:
      'Prepended to every topic name (`toolgate.proposals` → `<prefix>toolgate.proposals`).',
  },
  REDIS_PREFIX: {
    key: 'redisPrefix',
    kind: 'string',
    default: 'toolgate:',
    schema: { pattern: '^[^{}\\s]*$', maxLength: 100 },
    description: 'Prepended to every Redis key. No braces: they would capture the tenant hash tag.',
  },
  GROUP_PREFIX: {
    key: 'groupPrefix',
    kind: 'string',
    default: '',
    schema: NAME_PART,
    description: 'Prepended to every consumer group (`toolgate.<stage>`) and transactional id.',
  },
} as const satisfies VariableTable;

/**
 * True for a broker address as TOOLGATE_KAFKA_BROKERS takes it: `host:port`, no whitespace, colon
 * or comma in the host, and a port from 1 to 65535.
 */
export function isHostPort(text: string): boolean {
  const port = /^[^\s:,]+:([0-9]{1,5})$/.exec(text)?.[1];
  return port !== undefined && Number(port) >= 1 && Number(port) <= 65_535;
}
