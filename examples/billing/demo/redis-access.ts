/**
 * The demo's raw Redis command, which the gate's store adapter has no business offering: trying a
 * write that a user's ACL rules should refuse. Every connection fails fast instead of queueing.
 */
import { redisTarget } from '@toolgate/platform';
import { withRedis } from '../../../infra/redis.js';

/** What a write attempt came to. */
export type WriteAttempt =
  { readonly written: false; readonly error: string } | { readonly written: true };

/**
 * Tries `SET key` as the user of `url`: the error Redis answered (e.g. `NOPERM …`), or written
 * (the key is then deleted again, as far as that user may).
 */
export async function tryWrite(url: string, key: string): Promise<WriteAttempt> {
  return withRedis(url, async (redis) => {
    try {
      await redis.set(key, 'walk-around', 'EX', 60);
    } catch (error) {
      return { written: false, error: error instanceof Error ? error.message : String(error) };
    }
    await redis.del(key).catch(() => 0);
    return { written: true };
  });
}

/**
 * The user name in a `redis://user:password@host:port` URL, or a cluster's
 * (`redis://user:password@h1:p1,h2:p2,…`); `default` when none.
 */
export function redisUserOf(url: string): string {
  return redisTarget(url).username ?? 'default';
}
