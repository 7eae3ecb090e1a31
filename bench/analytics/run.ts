/**
 * `npm run bench:analytics`: does the analytics service keep up with the audit topic at the gate's
 * saturation rate, and does its lag return to zero within a minute of the load's end? Needs the
 * local stack (`npm run stack:up`). Prints a table, writes bench/results/analytics-latest.json,
 * and exits 1 when the main phase's lag did not return to zero within 60 s.
 *
 *   npm run bench:analytics                    # 60 s at the gate's saturation, then 60 s at twice it
 *   npm run bench:analytics -- --quick         # 20 s phases
 *   npm run bench:analytics -- --rate 1200 --no-headroom
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ANALYTICS_USAGE, parseAnalyticsOptions } from './analytics-options.js';
import { measureAnalytics } from './measure-analytics.js';
import { DRAIN_LIMIT_MS, formatPhases } from './summarize.js';

const progress = (line: string) =>
  console.error(`[bench:analytics ${new Date().toISOString().slice(11, 19)}] ${line}`);

async function main(): Promise<number> {
  let options;
  try {
    options = parseAnalyticsOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${ANALYTICS_USAGE}`);
    return 2;
  }
  const result = await measureAnalytics(options, progress);
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, `${JSON.stringify(result, null, 2)}\n`);
  const m = result.machine;
  const fmt = (l: readonly number[]) => l.map((x) => x.toFixed(2)).join(', ');
  console.log(
    [
      `${m.cpus} × ${m.cpuModel}, node ${m.node}; load average ${fmt(m.loadAverageAtStart)} at the start, ${fmt(m.loadAverageAtEnd)} at the end`,
      `gate saturation ${result.gateSaturationProposalsPerS} proposals/s × ${result.auditEventsPerProposal} audit events per proposal; seed ${result.seed}`,
      ...formatPhases(result.phases),
      `written to ${options.out}`,
    ].join('\n'),
  );
  const main = result.phases[0];
  if (main?.drained !== true) {
    console.error(
      `bench:analytics: the lag did not return to 0 within ${DRAIN_LIMIT_MS / 1000} s of the load's end`,
    );
    return 1;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`bench:analytics: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
