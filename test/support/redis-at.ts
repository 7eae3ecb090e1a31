/**
 * An ioredis client for a URL of the stack's Redis, whatever its shape: one server, or the nodes of
 * a Redis Cluster (`redis://user:pass@h1:p1,h2:p2,…`, read by the platform's `redisTarget`), which
 * a plain `new Redis(url)` cannot connect to. Free of vitest, so child processes use it too.
 */
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { redisTarget } from '@toolgate/platform';

/**
 * A client of `url` with `options` on each connection: a `Cluster` when the URL lists several
 * nodes, typed as the single-server commands tests run on it (the ones on one key, or on keys
 * that share a hash tag, behave the same on both).
 */
export function redisAt(url: string, options: RedisOptions = {}): Redis {
  const target = redisTarget(url);
  if (target.nodes.length === 1) return new Redis(url, options);
  const { username, password } = target;
  const credentials = { ...(username && { username }), ...(password && { password }) };
  const cluster = new Cluster([...target.nodes], {
    redisOptions: { ...credentials, ...options },
  });
  return cluster as unknown as Redis;
}
