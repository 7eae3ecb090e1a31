/**
 * Is the local stack up? Asks Kafka, Redis and the registry once each, briefly, and reports every
 * one that does not answer in one message that says how to start it.
 */
import { Redis } from 'ioredis';
import type { Bus } from '@toolgate/platform';

/** Where the stack answers. */
export interface StackAddresses {
  readonly kafkaBrokers: readonly string[];
  readonly redisUrl: string;
  readonly registryUrl: string;
}

/** The stack as the gate's own defaults (docs/configuration.md) and TOOLGATE_* name it. */
export function stackAddresses(env: Readonly<Record<string, string | undefined>>): StackAddresses {
  const or = (name: string, fallback: string) => {
    const v = env[name];
    return v === undefined || v === '' ? fallback : v;
  };
  return {
    kafkaBrokers: or('TOOLGATE_KAFKA_BROKERS', '127.0.0.1:9092').split(','),
    redisUrl: or('TOOLGATE_REDIS_URL', 'redis://127.0.0.1:6379'),
    registryUrl: or('TOOLGATE_SCHEMA_REGISTRY_URL', 'http://127.0.0.1:8081/apis/ccompat/v7'),
  };
}

async function redisAnswers(url: string): Promise<void> {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    lazyConnect: true,
    retryStrategy: () => null,
  });
  // ioredis reports the cause on its error event and rejects with "Connection is closed".
  let cause: Error | undefined;
  redis.on('error', (error: Error) => (cause = error));
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw cause ?? error;
  } finally {
    redis.disconnect();
  }
}

async function registryAnswers(url: string): Promise<void> {
  const response = await fetch(`${url}/subjects?limit=1`, { signal: AbortSignal.timeout(3_000) });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
}

/** Resolves when all three answer; throws one Error naming each that does not. */
export async function probeStack(stack: StackAddresses, bus: Bus): Promise<void> {
  const checks: [string, Promise<unknown>][] = [
    [`Kafka at ${stack.kafkaBrokers.join(',')}`, bus.latestOffsets('__consumer_offsets')],
    [`Redis at ${stack.redisUrl}`, redisAnswers(stack.redisUrl)],
    [`the schema registry at ${stack.registryUrl}`, registryAnswers(stack.registryUrl)],
  ];
  const settled = await Promise.allSettled(checks.map(([, p]) => p));
  const down = settled.flatMap((s, i) =>
    s.status === 'rejected'
      ? [`${checks[i]?.[0]}: ${s.reason instanceof Error ? s.reason.message : String(s.reason)}`]
      : [],
  );
  if (down.length > 0)
    throw new Error(
      `the local stack is not up:\n  - ${down.join('\n  - ')}\nStart it with \`npm run stack:up\` (see \`npm run stack:status\`).`,
    );
}
