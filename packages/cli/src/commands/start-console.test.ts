/**
 * `toolgate start console` as people run it: a process that prints where the console listens,
 * serves it there, and ends cleanly on SIGTERM; without a deployment it refuses to start.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** Runs the CLI with `args`; its output so far, and its exit. */
function toolgate(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, ['packages/cli/bin/toolgate.js', ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, TOOLGATE_CONSOLE_PORT: '0', TOOLGATE_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, out: () => out, err: () => err, exited };
}

describe('toolgate start console', () => {
  it('prints its URL, serves the console there, and stops on SIGTERM', async () => {
    const run = toolgate(['start', 'console', '--config', 'test/support/deployment/index.ts'], {});
    try {
      await expect
        .poll(run.out, { timeout: 30_000, interval: 100 })
        .toMatch(/^console: http:\/\/127\.0\.0\.1:\d+\/\n/);
      const url = /http:\S+/.exec(run.out())![0];
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
    }
  }, 40_000);

  it('refuses to start without a deployment', async () => {
    const run = toolgate(['start', 'console'], { TOOLGATE_CONFIG: '' });
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain('--config (or TOOLGATE_CONFIG) is required');
  }, 40_000);
});
