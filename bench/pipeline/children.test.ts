import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  assertRunning,
  createChildren,
  inheritedEnv,
  whileRunning,
  type Children,
} from './children.js';

let children: Children | undefined;
afterEach(async () => {
  await children?.stopAll(1_000);
  children = undefined;
});

const start = (name: string, script: string) => {
  children ??= createChildren(mkdtempSync(join(tmpdir(), 'bench-children-')));
  return children.start({ name, args: ['-e', script], env: {} });
};

describe('assertRunning', () => {
  it('names the child that exited, its exit code and its log', async () => {
    const alive = start('hop1', 'setInterval(() => {}, 1000)');
    const gone = start('gate-execute', 'process.exit(3)');
    await gone.exited;
    await expect(assertRunning('open loop 50% rep 2', [alive, gone])).rejects.toThrow(
      `open loop 50% rep 2: gate-execute exited (3); see ${gone.log}`,
    );
  });

  it('resolves while every child runs', async () => {
    const alive = start('hop2', 'setInterval(() => {}, 1000)');
    await expect(assertRunning('saturation rep 1', [alive])).resolves.toBeUndefined();
  });
});

describe('whileRunning', () => {
  it('rejects as soon as a child exits, without waiting for the work', async () => {
    const alive = start('relay-hop1', 'setInterval(() => {}, 1000)');
    // Exits with 1 when told to (SIGUSR2), once it has said that it listens.
    const dying = start(
      'gate-worker',
      "process.on('SIGUSR2', () => process.exit(1)); console.log('listening'); setInterval(() => {}, 1000)",
    );
    await vi.waitFor(() => expect(readFileSync(dying.log, 'utf8')).toContain('listening'), {
      timeout: 30_000,
    });
    // The work never ends; the child exits while it runs.
    const never = () => {
      process.kill(dying.pid, 'SIGUSR2');
      return new Promise<number>(() => undefined);
    };
    await expect(
      whileRunning('saturation rep 1 of the gate', [alive, dying], never),
    ).rejects.toThrow(`saturation rep 1 of the gate: gate-worker exited (1); see ${dying.log}`);
  });

  it('answers what the work answers while every child runs', async () => {
    const alive = start('relay-hop2', 'setInterval(() => {}, 1000)');
    await expect(whileRunning('warm-up', [alive], () => Promise.resolve(42))).resolves.toBe(42);
  });

  it('does not start the work once a child has exited', async () => {
    const gone = start('gate-validate', 'process.exit(2)');
    await gone.exited;
    let started = false;
    const work = () => {
      started = true;
      return Promise.resolve(0);
    };
    await expect(whileRunning('open loop 25% rep 1', [gone], work)).rejects.toThrow('exited (2)');
    expect(started).toBe(false);
  });
});

describe('inheritedEnv', () => {
  it("keeps no TOOLGATE_ variable of the shell but the deployment's session ones", () => {
    const env = inheritedEnv({
      PATH: '/usr/bin',
      BENCH_TRACE: '1',
      UNSET: undefined,
      TOOLGATE_KAFKA_USERNAME: 'admin',
      TOOLGATE_KAFKA_PASSWORD: 'secret',
      TOOLGATE_COMMAND_KEY: 'k'.repeat(64),
      TOOLGATE_SESSION_SECRET: 's'.repeat(40),
    });
    expect(env).toEqual({
      PATH: '/usr/bin',
      BENCH_TRACE: '1',
      TOOLGATE_SESSION_SECRET: 's'.repeat(40),
    });
  });
});
