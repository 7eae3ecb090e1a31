/** The command line of `npm run bench`, read into validated options. Pure. */
import { parseArgs } from 'node:util';
import {
  CONFIG_VARIABLES,
  FETCH_DEFAULTS,
  loadVariables,
  type Env,
  type FetchConfig,
} from '@toolgate/platform';

/** How a run is shaped. Durations in ms. */
export interface BenchOptions {
  readonly mode: 'quick' | 'full';
  /** Repetitions of each phase per system (interleaved). */
  readonly reps: number;
  /** Length of one saturation repetition. */
  readonly saturationMs: number;
  /** Length of one open-loop repetition. */
  readonly openMs: number;
  /** Load levels as fractions of the relay's saturation. */
  readonly fractions: readonly number[];
  /**
   * Proposals outstanding during a saturation run, the same for every system. Default 200: more
   * than either pipeline answers in one of its batch cycles, and short enough that the gate's
   * queue stays within the tools' 10 s deadline (a larger one turned queued commands into
   * `unknown_outcome`).
   */
  readonly window: number;
  /** Warm-up of each system before measuring. */
  readonly warmupMs: number;
  readonly seed: number;
  /** Where latest.json goes; the chart goes beside it. */
  readonly out: string;
  /** Run the gate's and the relay's processes under `--cpu-prof`, profiles into this directory. */
  readonly profileDir: string | undefined;
  /**
   * The profiler's sampling interval in µs (`--cpu-prof-interval`). Default
   * {@link DEFAULT_PROFILE_INTERVAL_US}: node's own 1 ms made each of the twelve processes wake a
   * thousand times a second, which once cost an idle process 5 % of a core.
   */
  readonly profileIntervalUs: number;
  /** After the run, read the topics again and report each hop's time over the accepted calls. */
  readonly hops: boolean;
  /** The stage loops' fetch settings of every process of both systems (`TOOLGATE_FETCH_*`). */
  readonly fetch: FetchConfig;
  /**
   * Run the fairness scenario (two tenants, one flooding; `measure-fairness.ts`) instead of the
   * gate against the relay.
   */
  readonly fairness: boolean;
}

/** Default sampling interval of `--profile`, in µs: 100 samples a second per thread. */
export const DEFAULT_PROFILE_INTERVAL_US = 10_000;

/** Usage text, shown for --help and with an error. */
export const USAGE = `npm run bench [-- --quick] [--reps N] [--seed N] [--out FILE] [--profile DIR [--profile-interval US]] [--hops] [--fairness]
  --quick      3 short repetitions (a few minutes); default 5 longer ones
  --reps N     repetitions of each phase per system (≥ 3)
  --window N   proposals outstanding during saturation runs (default 200)
  --profile D  run the gate's and the relay's processes under node --cpu-prof, profiles into D
  --profile-interval US
               the profiler's sampling interval in µs (default ${DEFAULT_PROFILE_INTERVAL_US}; node's own is 1000)
  --loads L    open-loop levels in whole percent of the relay's saturation, comma-separated,
               50 among them (default 5,25,50,75)
  --hops       after the run, read every topic again and report the time of each hop
  --fairness   instead: the gate alone, one tenant steady beside another flooding at ten times
               its rate ceiling (bench/results/fairness.json)
TOOLGATE_FETCH_MAX_WAIT_MS, TOOLGATE_FETCH_MIN_BYTES and TOOLGATE_FETCH_BUSY_MIN_BYTES, if set,
apply to every process of both systems (default ${FETCH_DEFAULTS.maxWaitMs} ms, ${FETCH_DEFAULTS.minBytes} and ${FETCH_DEFAULTS.busyMinBytes} bytes).`;

function whole(
  name: string,
  text: string | undefined,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (text === undefined) return fallback;
  const n = text.trim() === '' ? Number.NaN : Number(text);
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`;
    throw new RangeError(`--${name} must be a whole number ${range}, got "${text}"`);
  }
  return n;
}

/** Light traffic, then the levels the targets are read at: a quarter, half and three quarters. */
const DEFAULT_LOADS = '5,25,50,75';

/** `--loads`: distinct whole percentages from 1 to 99, ascending, one of them 50 (the ratios'). */
function loads(text: string): number[] {
  const percents = text.split(',').map((part) => whole('loads', part, Number.NaN, 1, 99));
  if (!percents.includes(50))
    throw new RangeError(`--loads must include 50 (the ratios compare half load), got "${text}"`);
  return [...new Set(percents)].sort((a, b) => a - b).map((p) => p / 100);
}

/** `--profile-interval`: µs from 100 to 1,000,000, and only with `--profile`. */
function profileInterval(text: string | undefined, profileDir: string | undefined): number {
  if (text !== undefined && profileDir === undefined)
    throw new TypeError('--profile-interval needs --profile DIR');
  return whole('profile-interval', text, DEFAULT_PROFILE_INTERVAL_US, 100, 1_000_000);
}

const { FETCH_MAX_WAIT_MS, FETCH_MIN_BYTES, FETCH_BUSY_MIN_BYTES } = CONFIG_VARIABLES;

/**
 * Reads `argv` (without node and the script), and the fetch settings from `env`. Throws a
 * RangeError or TypeError naming the flag, or a ConfigError naming the variable.
 */
export function parseBenchOptions(argv: readonly string[], env: Env = {}): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      quick: { type: 'boolean', default: false },
      reps: { type: 'string' },
      seed: { type: 'string' },
      out: { type: 'string' },
      profile: { type: 'string' },
      'profile-interval': { type: 'string' },
      window: { type: 'string' },
      hops: { type: 'boolean', default: false },
      fairness: { type: 'boolean', default: false },
      loads: { type: 'string', default: DEFAULT_LOADS },
    },
  });
  const quick = values.quick;
  if (values.fairness && values.hops)
    throw new TypeError(
      '--hops compares the gate with the relay; the --fairness scenario has no relay',
    );
  return {
    mode: quick ? 'quick' : 'full',
    reps: whole('reps', values.reps, quick ? 3 : 5, 3),
    saturationMs: quick ? 10_000 : 20_000,
    openMs: quick ? 5_000 : 12_000,
    fractions: loads(values.loads),
    window: whole('window', values.window, 200, 10),
    warmupMs: quick ? 4_000 : 8_000,
    seed: whole('seed', values.seed, 20261129, 0),
    out: values.out ?? `bench/results/${values.fairness ? 'fairness' : 'latest'}.json`,
    profileDir: values.profile,
    profileIntervalUs: profileInterval(values['profile-interval'], values.profile),
    hops: values.hops,
    fetch: loadVariables(env, { FETCH_MAX_WAIT_MS, FETCH_MIN_BYTES, FETCH_BUSY_MIN_BYTES }),
    fairness: values.fairness,
  };
}
