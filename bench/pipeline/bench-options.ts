/** The command line of `npm run bench`, read into validated options. Pure. */
import { parseArgs } from 'node:util';

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
  /** Proposals outstanding in the first saturation repetition; later ones adapt (windowFor). */
  readonly window: number;
  /** Warm-up of each system before measuring. */
  readonly warmupMs: number;
  readonly seed: number;
  /** Where latest.json goes; the chart goes beside it. */
  readonly out: string;
  /** Run the gate's processes under `--cpu-prof`, profiles into this directory. */
  readonly profileDir: string | undefined;
}

/** Usage text, shown for --help and with an error. */
export const USAGE = `npm run bench [-- --quick] [--reps N] [--seed N] [--out FILE] [--profile DIR]
  --quick      3 short repetitions (a few minutes); default 5 longer ones
  --reps N     repetitions of each phase per system (≥ 3)
  --profile D  run the gate's processes under node --cpu-prof, profiles into D`;

function whole(name: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < min)
    throw new RangeError(`--${name} must be a whole number ≥ ${min}, got "${text}"`);
  return n;
}

/** Reads `argv` (without node and the script). Throws a RangeError or TypeError naming the flag. */
export function parseBenchOptions(argv: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      quick: { type: 'boolean', default: false },
      reps: { type: 'string' },
      seed: { type: 'string' },
      out: { type: 'string', default: 'bench/results/latest.json' },
      profile: { type: 'string' },
    },
  });
  const quick = values.quick;
  return {
    mode: quick ? 'quick' : 'full',
    reps: whole('reps', values.reps, quick ? 3 : 5, 3),
    saturationMs: quick ? 10_000 : 20_000,
    openMs: quick ? 5_000 : 12_000,
    fractions: [0.25, 0.5, 0.75],
    window: 150,
    warmupMs: quick ? 4_000 : 8_000,
    seed: whole('seed', values.seed, 20261129, 0),
    out: values.out,
    profileDir: values.profile,
  };
}

/**
 * Outstanding proposals for the next saturation repetition: three seconds of what the system just
 * did (enough to keep every hop's batches full), at least 60, at most 2000. A fixed large window
 * made the gate's queue longer than the tools' 10 s deadline, so the execute stage answered
 * `unknown_outcome` for commands that were merely queued, which is not what saturation measures.
 */
export function windowFor(throughput: number): number {
  return Math.min(2_000, Math.max(60, Math.round(throughput * 3)));
}
