/**
 * The one connection to Redis (its ioredis client made by redis-client.ts; lint keeps ioredis inside
 * this folder: scripts/lint/boundaries.js): every store module of this folder (records, pending
 * commands, confirmations, counters, the ledger, objects) runs its commands through it. It fails
 * fast with a Fault while Redis cannot be reached, never hanging.
 */
import type { StoreScript } from './load-script.js';
import { openRedisClient, redisTarget, type RedisClient } from './redis-client.js';
import { faultOf, unavailable } from './store-faults.js';
import { storeKeys, type StoreKeys } from './store-keys.js';

/** Default bound on connecting and on each command, in milliseconds. */
export const DEFAULT_STORE_TIMEOUT_MS = 2000;

/** The logger calls the connection makes (a pino logger fits). */
export interface StoreLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** Options of {@link connectRedis}. */
export interface RedisConnectionOptions {
  /**
   * `redis[s]://[user:pass@]host:port[/db]` (TOOLGATE_REDIS_URL); several `host:port`, comma
   * separated, for a Redis Cluster (see {@link redisTarget}).
   */
  readonly url: string;
  /** Prefix of every key (TOOLGATE_REDIS_PREFIX); no braces. */
  readonly prefix: string;
  /** Connection state changes are logged here (an outage once, its end once). */
  readonly logger?: StoreLogger;
  /** CLIENT SETNAME of the connection, for `CLIENT LIST`. */
  readonly connectionName?: string;
  /** Bound on connecting, on waiting for the connection, and on each command; ms. Default 2000. */
  readonly timeoutMs?: number;
  /**
   * Told of every operation once it settles: its name, how long the caller waited (a wait for the
   * connection included) and whether it succeeded. What it throws is ignored.
   */
  readonly observe?: (op: string, seconds: number, ok: boolean) => void;
}

/**
 * A connection under one key prefix. Every operation rejects with a Fault when Redis fails. An
 * operation's command is queued before the call returns (once connected; while connecting, the
 * waiting ones go out in call order), so Redis runs operations in the order they were called,
 * without waiting for each other's replies.
 */
export interface RedisConnection {
  /** The key layout in use: the cluster layout when the URL lists several nodes. */
  readonly keys: StoreKeys;
  /** Resolves when Redis answers PING. */
  ping(): Promise<void>;
  /** Closes the connection; idempotent. Later operations fail with a retriable fault. */
  close(): Promise<void>;
  /** Runs operation `op` (its name in faults and metrics); for the store modules of this folder. */
  run<T>(op: string, fn: (redis: RedisClient) => Promise<T>): Promise<T>;
  /** Runs a script with EVALSHA (EVAL when Redis does not know it yet); for the store modules. */
  script(
    s: StoreScript,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown>;
}

/**
 * Connects to Redis (the connection starts at once). Commands issued while the connection is
 * (re)opening wait for it up to `timeoutMs`; while Redis is down they fail within that bound with
 * a retriable `redis_unavailable` fault, and work again once it is back (reconnects back off from
 * 200 ms, doubling, capped at 2 s).
 *
 * @throws RangeError for a prefix with braces (see {@link storeKeys}) or a malformed URL (see
 *   {@link redisTarget}).
 */
export function connectRedis(options: RedisConnectionOptions): RedisConnection {
  const cluster = redisTarget(options.url).nodes.length > 1;
  const keys = storeKeys(options.prefix, { cluster });
  const timeoutMs = options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  const redis = openRedisClient(options.url, {
    timeoutMs,
    ...(options.connectionName === undefined ? {} : { connectionName: options.connectionName }),
  });
  const waiters = new Set<(ok: boolean) => void>();
  watchHealth(redis, options.logger, waiters);
  let closing: Promise<void> | undefined;

  const attempt = async <T>(op: string, fn: (r: RedisClient) => Promise<T>): Promise<T> => {
    if (closing !== undefined) throw unavailable(op, 'the store is closed');
    // Connected, the command is queued within this call, so operations go out in call order.
    if (redis.status !== 'ready') await whenReady(redis, waiters, timeoutMs, op);
    try {
      return await fn(redis);
    } catch (error) {
      throw faultOf(error, op);
    }
  };
  const run = observed(attempt, options.observe);
  return {
    keys,
    ping: () => run('ping', async (r) => void (await r.ping())),
    close: () => (closing ??= closeRedis(redis, waiters)),
    run,
    script: (s, scriptKeys, args) => run(s.name, (r) => evalScript(r, s, scriptKeys, args)),
  };
}

/** `attempt`, telling `observe` (when given) of each operation once it settles. */
function observed(
  attempt: RedisConnection['run'],
  observe: RedisConnectionOptions['observe'],
): RedisConnection['run'] {
  if (observe === undefined) return attempt;
  return async (op, fn) => {
    const started = performance.now();
    let ok = false;
    try {
      // Called within this call: the command is still queued in call order.
      const value = await attempt(op, fn);
      ok = true;
      return value;
    } finally {
      try {
        observe(op, (performance.now() - started) / 1000, ok);
      } catch {
        // A metric must not change an answer from Redis, nor turn a fault into another.
      }
    }
  };
}

function watchHealth(
  redis: RedisClient,
  logger: StoreLogger | undefined,
  waiters: Set<(ok: boolean) => void>,
): void {
  let healthy = true;
  const wakeAll = (ok: boolean) => {
    for (const wake of waiters) wake(ok);
  };
  redis.on('ready', () => {
    if (!healthy) logger?.info({ event: 'redis_ready' }, 'redis connection restored');
    healthy = true;
    wakeAll(true);
  });
  // Without a listener ioredis would crash the process on a connection error.
  redis.on('error', (error: Error) => {
    if (healthy) logger?.warn({ event: 'redis_error', err: error }, 'redis connection failed');
    healthy = false;
  });
  // A failed attempt answers the commands waiting for it at once: Redis is down, say so.
  redis.on('close', () => wakeAll(false));
}

/** States in which a connection attempt is under way and worth waiting for. */
const OPENING = new Set(['wait', 'connecting', 'connect']);

/** Waits for the connection to be ready, at most `timeoutMs`. */
async function whenReady(
  redis: RedisClient,
  waiters: Set<(ok: boolean) => void>,
  timeoutMs: number,
  op: string,
): Promise<void> {
  if (redis.status === 'ready') return;
  if (!OPENING.has(redis.status)) throw unavailable(op, `not connected (${redis.status})`);
  const ok = await new Promise<boolean>((resolve) => {
    const wake = (value: boolean) => {
      clearTimeout(timer);
      waiters.delete(wake);
      resolve(value);
    };
    const timer = setTimeout(() => wake(false), timeoutMs);
    waiters.add(wake);
  });
  if (!ok) throw unavailable(op, `not connected (${redis.status}) after ${timeoutMs} ms`);
}

async function closeRedis(redis: RedisClient, waiters: Set<(ok: boolean) => void>): Promise<void> {
  for (const wake of waiters) wake(false);
  if (redis.status !== 'ready') {
    redis.disconnect();
    return;
  }
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}

/** EVALSHA, loading the script with EVAL when Redis does not know it yet. */
async function evalScript(
  redis: RedisClient,
  s: StoreScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  try {
    return await redis.evalsha(s.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return redis.eval(s.lua, keys.length, ...keys, ...args);
  }
}
