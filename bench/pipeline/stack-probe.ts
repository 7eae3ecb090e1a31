/**
 * Is the local stack up? Asks Kafka, Redis and the registry once each, briefly, as the stack's
 * admin (the stack is secured: no client of the benchmark connects anonymously), and reports every
 * one that does not answer in one message that says how to start it.
 */
import { Redis } from 'ioredis';
import type { Bus } from '@toolgate/platform';
import { addressOf, type StackConfig } from '../../infra/stack-config.js';
import { adminRedisUrl } from '../../infra/provision.js';

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

/**
 * Resolves when all three answer; throws one Error naming each that does not. `bus` is the
 * admin's; Redis is asked as its admin user.
 */
export async function probeStack(config: StackConfig, bus: Bus): Promise<void> {
  const checks: [string, Promise<unknown>][] = [
    [`Kafka at ${addressOf(config, 'kafka')}`, bus.latestOffsets('__consumer_offsets')],
    [`Redis at ${addressOf(config, 'redis')}`, redisAnswers(adminRedisUrl(config))],
    [
      `the schema registry at ${addressOf(config, 'registry')}`,
      registryAnswers(config.addresses.schemaRegistryUrl),
    ],
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
