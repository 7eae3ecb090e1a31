/**
 * `toolgate` exits with its command's code once the command is over, even while something it
 * opened is still alive (a client reconnecting to a node that died during a failed start): a
 * supervisor that restarts a process on its exit must see it. The child is preloaded with a
 * handle that never closes; without the explicit exit, it would never end.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../bin/toolgate.js', import.meta.url));
const keepAlive = fileURLToPath(new URL('../../../test/support/keep-alive.mjs', import.meta.url));

/** Runs `toolgate ...args` with the never-closing handle; the exit code, or 'hung' after 60 s. */
function run(args: readonly string[]): Promise<number | 'hung'> {
  const child = spawn(process.execPath, ['--import', keepAlive, bin, ...args], {
    stdio: 'ignore',
  });
  return new Promise((resolve) => {
    const bound = setTimeout(() => {
      child.kill('SIGKILL');
      resolve('hung');
    }, 60_000);
    child.once('exit', (code) => {
      clearTimeout(bound);
      resolve(code ?? -1);
    });
  });
}

describe('the toolgate process', () => {
  it('exits with the command code while a handle it did not close is still open', async () => {
    expect(await run(['help'])).toBe(0);
  }, 70_000);

  it('exits with a usage error code the same way', async () => {
    expect(await run(['no-such-command'])).toBe(2);
  }, 70_000);
});
