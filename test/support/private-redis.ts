/**
 * A redis-server of a test's own, on a free loopback port, that the test stops and starts while a
 * gate uses it: how a test shows what a stage does during a Redis outage without touching the
 * shared stack's Redis. Its data survives its own restarts (saved on SIGTERM into a temporary
 * folder), so a restart is an outage, not a wipe.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { eventually, within } from './deadline.js';

/** A redis-server the test owns. */
export interface PrivateRedis {
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  /** Stops the server (SIGTERM, which saves its data) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port with the saved data, and waits until it answers PING. */
  start(): Promise<void>;
  /** Stops it if it runs and removes its folder; idempotent. */
  close(): Promise<void>;
}

/** How long starting or stopping the server may take, in ms. */
const READY_MS = 15_000;

/** Starts `redis-server` (it must be on PATH) on a free port; resolves once it answers PING. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '3600 1'],
      { stdio: 'ignore' },
    );
    await eventually(READY_MS, `redis-server on port ${port} to answer`, () => answers(url), 50);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await within(READY_MS, `redis-server on port ${port} to exit`, exited);
  };
  await start();
  return {
    url,
    stop,
    start,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function answers(url: string): Promise<boolean> {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
