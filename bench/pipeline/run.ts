/**
 * `npm run bench`: the gate against a do-nothing relay on the same broker, in one run.
 * Needs the local stack (`npm run stack:up`). Prints a table ending with the ratios line, writes
 * bench/results/latest.json and bench/results/latency-vs-load.svg. Asserts nothing about speed.
 *
 *   npm run bench -- --quick          # a few minutes: 3 short repetitions
 *   npm run bench                     # fuller: 5 longer repetitions
 *   npm run bench -- --profile bench/results/profiles   # every gate and relay process under --cpu-prof
 *   npm run bench -- --quick --fairness   # one tenant steady beside another flooding
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseBenchOptions, USAGE } from './bench-options.js';
import { formatReport } from './format-report.js';
import { latencyChart } from './latency-chart.js';
import { measurePipeline } from './measure-pipeline.js';
import { measureFairness } from './measure-fairness.js';
import { formatFairness } from './fairness.js';
import type { BenchOptions } from './bench-options.js';

const progress = (line: string) =>
  console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`);

async function main(): Promise<number> {
  let options;
  try {
    options = parseBenchOptions(process.argv.slice(2), process.env);
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  if (options.fairness) return fairness(options);
  const result = await measurePipeline(options, progress);
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, `${JSON.stringify(result, null, 2)}\n`);
  const chart = join(dirname(options.out), 'latency-vs-load.svg');
  const fetching = options.fetch;
  const title = `${options.mode}, ${options.reps} repetitions, seed ${options.seed}, busy fetch waits ≤ ${fetching.fetchMaxWaitMs} ms for ${fetching.fetchMinBytes} B (busy: ≥ ${fetching.fetchBusyMinBytes} B last fetch)`;
  writeFileSync(
    chart,
    latencyChart(
      { onehop: result.onehop, relay: result.relay, gate: result.gate },
      `Latency vs load (${title})`,
    ),
  );
  const m = result.machine;
  console.log(
    formatReport({
      title,
      machine: `${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, node ${m.node}, load ${JSON.stringify(m.loadAverageAtStart)}; all ${m.cpus} cores busy ran at ${m.calibrationAtStart.speedAllBusy.toFixed(2)} of one core's speed at the start, ${m.calibrationAtEnd.speedAllBusy.toFixed(2)} at the end; loopback round trip ${m.calibrationAtStart.loopbackRoundTripUs} µs, then ${m.calibrationAtEnd.loopbackRoundTripUs}`,
      systems: { onehop: result.onehop, relay: result.relay, gate: result.gate },
      ratios: result.ratios,
      notes: [...result.notes, `written to ${options.out} and ${chart}`],
      proofCost: result.proofCost,
    }).join('\n'),
  );
  return 0;
}

/** `--fairness`: the scenario, its JSON, and its lines ending with the verdict. */
async function fairness(options: BenchOptions): Promise<number> {
  const result = await measureFairness(options, progress);
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, `${JSON.stringify(result, null, 2)}\n`);
  const load = result.loadAverage;
  console.log(
    [
      `${options.mode}, ${result.reps} repetitions of ${result.phaseMs / 1000} s per phase, seed ${result.seed}; ${result.cpus} × ${result.cpuModel}, node ${result.node}; load average ${load.atStart.join(', ')} at the start, ${load.atEnd.join(', ')} at the end`,
      ...result.notes,
      `written to ${options.out}`,
      ...formatFairness(result.params, result.runs, result.verdict),
    ].join('\n'),
  );
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`bench: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
