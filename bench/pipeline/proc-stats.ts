/**
 * CPU time, write system calls and resident memory of a process, from Linux's /proc, and where
 * the shared services' pids are. The gate's processes, the broker, Redis and the registry are
 * measured by the OS, not by themselves.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Linux's USER_HZ: the unit of utime/stime in /proc/<pid>/stat (100 on every Linux ABI). */
const TICKS_PER_SECOND = 100;
const PAGE_BYTES = 4096;

/** A reading of one process. */
export interface ProcSample {
  /** User + system CPU seconds since the process started. */
  readonly cpuSeconds: number;
  /** Resident set size, MiB. */
  readonly rssMiB: number;
  /**
   * Write system calls since the process started (`syscw` of /proc/<pid>/io: to sockets and files
   * alike); absent when that file cannot be read (another user's process, say).
   */
  readonly writeCalls?: number;
}

/**
 * Parses the text of /proc/<pid>/stat. The command name (field 2) may hold spaces and
 * parentheses, so fields are counted from the last `)`. Returns undefined for malformed text.
 */
export function parseProcStat(text: string): ProcSample | undefined {
  const end = text.lastIndexOf(')');
  if (end < 0) return undefined;
  // After ") ": field 3 (state) is index 0, so field n is index n - 3.
  const fields = text
    .slice(end + 2)
    .trim()
    .split(/\s+/);
  const utime = Number(fields[14 - 3]);
  const stime = Number(fields[15 - 3]);
  const rssPages = Number(fields[24 - 3]);
  if (![utime, stime, rssPages].every(Number.isFinite)) return undefined;
  return {
    cpuSeconds: (utime + stime) / TICKS_PER_SECOND,
    rssMiB: (rssPages * PAGE_BYTES) / 1_048_576,
  };
}

/** The `syscw` count of the text of /proc/<pid>/io; undefined when it has none. */
export function parseProcIoWrites(text: string): number | undefined {
  const found = /^syscw:\s*(\d+)\s*$/m.exec(text);
  return found === null ? undefined : Number(found[1]);
}

/** Reads a live process; undefined when it is gone or /proc is not there. */
export function sampleProcess(pid: number): ProcSample | undefined {
  let stat: ProcSample | undefined;
  try {
    stat = parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
  if (stat === undefined) return undefined;
  let writeCalls: number | undefined;
  try {
    writeCalls = parseProcIoWrites(readFileSync(`/proc/${pid}/io`, 'utf8'));
  } catch {
    // Not ours to read: the sample goes without it.
  }
  return writeCalls === undefined ? stat : { ...stat, writeCalls };
}

/** A shared service both systems run on, measured with them. */
export interface ServiceProcess {
  /** `broker`, `redis` or `registry`. */
  readonly name: string;
  readonly pid: number;
}

/**
 * The services every system's cost includes: the Kafka broker, Redis (on `redisPort`) and the
 * schema registry. Each is the process in the stack's pid file (`<stack dir>/run/<name>.pid`, as
 * `stack:up` writes it) if it is alive, else the first process whose command line looks like it;
 * `missing` names the ones on no process of this machine (a remote Redis, say).
 */
export function findServiceProcesses(
  stackDirs: readonly string[],
  redisPort: number,
): { readonly found: readonly ServiceProcess[]; readonly missing: readonly string[] } {
  const services = [
    {
      name: 'broker',
      pidFile: 'kafka.pid',
      looksLike: (cmd: string) => cmd.includes('kafka.Kafka'),
    },
    {
      name: 'redis',
      pidFile: 'redis.pid',
      looksLike: (cmd: string) => cmd.startsWith('redis-server') && cmd.includes(`:${redisPort}`),
    },
    {
      name: 'registry',
      pidFile: 'registry.pid',
      looksLike: (cmd: string) => cmd.includes('quarkus-run.jar'),
    },
  ];
  const found: ServiceProcess[] = [];
  const missing: string[] = [];
  for (const service of services) {
    const pid = fromPidFiles(stackDirs, service.pidFile) ?? findProcess(service.looksLike);
    if (pid === undefined) missing.push(service.name);
    else found.push({ name: service.name, pid });
  }
  return { found, missing };
}

/** The live process recorded in the first of `<dir>/run/<pidFile>` that has one. */
function fromPidFiles(stackDirs: readonly string[], pidFile: string): number | undefined {
  for (const dir of stackDirs) {
    try {
      const record = JSON.parse(readFileSync(join(dir, 'run', pidFile), 'utf8')) as {
        pid?: unknown;
      };
      if (typeof record.pid === 'number' && sampleProcess(record.pid) !== undefined)
        return record.pid;
    } catch {
      // No pid file here; try the next place.
    }
  }
  return undefined;
}

/** The first process whose NUL-separated command line satisfies `match`. */
export function findProcess(match: (commandLine: string) => boolean): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (match(readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ')))
        return Number(entry);
    } catch {
      // Gone between the listing and the read.
    }
  }
  return undefined;
}
