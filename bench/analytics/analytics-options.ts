/** The command line of `npm run bench:analytics`, read into validated options. Pure. */
import { parseArgs } from 'node:util';
import { gateSaturationAuditRate } from './audit-mix.js';

/** How a run is shaped. */
export interface AnalyticsBenchOptions {
  /** Audit events/s offered in the main phase; default the gate's saturation in audit events. */
  readonly rate: number;
  /** Length of each phase's load, s. Default 60, 20 with `--quick`. */
  readonly seconds: number;
  /** Also offer twice the rate once, after the main phase drained. Default true. */
  readonly headroom: boolean;
  readonly seed: number;
  /** Where the JSON goes. */
  readonly out: string;
}

/** Usage text, shown for --help and with an error. */
export const ANALYTICS_USAGE = `npm run bench:analytics [-- --quick] [--rate N] [--seconds N] [--no-headroom] [--seed N] [--out FILE]
  --rate N        audit events/s to offer (default ${gateSaturationAuditRate()}: the gate's saturation in audit events)
  --seconds N     length of each phase's load (default 60; --quick 20)
  --no-headroom   skip the second phase at twice the rate
  --seed N        seed of the event mix (default 1)
  --out FILE      default bench/results/analytics-latest.json`;

/** Parses `argv` (after the script name); throws a RangeError naming every problem. */
export function parseAnalyticsOptions(argv: readonly string[]): AnalyticsBenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      quick: { type: 'boolean', default: false },
      rate: { type: 'string' },
      seconds: { type: 'string' },
      'no-headroom': { type: 'boolean', default: false },
      seed: { type: 'string', default: '1' },
      out: { type: 'string', default: 'bench/results/analytics-latest.json' },
    },
  });
  const problems: string[] = [];
  const positive = (name: string, text: string | undefined, fallback: number) => {
    if (text === undefined) return fallback;
    const n = Number(text);
    if (!Number.isInteger(n) || n <= 0) problems.push(`--${name} must be a whole number > 0`);
    return n;
  };
  const options = {
    rate: positive('rate', values.rate, gateSaturationAuditRate()),
    seconds: positive('seconds', values.seconds, values.quick ? 20 : 60),
    headroom: !values['no-headroom'],
    seed: positive('seed', values.seed, 1),
    out: values.out,
  };
  if (problems.length > 0) throw new RangeError(problems.join('; '));
  return options;
}
