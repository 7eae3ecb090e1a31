/**
 * A Redis Cluster on the loopback address for tests and the stack: three primaries with one replica
 * each, made of the machine's `redis-server` and joined by `redis-cli --cluster create`, each node
 * with the stack's ACL users and nothing on disk but its cluster state. A primary can be killed and
 * started again, for failover tests.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { requireTool } from './java.js';
import {
  isRunning,
  readPidRecord,
  spawnDetached,
  stopFromPidFile,
  type StartedProcess,
  type StopOutcome,
} from './processes.js';
import { aclFile, askRedis, REDIS_ADMIN } from './redis.js';
import type { StackConfig } from './stack-config.js';
import { redisPassword, writeSecretFile } from './stack-secrets.js';

/** Nodes of the cluster: three primaries, then their three replicas. */
export const CLUSTER_NODES = 6;

/** The node timeout: how long a primary may be silent before its replica is promoted; ms. */
export const CLUSTER_NODE_TIMEOUT_MS = 2000;

/** Where and how {@link startRedisCluster} runs the cluster. */
export interface RedisClusterOptions {
  /** Directory of the nodes' configuration, logs, pid files and cluster state. */
  readonly dir: string;
  /** Loopback address; default `127.0.0.1`. */
  readonly host?: string;
  /** Node `i` (0 to 5) listens on `firstPort + i`. */
  readonly firstPort: number;
  /** Node `i`'s cluster bus listens on `firstBusPort + i`. */
  readonly firstBusPort: number;
  /** The ACL file's text (see `aclText`); it must enable `admin`, whom the nodes replicate as. */
  readonly acl: string;
  /** The admin user's password. */
  readonly adminPassword: string;
  /** Environment for finding `redis-server` and `redis-cli`; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** How long the cluster may take to report `cluster_state:ok`; default 30 s. */
  readonly readyWithinMs?: number;
}

/** A running cluster, as {@link startRedisCluster} started it. */
export interface RedisCluster {
  /** Every node, `host:port`, in node order. */
  readonly nodes: readonly string[];
  /** Node `node`'s process as last started, for watching it exit. */
  process(node: number): StartedProcess | undefined;
  /** The URL of the cluster as `user` (every node listed), for TOOLGATE_REDIS_URL. */
  urlAs(user: string, password: string): string;
  /** The node indexes (0 to 5) that serve slots now, in port order. */
  primaries(): Promise<number[]>;
  /**
   * SIGKILLs the `index`-th primary (0 to 2, in port order, as {@link RedisCluster.primaries}
   * lists them now) and answers its node index, for {@link RedisCluster.restartNode}.
   */
  killPrimary(index: number): Promise<number>;
  /** Starts node `node` (0 to 5) again after a kill; it rejoins with its saved cluster state. */
  restartNode(node: number): Promise<void>;
  /**
   * Resolves once every running node reports `cluster_state:ok` and every running replica is in
   * sync with its primary (a replica that is not cannot take over).
   */
  whenHealthy(withinMs?: number): Promise<void>;
  /** Stops every node (SIGTERM, then SIGKILL after 5 s); idempotent. */
  stop(): Promise<StopOutcome[]>;
}

/** Where the stack keeps its Redis Cluster's nodes: `<stack dir>/redis-cluster`. */
export function redisClusterDir(config: Pick<StackConfig, 'stackDir'>): string {
  return path.join(config.stackDir, 'redis-cluster');
}

/** Stops the nodes a cluster started in `dir` recorded in their pid files, node 0's outcome first. */
export async function stopRedisCluster(dir: string): Promise<StopOutcome[]> {
  const nodes = Array.from({ length: CLUSTER_NODES }, (_, i) => i);
  return Promise.all(nodes.map((i) => stopFromPidFile(pidFileOf(dir, i), 5_000)));
}

/**
 * Starts the six nodes, joins them into a cluster with one replica per primary, and resolves once
 * every node reports `cluster_state:ok`. Nodes left in `dir` by an earlier run are stopped and
 * their state replaced.
 *
 * @throws Error naming the node and its log when a node does not answer, or `redis-cli`'s output
 *   when the cluster cannot be created.
 */
export async function startRedisCluster(options: RedisClusterOptions): Promise<RedisCluster> {
  const layout = layoutOf(options);
  const { env, host, ports } = layout;
  const cli = requireTool('redis', 'redis-cli', REDIS_HINT, env);
  await stopRedisCluster(options.dir);
  writeSecretFile(path.join(options.dir, 'users.acl'), options.acl);
  const started = ports.map((_, i) => startNode(layout, i, { fresh: true }));
  await Promise.all(ports.map((port, i) => untilAnswers(layout, port, i)));
  createCluster(cli, host, ports, options, env);
  const cluster = clusterOf(layout, started);
  await cluster.whenHealthy(options.readyWithinMs ?? 30_000);
  return cluster;
}

/**
 * The cluster an earlier {@link startRedisCluster} (or `stack:up`) started in `options.dir`,
 * still running: a handle for killing and restarting its nodes, as a chaos run does.
 */
export function attachRedisCluster(options: RedisClusterOptions): RedisCluster {
  return clusterOf(layoutOf(options), []);
}

/** The options of the stack's own cluster, under `<stack dir>/redis-cluster`. */
export function stackRedisClusterOptions(config: StackConfig): RedisClusterOptions {
  return {
    dir: redisClusterDir(config),
    host: config.host,
    firstPort: config.ports.redis,
    firstBusPort: config.ports.redisClusterBus,
    acl: aclFile(config),
    adminPassword: redisPassword(config, REDIS_ADMIN),
    env: config.env,
  };
}

const REDIS_HINT = 'install Redis 7 (redis-server and redis-cli)';

function layoutOf(options: RedisClusterOptions): Layout {
  const env = options.env ?? process.env;
  const server = requireTool('redis', 'redis-server', REDIS_HINT, env);
  const host = options.host ?? '127.0.0.1';
  const ports = Array.from({ length: CLUSTER_NODES }, (_, i) => options.firstPort + i);
  return { ...options, host, ports, server, env };
}

interface Layout extends RedisClusterOptions {
  readonly host: string;
  readonly ports: readonly number[];
  readonly server: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}

function clusterOf(layout: Layout, started: (StartedProcess | undefined)[]): RedisCluster {
  const { host, ports, dir } = layout;
  let stopping: Promise<StopOutcome[]> | undefined;
  const primaries = async () => {
    const found = await Promise.all(ports.map((port) => roleOf(layout, port)));
    return ports.map((_, i) => i).filter((i) => found[i] === 'master');
  };
  const whenHealthy = async (withinMs = 30_000) => {
    const deadline = Date.now() + withinMs;
    for (;;) {
      const states = await Promise.all(ports.map((port, i) => healthOf(layout, port, i)));
      const bad = states.find((s) => s !== 'ok' && s !== 'down');
      if (bad === undefined && states.includes('ok')) return;
      if (Date.now() > deadline)
        throw new Error(`redis cluster not ok after ${withinMs} ms: ${bad}`);
      await delay(100);
    }
  };
  return {
    nodes: ports.map((port) => `${host}:${port}`),
    process: (node) => started[node],
    urlAs: (user, password) =>
      `redis://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${ports.map((p) => `${host}:${p}`).join(',')}`,
    primaries,
    async killPrimary(index) {
      const node = (await primaries())[index];
      const record = node === undefined ? undefined : readPidRecord(pidFileOf(dir, node));
      if (node === undefined || record === undefined) {
        throw new RangeError(
          `no primary ${index} to kill (primaries: ${(await primaries()).join(', ')})`,
        );
      }
      process.kill(record.pid, 'SIGKILL');
      return node;
    },
    async restartNode(node) {
      const port = ports[node];
      if (port === undefined) throw new RangeError(`no node ${node}`);
      started[node] = startNode(layout, node, { fresh: false });
      await untilAnswers(layout, port, node);
    },
    whenHealthy,
    stop: () => (stopping ??= stopRedisCluster(dir)),
  };
}

/** Node `node`'s pid file under `dir`. */
export function pidFileOf(dir: string, node: number): string {
  return path.join(dir, 'run', `node-${node}.pid`);
}

/** Node `node`'s log under `dir`. */
export function logOf(dir: string, node: number): string {
  return path.join(dir, 'logs', `node-${node}.log`);
}

/** Writes node `i`'s configuration (a fresh one forgets its cluster state) and starts it. */
function startNode(layout: Layout, i: number, { fresh }: { fresh: boolean }): StartedProcess {
  const nodeDir = path.join(layout.dir, `node-${i}`);
  mkdirSync(nodeDir, { recursive: true });
  const state = path.join(nodeDir, 'nodes.conf');
  if (fresh && existsSync(state)) writeFileSync(state, '');
  // A replica keeps the snapshot its primary sent it (`save ""` writes none of its own): a fresh
  // node that loaded it would hold keys, and `--cluster create` refuses a node that is not empty.
  if (fresh) rmSync(path.join(nodeDir, 'dump.rdb'), { force: true });
  const conf = path.join(nodeDir, 'redis.conf');
  writeSecretFile(conf, nodeConfig(layout, i));
  return spawnDetached({
    command: layout.server,
    args: [conf],
    cwd: nodeDir,
    logFile: logOf(layout.dir, i),
    pidFile: pidFileOf(layout.dir, i),
    env: layout.env,
  });
}

/**
 * Node `i`'s `redis.conf`: cluster mode with an explicit bus port (the default, port + 10000, may
 * collide with other services), the shared ACL file, and the admin user for replication, since
 * the default user is off.
 */
export function nodeConfig(
  layout: Pick<Layout, 'dir' | 'host' | 'firstPort' | 'firstBusPort' | 'adminPassword'>,
  i: number,
): string {
  return [
    `bind ${layout.host}`,
    `port ${layout.firstPort + i}`,
    'cluster-enabled yes',
    `cluster-port ${layout.firstBusPort + i}`,
    'cluster-config-file nodes.conf',
    `cluster-node-timeout ${CLUSTER_NODE_TIMEOUT_MS}`,
    `aclfile ${path.join(layout.dir, 'users.acl')}`,
    `masteruser ${REDIS_ADMIN}`,
    `masterauth ${layout.adminPassword}`,
    'save ""',
    // A replica syncs at once rather than after 5 s: until it has, it cannot take over.
    'repl-diskless-sync-delay 0',
    'appendonly no',
    `dir ${path.join(layout.dir, `node-${i}`)}`,
    'daemonize no',
    '',
  ].join('\n');
}

function createCluster(
  cli: string,
  host: string,
  ports: readonly number[],
  options: RedisClusterOptions,
  env: Readonly<Record<string, string | undefined>>,
): void {
  const args = [
    '--user',
    REDIS_ADMIN,
    '--pass',
    options.adminPassword,
    '--no-auth-warning',
    '--cluster',
    'create',
    ...ports.map((port) => `${host}:${port}`),
    '--cluster-replicas',
    '1',
    '--cluster-yes',
  ];
  const run = spawnSync(cli, args, { encoding: 'utf8', env: { ...env }, timeout: 30_000 });
  if (run.status !== 0) {
    throw new Error(`redis-cli --cluster create failed: ${run.stdout}${run.stderr}`);
  }
}

/** Runs one command as the admin on the node at `port`; undefined when it cannot. */
function ask(layout: Layout, port: number, command: readonly string[]): Promise<unknown> {
  const auth = `${REDIS_ADMIN}:${encodeURIComponent(layout.adminPassword)}`;
  return askRedis(`redis://${auth}@${layout.host}:${port}`, command);
}

async function untilAnswers(layout: Layout, port: number, node: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  while ((await ask(layout, port, ['PING'])) !== 'PONG') {
    if (Date.now() > deadline) {
      throw new Error(`redis node ${port} did not answer; see ${logOf(layout.dir, node)}`);
    }
    await delay(50);
  }
}

/** `cluster_state` of a running node (`ok`, `fail`), or `down` for a node not running. */
async function stateOf(layout: Layout, port: number, node: number): Promise<string> {
  const record = readPidRecord(pidFileOf(layout.dir, node));
  if (record === undefined || !isRunning(record)) return 'down';
  const info = await ask(layout, port, ['CLUSTER', 'INFO']);
  if (typeof info !== 'string') return `no answer from ${port}`;
  return /cluster_state:(\w+)/.exec(info)?.[1] ?? 'unknown';
}

/** {@link stateOf}, or `replica not in sync` for a replica whose link to its primary is down. */
async function healthOf(layout: Layout, port: number, node: number): Promise<string> {
  const state = await stateOf(layout, port, node);
  if (state !== 'ok') return state;
  const info = await ask(layout, port, ['INFO', 'replication']);
  if (typeof info !== 'string') return `no answer from ${port}`;
  const replica = /role:slave/.test(info);
  return !replica || /master_link_status:up/.test(info) ? 'ok' : `replica ${port} not in sync`;
}

async function roleOf(layout: Layout, port: number): Promise<string | undefined> {
  const role = await ask(layout, port, ['ROLE']);
  return Array.isArray(role) && typeof role[0] === 'string' ? role[0] : undefined;
}
