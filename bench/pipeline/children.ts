/**
 * The benchmark's child processes: one per gate stage, tool worker and relay hop, so the OS can
 * measure each. Output goes to a log file per child; every child is ended when the run ends, on
 * Ctrl-C and on failure (SIGTERM, then SIGKILL after a grace period).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { DEPLOYMENT_VARIABLES } from '@toolgate/platform';

/** One child as the benchmark knows it. */
export interface Child {
  readonly name: string;
  readonly pid: number;
  /** Its log file (stdout and stderr). */
  readonly log: string;
  /** Resolves with the exit code (or signal name) when the process ends. */
  readonly exited: Promise<string>;
  /** True once `exited` has resolved. */
  hasExited(): boolean;
}

/** How to start one child. */
export interface ChildSpec {
  readonly name: string;
  /** Arguments to node (flags, script, script arguments). */
  readonly args: readonly string[];
  /** Its `TOOLGATE_*` variables and any other; added to {@link inheritedEnv}. */
  readonly env: Readonly<Record<string, string>>;
}

/** The deployment file's variables (docs/configuration.md), read by stages and driver alike. */
const SHARED_VARIABLES: ReadonlySet<string> = new Set(
  Object.keys(DEPLOYMENT_VARIABLES).map((name) => `TOOLGATE_${name}`),
);

/**
 * What a child inherits of the benchmark's environment: everything but the `TOOLGATE_*`
 * variables, so that a child gets exactly the identity, keys and settings its spec gives it (an
 * administrator's identity exported in the shell must not reach a stage), save the deployment's
 * session variables, which the gate's stages and the driver must share.
 */
export function inheritedEnv(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const kept = Object.entries(env).filter(
    (entry): entry is [string, string] =>
      entry[1] !== undefined &&
      (!entry[0].startsWith('TOOLGATE_') || SHARED_VARIABLES.has(entry[0])),
  );
  return Object.fromEntries(kept);
}

/** Starts and ends children. */
export interface Children {
  start(spec: ChildSpec): Child;
  readonly all: readonly Child[];
  /** SIGTERM to every live child, SIGKILL to those still alive after `graceMs`. Idempotent. */
  stopAll(graceMs?: number): Promise<void>;
}

/** A process group of children logging into `logDir`. */
export function createChildren(logDir: string): Children {
  const all: Child[] = [];
  const processes: ChildProcess[] = [];
  let stopping: Promise<void> | undefined;
  return {
    all,
    start(spec) {
      const log = join(logDir, `${spec.name}.log`);
      // Appended: a child started again under its name (a chaos run's restart) keeps one log.
      const out = createWriteStream(log, { flags: 'a' });
      const child = spawn(process.execPath, [...spec.args], {
        env: { ...inheritedEnv(process.env), ...spec.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      if (child.pid === undefined) throw new Error(`could not start ${spec.name}`);
      child.stdout.pipe(out);
      child.stderr.pipe(out);
      let done = false;
      const exited = new Promise<string>((resolve) =>
        child.on('exit', (code, signal) => {
          done = true;
          resolve(signal ?? String(code));
        }),
      );
      processes.push(child);
      const handle: Child = { name: spec.name, pid: child.pid, log, exited, hasExited: () => done };
      all.push(handle);
      return handle;
    },
    stopAll(graceMs = 15_000) {
      stopping ??= (async () => {
        const live = all.filter((c) => !c.hasExited());
        for (const c of live) process.kill(c.pid, 'SIGTERM');
        const timer = setTimeout(() => {
          for (const c of live) if (!c.hasExited()) process.kill(c.pid, 'SIGKILL');
        }, graceMs);
        await Promise.all(live.map((c) => c.exited));
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
}

const exitedError = (what: string, child: Child, how: string) =>
  new Error(`${what}: ${child.name} exited (${how}); see ${child.log}`);

/** Rejects naming `what`, the first of `children` that has exited, its exit code and its log. */
export async function assertRunning(what: string, children: readonly Child[]): Promise<void> {
  const gone = children.find((c) => c.hasExited());
  if (gone !== undefined) throw exitedError(what, gone, await gone.exited);
}

/**
 * Runs `work` while all of `children` run: rejects as soon as one exits, naming `what`, the child,
 * its exit code and its log, without waiting for `work` (which the caller then abandons).
 */
export async function whileRunning<T>(
  what: string,
  children: readonly Child[],
  work: () => Promise<T>,
): Promise<T> {
  await assertRunning(what, children);
  const died = Promise.race(
    children.map((c) => c.exited.then((how) => exitedError(what, c, how))),
  ).then((error) => Promise.reject(error));
  return Promise.race([work(), died]);
}

/** Resolves once `probe` answers true; rejects naming `what` and the log after `ms`. */
export async function waitUntil(
  what: string,
  child: Child,
  probe: () => Promise<boolean>,
  ms = 90_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    await assertRunning(what, [child]);
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline)
      throw new Error(`${what}: ${child.name} not ready after ${ms} ms; see ${child.log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
