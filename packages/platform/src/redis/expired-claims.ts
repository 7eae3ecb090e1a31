/**
 * What the two sweepers (the deadline sweeper of pending commands, the expiry sweeper of
 * confirmations) claim from their indexes, and how a claim script's reply is read.
 */
import type { RedisConnection } from './redis-connection.js';
import { corrupt } from './store-faults.js';
import { checkCount, decode } from './stored-json.js';

/** Most entries a sweeper claim or a listing returns at once. */
export const MAX_BATCH = 1000;

/**
 * What a sweep claimed: the entries it can end, and those whose JSON the gate cannot read (written
 * by another version, or damaged). These leave the index at once, so that they do not come back
 * after every lease and fail each sweep they are in; their JSON stays until its TTL, for a person.
 */
export interface ExpiredClaim<T> {
  readonly claimed: readonly T[];
  /** Each unreadable entry's index member (a command id; a confirmation's tag and id) and why. */
  readonly unreadable: readonly { readonly member: string; readonly problem: string }[];
}

/**
 * A claim script's arguments: now, the lease's end, the limit and a key prefix.
 *
 * @throws RangeError for a negative `nowMs`, a lease under 1 ms or a limit outside 1 to
 *   {@link MAX_BATCH}.
 */
export function claimArgs(nowMs: number, leaseMs: number, limit: number, prefix: string) {
  checkCount('now (ms)', nowMs, 0);
  checkCount('lease (ms)', leaseMs, 1);
  checkCount('limit', limit, 1, MAX_BATCH);
  return [nowMs, nowMs + leaseMs, limit, prefix];
}

/**
 * Reads a claim script's `{member, json, …}` reply from `index`. An entry whose JSON is not a `what`
 * leaves the index here (one more round trip, only then) and is reported rather than thrown: one
 * such entry would otherwise fail every sweep it is claimed in, and hold back the rest of its batch.
 */
export async function readClaim<T>(
  conn: RedisConnection,
  index: string,
  reply: unknown,
  what: string,
  isT: (v: unknown) => v is T,
): Promise<ExpiredClaim<T>> {
  const flat = strings(reply, index);
  if (flat.length % 2 !== 0) throw corrupt('claim reply', index);
  const claimed: T[] = [];
  const unreadable: { member: string; problem: string }[] = [];
  for (let i = 0; i < flat.length; i += 2) {
    const member = flat[i] as string;
    try {
      claimed.push(decode(flat[i + 1] as string, what, `${index} (${member})`, isT));
    } catch (error) {
      unreadable.push({ member, problem: problemOf(error) });
    }
  }
  if (unreadable.length > 0) {
    const members = unreadable.map((u) => u.member);
    await conn.run('drop_unreadable', (r) => r.zrem(index, ...members));
  }
  return { claimed, unreadable };
}

/** The claims of several index shards as one. */
export function mergedClaims<T>(claims: readonly ExpiredClaim<T>[]): ExpiredClaim<T> {
  return {
    claimed: claims.flatMap((c) => c.claimed),
    unreadable: claims.flatMap((c) => c.unreadable),
  };
}

function problemOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
}

function strings(reply: unknown, key: string): string[] {
  const list: unknown[] = Array.isArray(reply) ? reply : [null];
  if (!list.every((x): x is string => typeof x === 'string')) throw corrupt('script reply', key);
  return list;
}
