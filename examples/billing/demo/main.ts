/**
 * `npm start`: the whole system on the billing example. Starts the gate's four stages and the
 * example's tool worker as child processes (logs under .demo/logs), plays a scripted agent and
 * approver against them, prints a table of outcomes read back from the audit topic, then keeps
 * the system up for exploring until Ctrl-C. With `--once` it exits after the table: 0 when every
 * outcome was the one the script expected, 1 otherwise. The stack must be up (`npm start` runs
 * `stack:up` first).
 */
import path from 'node:path';
import { ConfigError } from '@toolgate/shared';
import { demoSettings, REPO_ROOT, type DemoSettings } from './demo-settings.js';
import { deathNotice, startDemoSystem, type DemoSystem } from './demo-system.js';
import { runDemo } from './run-demo.js';

const say = (line: string) => process.stdout.write(`demo: ${line}\n`);

async function main(): Promise<number> {
  let settings: DemoSettings;
  try {
    settings = demoSettings(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(
      `demo: cannot start:\n${error.problems.map((p) => `  - ${p}\n`).join('')}`,
    );
    return 2;
  }
  say(
    `run ${settings.runTag}: starting the gate (validate, authorize, confirm, execute) and the tool worker`,
  );
  const interrupt = new AbortController();
  const interrupted = onSignal(interrupt);
  let system: DemoSystem;
  try {
    system = await startDemoSystem(settings, say, interrupt.signal);
  } catch (error) {
    if (interrupt.signal.aborted) return 130;
    throw error;
  }
  const died = watchChildren(system, interrupt.signal);
  try {
    say('the gate and the tool worker are ready');
    const report = await Promise.race([
      runDemo(settings, say),
      died.promise,
      interrupted.then(() => undefined),
    ]);
    if (report === undefined) return 130;
    process.stdout.write(
      `\nOutcomes of this run by stage, code and kind (from the audit topic):\n\n${report.table}\n\n`,
    );
    if (report.mismatches.length === 0) {
      say(
        `all ${report.proposals} proposals ended as the script expected; every rung of the ladder refused at least once`,
      );
    } else {
      say(`${report.mismatches.length} difference(s) from the script:`);
      for (const line of report.mismatches) process.stdout.write(`  - ${line}\n`);
    }
    if (settings.once) return report.mismatches.length === 0 ? 0 : 1;
    explore(settings);
    return await Promise.race([interrupted, died.promise]);
  } finally {
    await system.stop();
  }
}

/**
 * Resolves with 130 on the first SIGINT or SIGTERM and aborts `interrupt`; the caller then stops
 * the children (a Ctrl-C in a terminal reaches them too, and they stop on their own).
 */
function onSignal(interrupt: AbortController): Promise<number> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      if (interrupt.signal.aborted) return;
      say(`${signal}: stopping the gate and the tool worker`);
      interrupt.abort();
      resolve(130);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** Rejects (with a message naming the log) when a child ends on its own, not after `stopping`. */
function watchChildren(system: DemoSystem, stopping: AbortSignal): { promise: Promise<never> } {
  const promise = Promise.race(
    system.children.map(async (child) => ({ child, code: await child.exited })),
  ).then(({ child, code }) => {
    if (stopping.aborted) return new Promise<never>(() => undefined);
    throw new Error(deathNotice(child, code));
  });
  promise.catch(() => undefined);
  return { promise };
}

function explore(settings: DemoSettings): void {
  const { ports } = settings;
  const config = 'examples/billing/demo/toolgate.demo.config.ts';
  process.stdout.write(
    [
      '',
      'The gate and the tool worker keep running. From another terminal:',
      ...settings.addressExports.map((line) => `  ${line}`),
      '  npx toolgate --help                       every command',
      `  npx toolgate token --config ${config} --sub alice --tenant acme --roles approver`,
      '  npx toolgate pending                      confirmations waiting for a person',
      '  npx toolgate tail audit                   decisions as they happen',
      '  npx toolgate stats                        refusals by stage and code',
      `  curl -s http://127.0.0.1:${ports.validate}/metrics   (validate; authorize ${ports.authorize}, confirm ${ports.confirm}, execute ${ports.execute})`,
      `Logs: ${path.relative(REPO_ROOT, settings.logDir)}/{gate,tool-worker}.log. Ctrl-C stops everything.`,
      '',
    ].join('\n'),
  );
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`demo: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
