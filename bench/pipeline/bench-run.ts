/**
 * One benchmark run's namespace, bus and child processes, and their end: whatever the run made is
 * stopped and dropped when it returns, fails or is interrupted (SIGINT or SIGTERM, then exit 130).
 * The pipeline, fairness and analytics benchmarks all run through here.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Bus } from '@toolgate/platform';
import { loadStackConfig, type StackConfig } from '../../infra/stack-config.js';
import {
  adminBus,
  benchNamespace,
  dropRun,
  type BenchNamespace,
  type Made,
} from './bench-namespace.js';
import { createChildren, type Children } from './children.js';
import { REPO_ROOT } from './start-systems.js';

/** What a run's body works with. */
export interface BenchRun {
  readonly config: StackConfig;
  /** The stack admin's bus. */
  readonly bus: Bus;
  readonly ns: BenchNamespace;
  /** What provisioning made, for dropping it. */
  readonly made: Made;
  /** The run's child processes, logging under {@link BenchRun.logDir}; stopped at the end. */
  readonly children: Children;
  readonly logDir: string;
  /**
   * Says the run is about to make things in its namespace: from now on the namespace is dropped
   * at the end (before, nothing of it exists, and dropping would only report failures).
   */
  readonly provisioning: () => void;
  /** Closed first at the end, before the children stop (load drivers, readers). */
  readonly onClose: (close: () => Promise<unknown>) => void;
}

/** Options of {@link withBenchRun}. */
export interface BenchRunOptions {
  /** The admin bus's client id. */
  readonly clientId: string;
  /** What the run is called in the line an interruption prints (`benchmark`, `scenario`). */
  readonly what: string;
  readonly progress: (line: string) => void;
  /** Done last when the run ends, however it ends (a chaos run stops its own stack). */
  readonly afterEnd?: () => Promise<void>;
}

/** Runs `body` in a run of its own, and ends the run whatever `body` does. */
export async function withBenchRun<T>(
  options: BenchRunOptions,
  body: (run: BenchRun) => Promise<T>,
): Promise<T> {
  const { progress } = options;
  const config = loadStackConfig(process.env, REPO_ROOT);
  const ns = benchNamespace();
  const bus = adminBus(config, options.clientId);
  const logDir = mkdtempSync(join(tmpdir(), `toolgate-${ns.id}-`));
  const closers: (() => Promise<unknown>)[] = [];
  let provisioned = false;
  const run: BenchRun = {
    config,
    bus,
    ns,
    made: {},
    children: createChildren(logDir),
    logDir,
    provisioning: () => (provisioned = true),
    onClose: (close) => closers.push(close),
  };
  const end = async () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await Promise.allSettled(closers.map((close) => close()));
    await run.children.stopAll();
    if (provisioned)
      await dropRun(config, ns, run.made).catch((e: unknown) =>
        progress(`cleanup failed: ${e instanceof Error ? e.message : String(e)}`),
      );
    await bus.close().catch(() => undefined);
    await options.afterEnd?.();
  };
  const onSignal = (signal: NodeJS.Signals) => {
    progress(`${signal}: stopping the ${options.what}'s processes and dropping its namespace`);
    void end().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await body(run);
  } finally {
    await end();
  }
}
