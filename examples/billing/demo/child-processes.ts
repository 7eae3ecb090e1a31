/**
 * The demo's child processes, started as a user would start them: each of the gate's four stages
 * (`toolgate start <stage>`) and the example's tool worker, each logging to its own file. A child
 * that dies while the demo runs is reported with its log; a child can be suspended and resumed
 * (the walk-around holds the tool worker still so that a command stays pending); stopping
 * resumes, signals and waits for each child, so no process outlives the demo.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Env } from '@toolgate/platform';
import { REPO_ROOT } from './demo-settings.js';

/** One child process of the demo. */
export interface DemoChild {
  /** Short name, e.g. `validate`. */
  readonly name: string;
  /** Its log file, relative to the repository root. */
  readonly log: string;
  readonly pid: number | undefined;
  /** Resolves with the exit code (or signal name) when the process ends. */
  readonly exited: Promise<string>;
  /** True once the process has ended. */
  hasExited(): boolean;
  /**
   * The last `lines` lines of its log that say what went wrong (errors, and text that is not a
   * JSON log line, such as a start-up failure); the last lines at all when there are none.
   */
  tail(lines?: number): string;
  /** Freezes the process (SIGSTOP) until {@link DemoChild.resume}. */
  suspend(): void;
  /** Lets a suspended process run again (SIGCONT); harmless on one that runs. */
  resume(): void;
  /**
   * Resumes it if suspended, sends SIGTERM, then SIGKILL after `graceMs`; resolves when it has
   * ended. Idempotent.
   */
  stop(graceMs: number): Promise<void>;
}

/** What to start. */
export interface ChildSpec {
  readonly name: string;
  /** Arguments of `node` (this Node binary), script first. */
  readonly args: readonly string[];
  readonly env: Env;
  readonly logDir: string;
}

/** Starts `node <args>` with stdout and stderr appended to `<logDir>/<name>.log` (truncated first). */
export function startChild(spec: ChildSpec): DemoChild {
  mkdirSync(spec.logDir, { recursive: true });
  const logFile = path.join(spec.logDir, `${spec.name}.log`);
  const fd = openSync(logFile, 'w');
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [...spec.args], {
      cwd: REPO_ROOT,
      env: spec.env,
      stdio: ['ignore', fd, fd],
    });
  } finally {
    closeSync(fd);
  }
  let ended: string | undefined;
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => {
      ended = code === null ? String(signal) : String(code);
      resolve(ended);
    });
    child.once('error', (error) => {
      ended = error.message;
      resolve(ended);
    });
  });
  let stopping: Promise<void> | undefined;
  return {
    name: spec.name,
    log: path.relative(REPO_ROOT, logFile),
    pid: child.pid,
    exited,
    hasExited: () => ended !== undefined,
    tail: (lines = 5) => tailOf(logFile, lines),
    suspend: () => signal(child, 'SIGSTOP', () => ended !== undefined),
    resume: () => signal(child, 'SIGCONT', () => ended !== undefined),
    stop(graceMs) {
      stopping ??= stopChild(child, exited, () => ended !== undefined, graceMs);
      return stopping;
    },
  };
}

async function stopChild(
  child: ChildProcess,
  exited: Promise<string>,
  hasEnded: () => boolean,
  graceMs: number,
): Promise<void> {
  if (hasEnded()) return;
  // A suspended process would hold SIGTERM until it runs again.
  child.kill('SIGCONT');
  child.kill('SIGTERM');
  const timer = setTimeout(() => {
    if (!hasEnded()) child.kill('SIGKILL');
  }, graceMs);
  await exited;
  clearTimeout(timer);
}

function signal(child: ChildProcess, name: NodeJS.Signals, hasEnded: () => boolean): void {
  if (!hasEnded()) child.kill(name);
}

function tailOf(file: string, lines: number): string {
  if (!existsSync(file)) return '';
  const all = readFileSync(file, 'utf8').trimEnd().split('\n');
  const telling = all.filter(
    (line) => !line.startsWith('{') || /"level":(?:50|60|"error"|"fatal")[,}]/.test(line),
  );
  return (telling.length > 0 ? telling : all).slice(-lines).join('\n');
}
