import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLifecycle, type Lifecycle } from './lifecycle.js';
import { createLogger } from './logger.js';

const created: Lifecycle[] = [];

afterEach(() => {
  for (const lifecycle of created.splice(0)) lifecycle.dispose();
  vi.useRealTimers();
});

function setup(timeoutMs = 1000) {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: 'info',
    stage: 'test',
    instanceId: 'i',
    destination: {
      write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
    },
  });
  const proc = new EventEmitter();
  const exits: number[] = [];
  const lifecycle = createLifecycle({
    logger,
    timeoutMs,
    exit: (code) => void exits.push(code),
    process: proc,
  });
  created.push(lifecycle);
  const order: string[] = [];
  const resource = (name: string, close: () => Promise<void> | void = () => undefined) =>
    lifecycle.onStop(name, async () => {
      order.push(name);
      await close();
    });
  return { lifecycle, proc, exits, order, resource, lines };
}

describe('createLifecycle', () => {
  it('closes resources in reverse order of opening, then exits 0', async () => {
    const { lifecycle, exits, order, resource } = setup();
    resource('redis');
    resource('producer');
    resource('consumer');
    resource('http');
    await lifecycle.stop('requested');
    expect(order).toEqual(['http', 'consumer', 'producer', 'redis']);
    expect(exits).toEqual([0]);
  });

  it('stops once however often it is asked', async () => {
    const { lifecycle, exits, order, resource } = setup();
    resource('redis');
    const first = lifecycle.stop('a');
    expect(lifecycle.stop('b')).toBe(first);
    await first;
    expect(order).toEqual(['redis']);
    expect(exits).toEqual([0]);
  });

  it('closes the rest past a failed close, logs it and exits 1', async () => {
    const { lifecycle, exits, order, resource, lines } = setup();
    resource('redis');
    resource('producer', () => Promise.reject(new Error('disconnect failed')));
    resource('http');
    await lifecycle.stop('requested');
    expect(order).toEqual(['http', 'producer', 'redis']);
    expect(exits).toEqual([1]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        resource: 'producer',
        msg: 'closing failed; closing the rest',
      }),
    );
  });

  it('exits 1 at the deadline when a close hangs, naming what was pending', async () => {
    vi.useFakeTimers();
    const { lifecycle, exits, resource, lines } = setup(5000);
    resource('redis');
    resource('consumer', () => new Promise<void>(() => undefined));
    void lifecycle.stop('SIGTERM');
    await vi.advanceTimersByTimeAsync(4999);
    expect(exits).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(exits).toEqual([1]);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'error', pending: ['consumer'] }),
    );
  });

  it.each(['SIGTERM', 'SIGINT'])('stops gracefully on %s', async (signal) => {
    const { lifecycle, proc, exits, order, resource } = setup();
    resource('redis');
    proc.emit(signal);
    expect(lifecycle.stopping).toBe(true);
    expect(lifecycle.signal.aborted).toBe(true);
    await lifecycle.stop('ignored: already stopping');
    expect(order).toEqual(['redis']);
    expect(exits).toEqual([0]);
  });

  it('exits 1 at once on a second signal while stopping', () => {
    const { proc, exits, resource } = setup();
    resource('consumer', () => new Promise<void>(() => undefined));
    proc.emit('SIGTERM');
    proc.emit('SIGINT');
    expect(exits).toEqual([1]);
  });

  it.each(['uncaughtException', 'unhandledRejection'])(
    'logs a fatal %s and stops with exit 1',
    async (event) => {
      const { lifecycle, proc, exits, order, resource, lines } = setup();
      resource('redis');
      proc.emit(event, new Error('boom'));
      await lifecycle.stop('ignored');
      expect(order).toEqual(['redis']);
      expect(exits).toEqual([1]);
      expect(lines).toContainEqual(expect.objectContaining({ level: 'fatal', event }));
    },
  );

  it('names the cause of a stop in its log line', async () => {
    const { lifecycle, exits, lines } = setup();
    await lifecycle.stop('validate stage loop crashed', new Error('fenced by a newer producer'));
    expect(exits).toEqual([1]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: 'stopping',
        reason: 'validate stage loop crashed',
        err: expect.objectContaining({ message: 'fenced by a newer producer' }) as unknown,
      }),
    );
  });

  it('abandons a failed start: closes in reverse order, names the cause, stops listening, and leaves the exit to the caller', async () => {
    const { lifecycle, proc, exits, order, resource, lines } = setup();
    resource('connections');
    resource('validate stage');
    await lifecycle.abandon('start-up failed', new Error('listen EADDRINUSE'));
    expect(order).toEqual(['validate stage', 'connections']);
    expect(exits).toEqual([]);
    expect(lifecycle.stopping).toBe(true);
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: 'stopping',
        err: expect.objectContaining({ message: 'listen EADDRINUSE' }) as unknown,
      }),
    );
    expect(proc.listenerCount('SIGTERM')).toBe(0);
    expect(proc.listenerCount('unhandledRejection')).toBe(0);
  });

  it('still exits 1 at the deadline when a close hangs while abandoning a failed start', async () => {
    vi.useFakeTimers();
    const { lifecycle, exits, resource } = setup(5000);
    resource('consumer', () => new Promise<void>(() => undefined));
    void lifecycle.abandon('start-up failed', new Error('boom'));
    await vi.advanceTimersByTimeAsync(5000);
    expect(exits).toEqual([1]);
  });

  it('leaves the exit to a stop that had begun when a start is abandoned', async () => {
    const { lifecycle, proc, exits, resource } = setup();
    resource('redis', () => new Promise<void>((resolve) => setImmediate(resolve)));
    proc.emit('SIGTERM');
    await lifecycle.abandon('start-up failed', new Error('closed under it'));
    expect(exits).toEqual([0]);
  });

  it('closes at once a resource registered while stopping', async () => {
    const { lifecycle, exits, order, resource } = setup();
    resource('redis', () => new Promise<void>((resolve) => setImmediate(resolve)));
    const stopped = lifecycle.stop('requested');
    resource('late');
    await stopped;
    expect(order).toEqual(['redis', 'late']);
    expect(exits).toEqual([0]);
  });

  it('stops listening to the process once disposed', () => {
    const { lifecycle, proc } = setup();
    lifecycle.dispose();
    proc.emit('SIGTERM');
    expect(lifecycle.stopping).toBe(false);
  });
});

// Each test starts a Node process with tsx: seconds on a loaded 2-core machine, not milliseconds.
describe.concurrent('createLifecycle in a real process', { timeout: 30_000 }, () => {
  const fixture = fileURLToPath(new URL('./lifecycle.fixture.ts', import.meta.url));

  /** Runs the fixture, sends `signal` once it is ready (if given); resolves its exit and log. */
  function run(mode: string, signal?: NodeJS.Signals) {
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, mode], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stderr.on('data', (data: Buffer) => (log += data.toString()));
    child.stdout.on('data', (data: Buffer) => {
      if (signal !== undefined && data.toString().includes('ready')) child.kill(signal);
    });
    return new Promise<{ code: number | null; log: string }>((resolve) =>
      child.on('close', (code) => resolve({ code, log })),
    );
  }

  it('exits 0 after a graceful SIGTERM', async () => {
    const { code, log } = await run('ok', 'SIGTERM');
    expect(code).toBe(0);
    expect(log).toContain('"msg":"stopped"');
  });

  it('exits 1 at the deadline when a close hangs', async () => {
    const { code, log } = await run('hang', 'SIGTERM');
    expect(code).toBe(1);
    expect(log).toContain('"msg":"stop deadline passed; exiting"');
  });

  it('exits 1 after an uncaught exception, having stopped in order', async () => {
    const { code, log } = await run('throw');
    expect(code).toBe(1);
    expect(log).toContain('"level":"fatal"');
    expect(log).toContain('"msg":"stopped"');
  });
});
