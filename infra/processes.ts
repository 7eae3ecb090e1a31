/**
 * The processes `stack:up` starts, and only those. Each one gets a pid file that also records the
 * process's start stamp, so `stack:down` never signals a process that merely reuses a recorded pid.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/** What a pid file holds. */
export interface PidRecord {
  readonly pid: number;
  /** Kernel start time of the process (or `ps` lstart): identifies it beyond its pid. */
  readonly stamp: string;
  readonly command: string;
  readonly startedAt: string;
}

/** A process started detached from the driver, writing to its own log. */
export interface StartedProcess {
  readonly record: PidRecord;
  readonly child: ChildProcess;
  /** Set once the process has exited while the driver still watches it. */
  exitCode(): number | 'signal' | undefined;
}

/** How a stop went. */
export type StopOutcome = 'stopped' | 'killed' | 'not-running' | 'not-started';

/**
 * The start stamp of a live process: field 22 of `/proc/<pid>/stat` on Linux, `ps -o lstart=`
 * elsewhere. `undefined` when the process does not exist or is a zombie.
 */
export function processStamp(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' ? undefined : fields[19];
  } catch {
    if (existsSync('/proc/self/stat')) return undefined;
  }
  const ps = spawnSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8' });
  const stamp = ps.stdout?.trim();
  return ps.status === 0 && stamp ? stamp : undefined;
}

/**
 * Starts `command` in its own session with stdout and stderr appended to `logFile` (the previous
 * log is kept as `<log>.prev`), and writes its pid file. The driver may exit; the process stays.
 */
export function spawnDetached(options: {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly logFile: string;
  readonly pidFile: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}): StartedProcess {
  mkdirSync(path.dirname(options.logFile), { recursive: true });
  mkdirSync(path.dirname(options.pidFile), { recursive: true });
  mkdirSync(options.cwd, { recursive: true });
  if (existsSync(options.logFile)) renameSync(options.logFile, `${options.logFile}.prev`);
  const fd = openSync(options.logFile, 'a');
  let exit: number | 'signal' | undefined;
  try {
    const child = spawn(options.command, [...options.args], {
      cwd: options.cwd,
      env: { ...options.env },
      detached: true,
      stdio: ['ignore', fd, fd],
    });
    child.on('exit', (code) => (exit = code ?? 'signal'));
    child.on('error', () => (exit = 'signal'));
    child.unref();
    const record = recordOf(child, options.command, options.args);
    writeFileSync(options.pidFile, `${JSON.stringify(record)}\n`);
    return { record, child, exitCode: () => exit };
  } finally {
    closeSync(fd);
  }
}

function recordOf(child: ChildProcess, command: string, args: readonly string[]): PidRecord {
  if (child.pid === undefined) throw new Error(`${command} could not be started`);
  return {
    pid: child.pid,
    stamp: processStamp(child.pid) ?? 'unknown',
    command: [command, ...args].join(' '),
    startedAt: new Date().toISOString(),
  };
}

/** The pid file's record, or `undefined` when there is none or it is unreadable. */
export function readPidRecord(pidFile: string): PidRecord | undefined {
  try {
    const parsed = JSON.parse(readFileSync(pidFile, 'utf8')) as Partial<PidRecord>;
    return typeof parsed.pid === 'number' && typeof parsed.stamp === 'string'
      ? (parsed as PidRecord)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the recorded process is still the one that was started (same pid, same start stamp). */
export function isRunning(record: PidRecord): boolean {
  return processStamp(record.pid) === record.stamp;
}

/** The live process recorded in `pidFile`; a stale pid file is removed. */
export function runningFromPidFile(pidFile: string): PidRecord | undefined {
  const record = readPidRecord(pidFile);
  if (record === undefined) return undefined;
  if (isRunning(record)) return record;
  rmSync(pidFile, { force: true });
  return undefined;
}

/**
 * Stops the process recorded in `pidFile`: SIGTERM, then SIGKILL after `graceMs`. Signals nothing
 * unless the recorded pid still carries the recorded start stamp. Removes the pid file.
 */
export async function stopFromPidFile(pidFile: string, graceMs: number): Promise<StopOutcome> {
  const record = readPidRecord(pidFile);
  if (record === undefined) return 'not-started';
  try {
    if (!isRunning(record)) return 'not-running';
    process.kill(record.pid, 'SIGTERM');
    if (await exitedWithin(record, graceMs)) return 'stopped';
    process.kill(record.pid, 'SIGKILL');
    await exitedWithin(record, 5_000);
    return 'killed';
  } finally {
    rmSync(pidFile, { force: true });
  }
}

/** Whether the recorded process is gone within `withinMs` (polled every 100 ms). */
export async function exitedWithin(record: PidRecord, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (!isRunning(record)) return true;
    await delay(100);
  }
  return !isRunning(record);
}
