/**
 * `npm start`: the whole system on the billing example, on the secured stack. Starts each of the
 * gate's four stages and the example's tool worker as a child process of its own, each connecting
 * as its own principal of the stack (logs under .demo/logs), plays scripted agents (one per
 * tenant, each as its tenant's principal) and a scripted approver against them, prints a table of
 * outcomes read back from the audit topic, then tries to walk around the gate and prints what
 * stopped each attempt. Then it keeps the system up for exploring until Ctrl-C, with one call of
 * acme's agent (a 25,000.00 EUR invoice) waiting for a person in the console. With `--once` it
 * exits after the summary: 0 when every outcome was the one the script expected and every
 * walk-around attempt was stopped, 1 otherwise. With topic, group or Redis prefixes it first
 * provisions that namespace as the stack's admin. The stack must be up (`npm start` runs
 * `stack:up` first).
 */
import path from 'node:path';
import { DEFAULT_APPROVAL_PORT } from '@toolgate/platform';
import { ConfigError, type Observation } from '@toolgate/shared';
import { leaveCallForConsole, type ConsoleCall } from './console-call.js';
import { demoSettings, REPO_ROOT, type DemoSettings } from './demo-settings.js';
import { deathNotice, startDemoSystem, type DemoSystem } from './demo-system.js';
import { provisionNamespace, type Provisioned } from './namespace-setup.js';
import { playDemo } from './play-demo.js';

const say = (line: string) => process.stdout.write(`demo: ${line}\n`);
const print = (text: string) => process.stdout.write(text);

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
    settings.sessionSecretGenerated
      ? "sessions: a random HS256 secret generated for this demo run (never the example's published one); set TOOLGATE_SESSION_SECRET to choose it"
      : 'sessions: the HS256 secret of TOOLGATE_SESSION_SECRET',
  );
  say(
    `run ${settings.runTag}: starting the gate (validate, authorize, confirm, execute), analytics and the tool worker, each as its own principal`,
  );
  const interrupt = new AbortController();
  const interrupted = onSignal(interrupt);
  let provisioned: Provisioned;
  let system: DemoSystem;
  try {
    provisioned = await provisioning(settings);
    system = await startDemoSystem(settings, provisioned, say, interrupt.signal);
  } catch (error) {
    if (interrupt.signal.aborted) return 130;
    throw error;
  }
  const died = watchChildren(system, interrupt.signal);
  try {
    say('the gate, analytics, the tool worker and the console are ready');
    say(`console: ${settings.urlOf('console')}/ (approvals inbox and refusals dashboard)`);
    const ok = await Promise.race([
      playDemo(settings, system, provisioned, { say, print }),
      died.promise,
      interrupted.then(() => undefined),
    ]);
    if (ok === undefined) return 130;
    if (settings.once) return ok ? 0 : 1;
    const call = await leaveCallForConsole(settings, system, interrupt.signal);
    try {
      explore(settings, call);
      void call.answered.then((observation) => {
        if (observation !== undefined)
          say(`the agent's call was answered: ${answerOf(observation)}`);
      });
      return await Promise.race([interrupted, died.promise]);
    } finally {
      await call.close();
    }
  } finally {
    await system.stop();
  }
}

/** The run's namespace, provisioned as the stack's admin when it has one. */
async function provisioning(settings: DemoSettings): Promise<Provisioned> {
  if (!settings.namespaced) return {};
  const { topicPrefix, groupPrefix, redisPrefix } = settings.config;
  say(
    `provisioning the namespace as the stack's admin: topics and ACLs under ${JSON.stringify(topicPrefix)} and ${JSON.stringify(groupPrefix)}, a worker Redis user for ${JSON.stringify(redisPrefix)}`,
  );
  return provisionNamespace(settings);
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

/**
 * Rejects (with a message naming the log) when a child ends on its own, not after `stopping`; a
 * child the system replaced on purpose (a restarted stage) is no death, and its successor is
 * watched from then on.
 */
function watchChildren(system: DemoSystem, stopping: AbortSignal): { promise: Promise<never> } {
  const watch = async (): Promise<never> => {
    for (;;) {
      const ended = await Promise.race(
        system.children.map(async (child) => ({ child, code: await child.exited })),
      );
      if (stopping.aborted) return new Promise<never>(() => undefined);
      if (system.children.includes(ended.child)) {
        throw new Error(deathNotice(ended.child, ended.code));
      }
    }
  };
  const promise = watch();
  promise.catch(() => undefined);
  return { promise };
}

function explore(settings: DemoSettings, call: ConsoleCall): void {
  const { ports } = settings;
  const config = 'examples/billing/demo/toolgate.demo.config.ts';
  const logs = path.relative(REPO_ROOT, settings.logDir);
  process.stdout.write(
    [
      '',
      'The gate, the tool worker and the console keep running.',
      `acme's agent now asks, as alice, to approve ${call.invoiceId} (25,000.00 EUR); the call waits for a person:`,
      `  open ${settings.urlOf('console')}/ in a browser, choose the development sign-in "alice", and approve or reject the card;`,
      '  what you decide comes back to the agent and is printed here.',
      'From another terminal:',
      ...settings.addressExports.map((line) => `  ${line}`),
      ...(settings.approvalUrl === `http://127.0.0.1:${DEFAULT_APPROVAL_PORT}`
        ? []
        : [`  export TOOLGATE_APPROVAL_URL=${settings.approvalUrl}`]),
      '  npx toolgate --help                       every command',
      '  npx toolgate stack env --list             the principals of the stack',
      `  TOOLGATE_SESSION_SECRET=${settings.sessionSecret} npx toolgate token --config ${config} --sub alice --tenant acme --roles approver`,
      '  npx toolgate pending                      confirmations waiting for a person',
      '  eval "$(npx toolgate stack env toolgate-analytics)"   then, as analytics:',
      '  npx toolgate tail audit                   decisions as they happen',
      '  npx toolgate stats                        refusals by stage and code',
      `  curl -s http://127.0.0.1:${ports.validate}/metrics   (validate; authorize ${ports.authorize}, confirm ${ports.confirm}, execute ${ports.execute}, tool worker ${ports.worker})`,
      `Logs: ${logs}/{validate,authorize,confirm,execute,tool-worker,analytics,console}.log. Ctrl-C stops everything.`,
      '',
    ].join('\n'),
  );
}

/** An observation in one line: its outcome, and the result or the refusal's code and message. */
function answerOf(observation: Observation): string {
  if (observation.outcome === 'result') return `result ${observation.result?.content ?? ''}`;
  return `${observation.outcome} ${observation.stage ?? ''}/${observation.code ?? ''}: ${observation.message}`;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`demo: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
