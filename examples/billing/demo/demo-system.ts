/**
 * Brings the gate and the tool worker up as child processes and waits until every stage reports
 * ready on `/readyz` and the tool worker has started, failing with the log to read when one of
 * them dies or does not get there in time.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { logHas, startChild, type DemoChild } from './child-processes.js';
import { DEMO_STAGES, type DemoSettings } from './demo-settings.js';

/** How long start-up may take before the demo gives up, in ms (tsx compiles on first start). */
export const START_TIMEOUT_MS = 120_000;

/** The running gate and tool worker. */
export interface DemoSystem {
  readonly children: readonly DemoChild[];
  /** The first child that ended on its own, if any. */
  died(): DemoChild | undefined;
  /** Stops every child (SIGTERM, then SIGKILL past the shutdown deadline) and waits for them. */
  stop(): Promise<void>;
}

/** How many times start-up is tried when a child dies before it is ready. */
export const START_ATTEMPTS = 3;

/** Why the system did not start: a message naming the log to read. */
export class DemoStartError extends Error {
  override readonly name = 'DemoStartError';
  constructor(
    message: string,
    /** True when a child ended during start-up (e.g. the registry answered too slowly). */
    readonly childDied: boolean,
  ) {
    super(message);
  }
}

/**
 * Starts the stages and the tool worker; resolves once both are ready. A child that dies during
 * start-up (on a loaded machine the registry can miss the stages' 5 s bound the first time they
 * register their schemas) is reported and everything is started again, up to
 * {@link START_ATTEMPTS} times.
 */
export async function startDemoSystem(
  settings: DemoSettings,
  say: (line: string) => void,
  signal: AbortSignal,
): Promise<DemoSystem> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnce(settings, say, signal);
    } catch (error) {
      if (!(error instanceof DemoStartError && error.childDied) || attempt >= START_ATTEMPTS) {
        throw error;
      }
      say(`${error.message}\ndemo: starting again (attempt ${attempt + 1} of ${START_ATTEMPTS})`);
    }
  }
}

async function startOnce(
  settings: DemoSettings,
  say: (line: string) => void,
  signal: AbortSignal,
): Promise<DemoSystem> {
  const gate = startChild({
    name: 'gate',
    args: ['packages/cli/bin/toolgate.js', 'start', 'all', '--config', settings.deploymentFile],
    env: settings.env,
    logDir: settings.logDir,
  });
  const worker = startChild({
    name: 'tool-worker',
    args: ['--no-turbo-inline-js-wasm-calls', '--import', 'tsx', 'examples/billing/tool-worker.ts'],
    env: { ...settings.env, TOOLGATE_INTEGRITY_KEY: undefined },
    logDir: settings.logDir,
  });
  const children = [gate, worker];
  const system: DemoSystem = {
    children,
    died: () => children.find((c) => c.hasExited()),
    stop: async () => {
      const graceMs = settings.config.shutdownTimeoutMs + 2_000;
      await Promise.all(children.map((c) => c.stop(graceMs)));
    },
  };
  // Below info the worker does not log its start; commands then wait on their topic until it
  // joins (a new group reads from the beginning), so nothing is lost by not waiting for it.
  const startLogged = ['trace', 'debug', 'info'].includes(settings.config.logLevel);
  say(`started the gate (pid ${gate.pid}, log ${gate.log})`);
  say(`started the tool worker (pid ${worker.pid}, log ${worker.log})`);
  try {
    await waitUntil(system, START_TIMEOUT_MS, signal, async () => {
      const stages = await Promise.all(
        DEMO_STAGES.map((s) => isReady(`http://127.0.0.1:${settings.ports[s]}/readyz`)),
      );
      const pending: string[] = DEMO_STAGES.filter((_, i) => stages[i] !== true);
      if (startLogged && !logHas(worker, 'tool worker started')) pending.push('tool worker');
      return pending;
    });
  } catch (error) {
    await system.stop();
    throw error;
  }
  return system;
}

/** A message naming `child`'s exit and the end of its log. */
export function deathNotice(child: DemoChild, code: string): string {
  const tail = child.tail(5);
  return `${child.name} stopped unexpectedly (exit ${code}); read ${child.log}${tail === '' ? '' : `:\n${indent(tail)}`}`;
}

async function waitUntil(
  system: DemoSystem,
  timeoutMs: number,
  signal: AbortSignal,
  notReady: () => Promise<string[]>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let waiting: string[] = [];
  while (Date.now() < deadline) {
    if (signal.aborted) throw new DemoStartError('interrupted during start-up', false);
    const dead = system.died();
    if (dead !== undefined) throw new DemoStartError(deathNotice(dead, await dead.exited), true);
    waiting = await notReady();
    if (waiting.length === 0) return;
    await sleep(250);
  }
  const logs = system.children.map((c) => c.log).join(', ');
  throw new DemoStartError(
    `not ready within ${timeoutMs / 1000} s: ${waiting.join(', ')}; read ${logs}`,
    false,
  );
}

async function isReady(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
}
