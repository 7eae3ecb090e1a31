/**
 * The ioredis client behind a store connection: one Redis server, or a Redis Cluster when the URL
 * lists several nodes (`redis://user:pass@h1:p1,h2:p2,h3:p3`). Only this folder imports ioredis.
 */
import { Cluster, Redis, type RedisOptions } from 'ioredis';

/** The port of a node named without one. */
const DEFAULT_PORT = 6379;

/** A client of one server or of a cluster: the commands the store modules run exist on both. */
export type RedisClient = Redis | Cluster;

/** Where {@link redisTarget} says to connect. */
export interface RedisTarget {
  /** Each node as `host` and `port`; two or more mean a cluster. */
  readonly nodes: readonly { readonly host: string; readonly port: number }[];
  readonly username?: string;
  readonly password?: string;
  /** The database number (only 0 in a cluster). */
  readonly db: number;
  /** True for `rediss://`. */
  readonly tls: boolean;
}

/**
 * Reads a TOOLGATE_REDIS_URL: `redis[s]://[user:pass@]host[:port][,host[:port]…][/db]` (port 6379 when
 * left out). Several nodes
 * name the seeds of a Redis Cluster, whose other nodes the client discovers.
 *
 * @throws RangeError naming the problem for a URL that is not of that form, or that names a
 *   database other than 0 for a cluster (a cluster has only database 0).
 */
export function redisTarget(url: string): RedisTarget {
  const match = /^(rediss?):\/\/(?:([^@/]*)@)?([^/@]+?)(?:\/(\d+))?\/?$/.exec(url);
  if (match === null) throw new RangeError('Redis URL must be redis[s]://[user:pass@]host:port…');
  const [, scheme, auth, hosts = '', db = '0'] = match;
  const nodes = hosts.split(',').map(nodeOf);
  if (nodes.length > 1 && db !== '0') {
    throw new RangeError('a Redis Cluster has only database 0: drop the /db of the URL');
  }
  return { nodes, ...credentialsOf(auth), db: Number(db), tls: scheme === 'rediss' };
}

function nodeOf(text: string): { host: string; port: number } {
  const match = /^([^\s:,]+|\[[0-9a-fA-F:]+\])(?::(\d{1,5}))?$/.exec(text);
  const port = Number(match?.[2] ?? DEFAULT_PORT);
  if (match?.[1] === undefined || port < 1 || port > 65_535) {
    throw new RangeError(`Redis node ${JSON.stringify(text)} must be host[:port] (port 1–65535)`);
  }
  return { host: match[1].replace(/^\[|\]$/g, ''), port };
}

function credentialsOf(auth: string | undefined): { username?: string; password?: string } {
  if (auth === undefined || auth === '') return {};
  const colon = auth.indexOf(':');
  const user = decodeURIComponent(colon < 0 ? auth : auth.slice(0, colon));
  const password = colon < 0 ? undefined : decodeURIComponent(auth.slice(colon + 1));
  return {
    ...(user === '' ? {} : { username: user }),
    ...(password === undefined ? {} : { password }),
  };
}

/** How {@link openRedisClient} bounds and names its connections. */
export interface RedisClientOptions {
  /** Bound on connecting and on each command, ms. */
  readonly timeoutMs: number;
  readonly connectionName?: string;
}

/**
 * A client for `url` that starts connecting at once: a `Redis.Cluster` when the URL lists several
 * nodes, else one `Redis`. Commands fail fast while the store cannot be reached (the connection
 * module waits for readiness itself) and reconnects back off from 200 ms, doubling, to 2 s.
 */
export function openRedisClient(url: string, options: RedisClientOptions): RedisClient {
  const target = redisTarget(url);
  const node: RedisOptions = {
    ...(target.username === undefined ? {} : { username: target.username }),
    ...(target.password === undefined ? {} : { password: target.password }),
    ...(target.tls ? { tls: {} } : {}),
    ...(options.connectionName === undefined ? {} : { connectionName: options.connectionName }),
    connectTimeout: options.timeoutMs,
    commandTimeout: options.timeoutMs,
    maxRetriesPerRequest: 1,
  };
  const backoff = (times: number) => Math.min(100 * 2 ** Math.min(times, 5), 2000);
  const [first] = target.nodes;
  if (target.nodes.length > 1 || first === undefined) {
    return new Cluster([...target.nodes], {
      redisOptions: node,
      enableOfflineQueue: false,
      enableAutoPipelining: true,
      clusterRetryStrategy: backoff,
      // During a failover the slots of the dead primary answer nothing, then CLUSTERDOWN, then
      // MOVED to the promoted replica: retry those within the command's bound.
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 200,
      retryDelayOnTryAgain: 100,
      slotsRefreshTimeout: options.timeoutMs,
    });
  }
  return new Redis({
    ...node,
    host: first.host,
    port: first.port,
    db: target.db,
    enableOfflineQueue: false,
    // Commands issued in the same tick (the facts of one message, the messages of a chunk handled
    // side by side) go out in one write and come back in one read.
    enableAutoPipelining: true,
    retryStrategy: backoff,
    // After a failover the old primary answers READONLY: reconnect and resend.
    reconnectOnError: (error) => error.message.startsWith('READONLY'),
  });
}
