/**
 * `npm run chaos`: the gate under faults. Starts a stack of its own (its own directory and ports,
 * never the developer's), every gate stage twice over and two of the example's tool workers with
 * their real handlers, drives the benchmark's seeded mix at a steady rate with an approver that
 * approves most calls, rejects some and lets some expire, and injects faults on a seeded schedule:
 * one at a time, then several at once. Then the judge reads what the gate answered and what the
 * tools did, checks the invariants (docs/reliability.md), prints its table and writes
 * bench/results/chaos-latest.json. Exits non-zero when an invariant broke or the run failed.
 *
 *   npm run chaos -- --quick     # one Kafka node, one Redis, a few faults (docs/reliability.md)
 *   npm run chaos                # three Kafka nodes, a Redis Cluster, 210 faults
 */
import { join } from 'node:path';
import { loadStackConfig, type StackConfig } from '../../infra/stack-config.js';
import { stackDown, stackUp } from '../../infra/stack-driver.js';
import { StackError } from '../../infra/stack-error.js';
import { REPO_ROOT } from '../pipeline/start-systems.js';
import { CHAOS_REPORT_PATH, writeChaosReport } from './format-chaos.js';
import { formatChaosReport, judgeRun } from './judge-run.js';
import { chaosStackEnv, parseChaosOptions, USAGE, type ChaosOptions } from './chaos-options.js';
import { runChaos } from './run-chaos.js';

const progress = (line: string) =>
  console.error(`[chaos ${new Date().toISOString().slice(11, 19)}] ${line}`);

/** The run's stack: brought up first, stopped last, once, however the run ends. */
function ownStack(config: StackConfig) {
  const reporter = { line: (text: string) => progress(`stack: ${text}`) };
  let stopping: Promise<void> | undefined;
  return {
    up: () => stackUp(config, reporter),
    down: () =>
      (stopping ??= stackDown(config, reporter).catch((error: unknown) =>
        progress(
          `stack: could not stop (${messageOf(error)}); npm run stack:down with TOOLGATE_STACK_DIR=${config.stackDir} stops it`,
        ),
      )),
  };
}

async function main(): Promise<number> {
  let options: ChaosOptions;
  try {
    options = parseChaosOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`${messageOf(error)}\n${USAGE}`);
    return 2;
  }
  const started = Date.now();
  // The run's stack variables, read by loadStackConfig here and in the run below.
  const env = chaosStackEnv(options.mode, process.env);
  for (const name of Object.keys(process.env))
    if (env[name] === undefined) delete process.env[name];
  Object.assign(process.env, env);
  const config = loadStackConfig(process.env, REPO_ROOT);
  const stack = ownStack(config);
  const interrupted = (signal: NodeJS.Signals) => {
    progress(`${signal} while the stack starts: stopping it`);
    void stack.down().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  progress(`${options.mode} run, seed ${options.seed}: starting its stack in ${config.stackDir}`);
  try {
    await stack.up();
  } catch (error) {
    await stack.down();
    throw error;
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
  }
  // The judge reads the run's topics and Redis: it runs before the stack stops.
  const report = await runChaos({
    options,
    config,
    progress,
    judge: judgeRun,
    afterEnd: stack.down,
  });
  writeChaosReport(report, join(REPO_ROOT, CHAOS_REPORT_PATH));
  console.log(formatChaosReport(report).join('\n'));
  console.log(
    `written to ${CHAOS_REPORT_PATH}; the whole run took ${Math.round((Date.now() - started) / 1000)} s`,
  );
  return report.ok ? 0 : 1;
}

function messageOf(error: unknown): string {
  if (error instanceof StackError) return error.oneLine();
  return error instanceof Error ? error.message : String(error);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`chaos: ${messageOf(error)}`);
    process.exit(1);
  },
);
