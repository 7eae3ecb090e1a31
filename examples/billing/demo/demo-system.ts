/**
 * Brings the gate, analytics, the tool worker and the console up as child processes, each as its
 * own principal of the stack (`toolgate-<stage>` for each stage, `toolgate-analytics`,
 * `worker-billing` for the worker, each with only the keys its role holds; the console as none,
 * since it holds no Kafka or Redis credentials), and waits until every one of them reports ready on `/readyz`, failing
 * with the log to read when one of them dies or does not get there in time.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ANALYTICS_PRINCIPAL, EXAMPLE_WORKER, stagePrincipal, type Env } from '@toolgate/platform';
import { startChild, type DemoChild } from './child-processes.js';
import {
  DEMO_STAGES,
  type DemoProcess,
  type DemoSettings,
  type DemoStage,
} from './demo-settings.js';
import { writeConsoleSignIns } from './console-sign-ins.js';
import type { Provisioned } from './namespace-setup.js';

/** How long start-up may take before the demo gives up, in ms (tsx compiles on first start). */
export const START_TIMEOUT_MS = 120_000;

/** The running gate and tool worker. */
export interface DemoSystem {
  /** The children running now (a restarted stage's new process in place of its old one). */
  readonly children: readonly DemoChild[];
  /** The tool worker's process. */
  readonly worker: DemoChild;
  /** The first child that ended on its own, if any. */
  died(): DemoChild | undefined;
  /**
   * Stops the confirm stage and starts it again with `deploymentFile`, resolving once it is ready;
   * the old process's end is not a death.
   */
  restartConfirm(deploymentFile: string, signal: AbortSignal): Promise<void>;
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
 * Starts the stages and the tool worker; resolves once every one is ready. A child that dies during
 * start-up (on a loaded machine the registry can miss the stages' 5 s bound the first time they
 * register their schemas) is reported and everything is started again, up to
 * {@link START_ATTEMPTS} times.
 */
export async function startDemoSystem(
  settings: DemoSettings,
  provisioned: Provisioned,
  say: (line: string) => void,
  signal: AbortSignal,
): Promise<DemoSystem> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnce(settings, provisioned, say, signal);
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
  provisioned: Provisioned,
  say: (line: string) => void,
  signal: AbortSignal,
): Promise<DemoSystem> {
  const stages = DEMO_STAGES.map((stage) => startStage(settings, stage, settings.deploymentFile));
  const worker = startChild({
    name: 'tool-worker',
    args: ['--no-turbo-inline-js-wasm-calls', '--import', 'tsx', 'examples/billing/tool-worker.ts'],
    env: workerEnv(settings, provisioned),
    logDir: settings.logDir,
  });
  const analytics = startAnalytics(settings);
  const console = startConsole(settings, await writeConsoleSignIns(settings));
  let children = [...stages, analytics, worker, console];
  const graceMs = settings.config.shutdownTimeoutMs + 2_000;
  const system: DemoSystem = {
    get children() {
      return children;
    },
    worker,
    died: () => children.find((c) => c.hasExited()),
    restartConfirm: async (deploymentFile, signal) => {
      const old = children.find((c) => c.name === 'confirm');
      if (old === undefined) throw new Error('the demo runs no confirm stage');
      // Out of the list first, so its end is not taken for a death.
      children = children.filter((c) => c !== old);
      await old.stop(graceMs);
      const restarted = startStage(settings, 'confirm', deploymentFile);
      children = [...children, restarted];
      say(`restarted confirm (pid ${restarted.pid}, log ${restarted.log})`);
      await waitUntil(system, START_TIMEOUT_MS, signal, async () =>
        (await isReady(`${settings.urlOf('confirm')}/readyz`)) ? [] : ['confirm'],
      );
    },
    stop: async () => {
      await Promise.all(children.map((c) => c.stop(graceMs)));
    },
  };
  for (const child of children) say(`started ${child.name} (pid ${child.pid}, log ${child.log})`);
  const processes: readonly DemoProcess[] = [...DEMO_STAGES, 'analytics', 'worker', 'console'];
  try {
    await waitUntil(system, START_TIMEOUT_MS, signal, async () => {
      const ready = await Promise.all(processes.map((p) => isReady(`${settings.urlOf(p)}/readyz`)));
      return processes.filter((_, i) => !ready[i]);
    });
  } catch (error) {
    await system.stop();
    throw error;
  }
  return system;
}

/**
 * `toolgate start <stage>` as `toolgate-<stage>`, on the stage's own HTTP port (and confirm's
 * approval API on its own).
 */
function startStage(settings: DemoSettings, stage: DemoStage, deploymentFile: string): DemoChild {
  const env: Env = {
    ...settings.envOf(stagePrincipal(stage)),
    TOOLGATE_HTTP_PORT: String(settings.ports[stage]),
    ...(stage === 'confirm' ? { TOOLGATE_APPROVAL_PORT: String(settings.approvalPort) } : {}),
  };
  return startChild({
    name: stage,
    args: ['packages/cli/bin/toolgate.js', 'start', stage, '--config', deploymentFile],
    env,
    logDir: settings.logDir,
  });
}

/**
 * `toolgate start analytics` as `toolgate-analytics`, with the deployment (its alert rules, and its
 * session keys for the windows and alerts API) on its own HTTP port.
 */
function startAnalytics(settings: DemoSettings): DemoChild {
  return startChild({
    name: 'analytics',
    args: [
      'packages/cli/bin/toolgate.js',
      'start',
      'analytics',
      '--config',
      settings.deploymentFile,
    ],
    env: {
      ...settings.envOf(ANALYTICS_PRINCIPAL),
      TOOLGATE_HTTP_PORT: String(settings.ports.analytics),
    },
    logDir: settings.logDir,
  });
}

/**
 * `toolgate start console` with no Kafka or Redis identity at all: it reads the deployment only to
 * verify session tokens, and calls the approval and analytics APIs as whoever signed in. It offers
 * the example's users as development sign-ins.
 */
function startConsole(settings: DemoSettings, signInsFile: string): DemoChild {
  return startChild({
    name: 'console',
    args: ['packages/cli/bin/toolgate.js', 'start', 'console', '--config', settings.deploymentFile],
    env: {
      ...settings.envOf(),
      TOOLGATE_CONSOLE_PORT: String(settings.ports.console),
      TOOLGATE_APPROVAL_URL: settings.approvalUrl,
      TOOLGATE_ANALYTICS_URL: settings.urlOf('analytics'),
      TOOLGATE_CONSOLE_DEV_SIGN_INS: signInsFile,
    },
    logDir: settings.logDir,
  });
}

/**
 * The worker as `worker-billing`: its tool keys and its Redis user (the namespace's, when the run
 * has one), no integrity or command key; its metrics and readiness on its HTTP port.
 */
function workerEnv(settings: DemoSettings, provisioned: Provisioned): Env {
  return {
    ...settings.envOf(EXAMPLE_WORKER.principal),
    ...(provisioned.workerRedisUrl === undefined
      ? {}
      : { TOOLGATE_REDIS_URL: provisioned.workerRedisUrl }),
    TOOLGATE_HTTP_PORT: String(settings.ports.worker),
  };
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
