/**
 * One memoised stop per process. Signals and fatal errors all lead to `stop()`; resources close in
 * reverse order of opening; a failed close is logged and the rest still close; a hard deadline
 * (kafkajs can hang in disconnect) exits non-zero whatever is still pending. A start that failed
 * closes what it opened the same way, and leaves the exit code to its caller.
 */
import type { Logger } from './logger.js';

/** Events the lifecycle listens to on the process. */
export const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** The part of `process` the lifecycle uses (injectable for tests). */
export interface ProcessEvents {
  on(event: string, listener: (arg: unknown) => void): unknown;
  off(event: string, listener: (arg: unknown) => void): unknown;
}

/** Options of {@link createLifecycle}. */
export interface LifecycleOptions {
  readonly logger: Pick<Logger, 'info' | 'warn' | 'error' | 'fatal'>;
  /** The hard deadline of a stop, in ms (TOOLGATE_SHUTDOWN_TIMEOUT_MS). */
  readonly timeoutMs: number;
  /** Ends the process; default `process.exit`. Called exactly once. */
  readonly exit?: (code: number) => void;
  /** Where signals and fatal errors are heard; default `process`. */
  readonly process?: ProcessEvents;
}

/** The process's lifecycle. */
export interface Lifecycle {
  /** Registers a resource, in opening order. Registered while stopping, it is closed at once. */
  onStop(name: string, close: () => Promise<void> | void): void;
  /**
   * Stops the process (memoised: every call returns the same promise): closes every resource in
   * reverse order, then exits 0, or 1 when `cause` (a fatal error, logged with the reason) is
   * given or a close failed.
   */
  stop(reason: string, cause?: unknown): Promise<void>;
  /**
   * For a start that failed: closes every resource as {@link Lifecycle.stop} does (memoised with
   * it, `cause` logged), then stops listening to the process and leaves the exit to the caller,
   * which reports `cause` with an exit code of its own (a configuration error is 2, not 1). The
   * hard deadline still exits 1. When a stop had begun (a signal during start), that stop exits.
   */
  abandon(reason: string, cause: unknown): Promise<void>;
  /** True once a stop has begun. */
  readonly stopping: boolean;
  /** Aborted when a stop begins, so loops and timers can end themselves. */
  readonly signal: AbortSignal;
  /** Stops listening to the process (for tests and embedding). */
  dispose(): void;
}

interface Resource {
  readonly name: string;
  readonly close: () => Promise<void> | void;
}

/**
 * Creates the lifecycle and installs its handlers: SIGTERM and SIGINT stop gracefully (a second
 * signal while stopping exits 1 at once); `uncaughtException` and `unhandledRejection` are
 * logged as fatal and stop with exit code 1.
 */
export function createLifecycle(options: LifecycleOptions): Lifecycle {
  const { logger, timeoutMs } = options;
  const proc: ProcessEvents = options.process ?? process;
  const resources: Resource[] = [];
  const abort = new AbortController();
  let exited = false;
  const exit = (code: number) => {
    if (exited) return;
    exited = true;
    (options.exit ?? process.exit)(code);
  };
  let stopping: Promise<void> | undefined;

  const close = (run: Pick<StopRun, 'reason' | 'cause' | 'exitWhenClosed'>) =>
    (stopping ??= closeAll({ ...run, resources, logger, timeoutMs, exit, abort }));
  const stop = (reason: string, cause?: unknown) => close({ reason, cause, exitWhenClosed: true });
  const listeners = handlers(stop, () => stopping !== undefined, logger, exit);
  for (const [event, listener] of listeners) proc.on(event, listener);
  const dispose = () => {
    for (const [event, listener] of listeners) proc.off(event, listener);
  };

  return {
    onStop(name, close) {
      if (stopping === undefined) return void resources.push({ name, close });
      logger.warn({ resource: name }, 'resource opened while stopping; closing it at once');
      void closeOne({ name, close }, logger);
    },
    stop,
    async abandon(reason, cause) {
      // Still listening while closing: a second signal meanwhile exits at once, as in a stop.
      await close({ reason, cause, exitWhenClosed: false });
      dispose();
    },
    get stopping() {
      return stopping !== undefined;
    },
    signal: abort.signal,
    dispose,
  };
}

function handlers(
  stop: (reason: string, cause?: unknown) => Promise<void>,
  isStopping: () => boolean,
  logger: LifecycleOptions['logger'],
  exit: (code: number) => void,
): [string, (arg: unknown) => void][] {
  const onSignal = (signal: string) => () => {
    if (!isStopping()) return void stop(signal);
    logger.warn({ signal }, 'second signal while stopping; exiting now');
    exit(1);
  };
  const onFatal = (event: string) => (error: unknown) => {
    logger.fatal({ err: error, event }, 'fatal error; stopping');
    void stop(event, error);
  };
  return [
    ...STOP_SIGNALS.map((signal): [string, () => void] => [signal, onSignal(signal)]),
    ['uncaughtException', onFatal('uncaughtException')],
    ['unhandledRejection', onFatal('unhandledRejection')],
  ];
}

interface StopRun {
  readonly reason: string;
  readonly cause: unknown;
  readonly resources: readonly Resource[];
  readonly logger: LifecycleOptions['logger'];
  readonly timeoutMs: number;
  readonly exit: (code: number) => void;
  /** False for an abandoned start, whose caller exits; the hard deadline exits all the same. */
  readonly exitWhenClosed: boolean;
  readonly abort: AbortController;
}

async function closeAll(run: StopRun): Promise<void> {
  const { reason, cause, logger, timeoutMs, exit } = run;
  run.abort.abort(reason);
  const resources = run.resources.length;
  if (cause === undefined) logger.info({ reason, resources }, 'stopping');
  else logger.error({ reason, resources, err: cause }, 'stopping');
  const pending = new Set<string>();
  const deadline = setTimeout(() => {
    logger.error({ reason, timeoutMs, pending: [...pending] }, 'stop deadline passed; exiting');
    exit(1);
  }, timeoutMs);
  let failed = 0;
  for (const resource of [...run.resources].reverse()) {
    pending.add(resource.name);
    if (!(await closeOne(resource, logger))) failed += 1;
    pending.delete(resource.name);
  }
  clearTimeout(deadline);
  const code = cause !== undefined || failed > 0 ? 1 : 0;
  if (!run.exitWhenClosed) return void logger.info({ reason, failed }, 'stopped; not exiting');
  logger.info({ reason, failed, code }, 'stopped');
  exit(code);
}

/** Closes one resource; logs and reports false when it fails. */
async function closeOne(resource: Resource, logger: LifecycleOptions['logger']): Promise<boolean> {
  try {
    await resource.close();
    return true;
  } catch (error) {
    logger.error({ err: error, resource: resource.name }, 'closing failed; closing the rest');
    return false;
  }
}
