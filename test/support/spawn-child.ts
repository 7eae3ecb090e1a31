/**
 * A process a test starts and may kill: one of the `test/support/*-child.ts` scripts run with tsx
 * from the repository root, ready once it prints `ready` on standard output.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A started child: `ready` once it said so, `exited` with its signal or exit code. */
export interface TestChild {
  readonly proc: ChildProcess;
  readonly ready: Promise<void>;
  readonly exited: Promise<NodeJS.Signals | number | null>;
}

/**
 * Starts `script` (a path from the repository root) with `env` over this process's environment;
 * its standard error is the test's. Push `proc` where the test's `afterAll` kills what is left.
 */
export function spawnTestChild(script: string, env: Record<string, string>): TestChild {
  const proc = spawn(
    process.execPath,
    ['--no-turbo-inline-js-wasm-calls', '--import', 'tsx', script],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const ready = new Promise<void>((resolve) =>
    proc.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    }),
  );
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    proc.once('exit', (code, signal) => resolve(signal ?? code)),
  );
  return { proc, ready, exited };
}
