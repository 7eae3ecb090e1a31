/** Runs `toolgate` in-process for tests, with its output captured. */
import { PassThrough, Readable } from 'node:stream';
import { runCli } from './run-cli.js';

/** What one command line did. */
export interface CliRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Options of {@link runCaptured}. */
export interface CaptureOptions {
  readonly stdin?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** What Ctrl-C would abort, for commands that run until stopped. */
  readonly stop?: AbortSignal;
}

/**
 * Runs `args` through {@link runCli} with captured stdout and stderr. The promise resolves when
 * the command ends; `output()` reads stdout so far, for a command that is still running.
 */
export function runCaptured(
  args: readonly string[],
  options: CaptureOptions = {},
): Promise<CliRun> & { readonly output: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const { stop } = options;
  const running = runCli(args, {
    stdin: Readable.from(options.stdin === undefined ? [] : [options.stdin]),
    stdout,
    stderr,
    env: options.env ?? {},
    ...(stop === undefined ? {} : { stopSignal: () => stop }),
  }).then((code) => ({ code, out, err }));
  return Object.assign(running, { output: () => out });
}
