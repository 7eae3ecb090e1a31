/**
 * The Redis component. The machine's Redis is used when one answers; otherwise `stack:up` starts
 * `redis-server` on the loopback address, keeping nothing on disk (tests own their key prefixes).
 */
import path from 'node:path';
import { Redis } from 'ioredis';
import { requireTool } from './java.js';
import { spawnDetached, type StartedProcess } from './processes.js';
import type { StackConfig } from './stack-config.js';
import type { Attempt } from './wait.js';

/** The log of a `redis-server` that `stack:up` started. */
export function redisLog(config: StackConfig): string {
  return path.join(config.logDir, 'redis.log');
}

/** Does Redis at `url` answer PING with PONG? */
export async function probeRedis(url: string): Promise<Attempt> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1_000,
    commandTimeout: 2_000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
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

/** Checks what starting Redis needs (`redis-server` on PATH) before anything is started. */
export function preflightRedis(config: StackConfig): void {
  requireTool(
    'redis',
    'redis-server',
    'install Redis 7, or point TOOLGATE_REDIS_URL at one',
    config.env,
  );
}

/** Starts `redis-server` on the loopback address, without persistence. */
export function startRedis(config: StackConfig): StartedProcess {
  const server = requireTool(
    'redis',
    'redis-server',
    'install Redis 7, or point TOOLGATE_REDIS_URL at one',
    config.env,
  );
  const dir = path.join(config.stackDir, 'redis');
  return spawnDetached({
    command: server,
    args: [
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
