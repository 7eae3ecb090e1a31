/**
 * The Redis component: `redis-server` on the loopback address, keeping nothing on disk (tests own
 * their key prefixes), with ACL users and no default user: `admin` for the stack itself, the
 * gate's user for the stages, and one user per tool worker that may touch only its ledger and the
 * objects its tools change (never pending confirmations, idempotency records or counters).
 */
import path from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { redisTarget } from '@toolgate/platform';
import { requireTool } from './java.js';
import { spawnDetached, type StartedProcess } from './processes.js';
import type { StackConfig } from './stack-config.js';
import { redisPassword, writeSecretFile } from './stack-secrets.js';
import type { Attempt } from './wait.js';

/** The stack's Redis super user. */
export const REDIS_ADMIN = 'admin';

/** The Redis user of the gate's stages. */
export const REDIS_GATE_USER = 'toolgate-gate';

/** The Redis user of the example's tool worker. */
export const REDIS_WORKER_USER = 'worker-billing';

/**
 * What the gate's stages may do: every key (their prefix is configuration), every command but
 * those that administer or wipe the server (`@admin`, `@dangerous`); INFO stays, as clients ask
 * for it when they connect.
 */
export const GATE_REDIS_RULES = ['~*', '&*', '+@all', '-@admin', '-@dangerous', '+info'] as const;

/**
 * What a tool worker may do: read and write its ledger and the objects of `prefix` only. A key
 * pattern anchored at the prefix: a pattern such as `*ledger:*` would also match a counter whose
 * run id a client chose to contain `ledger:`.
 */
export function workerRedisRules(prefix: string): readonly string[] {
  return [
    `~${prefix}ledger:{*`,
    `~${prefix}obj:{*`,
    'resetchannels',
    '+@all',
    '-@admin',
    '-@dangerous',
    '-@pubsub',
    '+info',
  ];
}

/** The URL of the stack's Redis as `user`, password included. */
export function redisUrlAs(config: StackConfig, user: string): string {
  return redisUrlWith(config.addresses.redisUrl, user, redisPassword(config, user));
}

/**
 * `url` (one server's, or a cluster's `redis://h1:p1,h2:p2`) with `user` and `password` in place
 * of its credentials.
 */
export function redisUrlWith(url: string, user: string, password: string): string {
  const [, scheme = 'redis', rest = ''] = /^(\w+):\/\/(?:[^@/]*@)?(.*)$/.exec(url) ?? [];
  const auth = `${encodeURIComponent(user)}:${encodeURIComponent(password)}`;
  return `${scheme}://${auth}@${rest.replace(/\/$/, '')}`;
}

/** One URL per node of `url` (a cluster's lists several), each with the credentials of `url`. */
export function redisNodeUrls(url: string): string[] {
  const [, head = '', hosts = '', tail = ''] =
    /^(\w+:\/\/(?:[^@/]*@)?)([^/]*)(.*)$/.exec(url) ?? [];
  return hosts.split(',').map((host) => `${head}${host}${tail}`);
}

/**
 * {@link withRedis} on every node of `url` in turn (one for a single server): for ACL changes,
 * which each node of a cluster keeps for itself. Answers the first node's result.
 */
export async function withEveryRedisNode<T>(
  url: string,
  work: (redis: Redis) => Promise<T>,
): Promise<T> {
  const [first, ...others] = redisNodeUrls(url);
  const answer = await withRedis(first ?? url, work);
  for (const node of others) await withRedis(node, work);
  return answer;
}

/**
 * Writes a node's users to its ACL file (ACL SAVE): a user made at run time lives in memory only,
 * and a node restarted from its ACL file would refuse it (WRONGPASS) once it serves again. A
 * server started without an ACL file refuses the save; its users are its operator's to keep.
 */
export async function saveAcl(redis: Redis): Promise<void> {
  try {
    await redis.call('ACL', 'SAVE');
  } catch (error) {
    if (!/not configured to use an ACL file/i.test(String(error))) throw error;
  }
}

/** The ACL file a started server loads: the default user off, the stack's users on. */
export function aclFile(config: StackConfig): string {
  return aclText((user) => redisPassword(config, user));
}

/**
 * The stack's ACL users (the default user off; `admin`, the gate's and the worker's users on),
 * each with the password `passwordOf` gives it: the text of an ACL file.
 */
export function aclText(passwordOf: (user: string) => string): string {
  const user = (name: string, rules: readonly string[]) =>
    `user ${name} on >${passwordOf(name)} ${rules.join(' ')}`;
  return [
    'user default off',
    user(REDIS_ADMIN, ['~*', '&*', '+@all']),
    user(REDIS_GATE_USER, GATE_REDIS_RULES),
    user(REDIS_WORKER_USER, workerRedisRules('toolgate:')),
    '',
  ].join('\n');
}

/** The log of a `redis-server` that `stack:up` started. */
export function redisLog(config: StackConfig): string {
  return path.join(config.logDir, 'redis.log');
}

/**
 * Does Redis at `url` answer PING with PONG? A URL listing a cluster's nodes (an external cluster
 * given by TOOLGATE_REDIS_URL) is probed as a cluster ({@link probeRedisCluster}).
 */
export async function probeRedis(url: string): Promise<Attempt> {
  if (redisNodeUrls(url).length > 1) return probeRedisCluster(url);
  const redis = failFast(url, 2_000);
  try {
    await redis.connect();
    const pong: string = await redis.ping();
    return pong === 'PONG' ? { ready: true } : { ready: false, why: `PING answered ${pong}` };
  } catch (error) {
    return { ready: false, why: error instanceof Error ? error.message : String(error) };
  } finally {
    redis.disconnect();
  }
}

/**
 * Runs one command (e.g. `['CLUSTER', 'INFO']`) on the Redis at `url`, failing fast: its reply, or
 * undefined when the server cannot be reached or refuses. For probing a node that may be down.
 */
export async function askRedis(url: string, command: readonly string[]): Promise<unknown> {
  const redis = failFast(url, 1_000);
  try {
    await redis.connect();
    const [name = 'PING', ...args] = command;
    return await redis.call(name, ...args);
  } catch {
    return undefined;
  } finally {
    redis.disconnect();
  }
}

/** A client for one probe: connects on demand, never retries or queues, errors only thrown. */
function failFast(url: string, commandTimeoutMs: number): Redis {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1_000,
    commandTimeout: commandTimeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  return redis;
}

/** Does the Redis Cluster at `url` (its first node) report `cluster_state:ok`? */
export async function probeRedisCluster(url: string): Promise<Attempt> {
  const [first = url] = redisNodeUrls(url);
  const info = await askRedis(first, ['CLUSTER', 'INFO']);
  if (typeof info !== 'string')
    return { ready: false, why: `no answer from ${withoutAuth(first)}` };
  const state = /cluster_state:(\w+)/.exec(info)?.[1];
  return state === 'ok' ? { ready: true } : { ready: false, why: `cluster_state ${state}` };
}

function withoutAuth(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//');
}

/** Checks what starting Redis needs (`redis-server` on PATH) before anything is started. */
export function preflightRedis(config: StackConfig): void {
  requireTool(
    'redis',
    'redis-server',
    'install Redis 7, or point TOOLGATE_REDIS_URL at one',
    config.env,
  );
}

/** Starts `redis-server` on the loopback address, without persistence, with the stack's users. */
export function startRedis(config: StackConfig): StartedProcess {
  const server = requireTool(
    'redis',
    'redis-server',
    'install Redis 7, or point TOOLGATE_REDIS_URL at one',
    config.env,
  );
  const dir = path.join(config.stackDir, 'redis');
  const acl = path.join(dir, 'users.acl');
  writeSecretFile(acl, aclFile(config));
  return spawnDetached({
    command: server,
    args: [
      '--aclfile',
      acl,
      '--bind',
      config.host,
      '--port',
      String(config.ports.redis),
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--daemonize',
      'no',
    ],
    cwd: dir,
    logFile: redisLog(config),
    pidFile: path.join(config.runDir, 'redis.pid'),
    env: config.env,
  });
}

/**
 * Creates the gate's and the worker's users on the Redis at `adminUrl` (a user that may run ACL
 * SETUSER) where they do not exist yet; a user that exists is left as it is (its password may be
 * another stack directory's, or an operator's). For a Redis the stack did not start. Returns the
 * names of the users it created.
 */
export async function ensureRedisUsers(config: StackConfig, adminUrl: string): Promise<string[]> {
  return withEveryRedisNode(adminUrl, async (redis) => {
    const users: [string, readonly string[]][] = [
      [REDIS_GATE_USER, GATE_REDIS_RULES],
      [REDIS_WORKER_USER, workerRedisRules('toolgate:')],
    ];
    const created: string[] = [];
    for (const [user, rules] of users) {
      if ((await redis.call('ACL', 'GETUSER', user)) !== null) continue;
      const password = `>${redisPassword(config, user)}`;
      await redis.call('ACL', 'SETUSER', user, 'reset', 'on', password, ...rules);
      created.push(user);
    }
    if (created.length > 0) await saveAcl(redis);
    return created;
  });
}

/**
 * Runs `work` on a connection to the Redis at `url` that fails fast instead of queueing, and
 * closes it after: for the stack's few administrative commands (users, probes, clean-ups). A URL
 * listing a cluster's nodes gets a cluster client, which sends each command on one key to the
 * node that holds it; what each node keeps for itself (ACL users) goes through
 * {@link withEveryRedisNode} instead.
 */
export async function withRedis<T>(url: string, work: (redis: Redis) => Promise<T>): Promise<T> {
  const options = {
    lazyConnect: true,
    connectTimeout: 3_000,
    commandTimeout: 5_000,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
  } as const;
  const target = redisTarget(url);
  const { username, password } = target;
  const redis =
    target.nodes.length === 1
      ? new Redis(url, options)
      : // Typed as one server: the commands run through it are on one key.
        (new Cluster([...target.nodes], {
          lazyConnect: true,
          enableOfflineQueue: false,
          redisOptions: {
            ...options,
            ...(username && { username }),
            ...(password && { password }),
          },
        }) as unknown as Redis);
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await work(redis);
  } finally {
    redis.disconnect();
  }
}
