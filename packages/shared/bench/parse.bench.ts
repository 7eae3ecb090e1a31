/**
 * parseJsonBounded against native JSON.parse on realistic argument texts, with the alternative
 * design (light scan + JSON.parse) for comparison. Run with `npm run bench -w @toolgate/shared`.
 * Prints nanoseconds per parse and the ratios to JSON.parse; asserts nothing about speed.
 */
import { DEFAULT_PARSE_LIMITS } from '../src/representation/parse-limits.js';
import { parseJsonBounded } from '../src/representation/parse-json-bounded.js';
import { FIXTURES } from './fixtures.js';
import { scanThenNative } from './scan-then-native.js';

const SLICE_MS = 40;
const ROUNDS = 25;

/** Nanoseconds per call of `parse(text)` over about SLICE_MS. */
function slice(parse: (text: string) => unknown, text: string): number {
  let calls = 0;
  let refused = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0n;
  while (elapsed < BigInt(SLICE_MS) * 1_000_000n) {
    for (let i = 0; i < 50; i++) refused += parse(text) === undefined ? 1 : 0;
    calls += 50;
    elapsed = process.hrtime.bigint() - start;
  }
  if (refused !== 0) throw new Error('a fixture was refused');
  return Number(elapsed) / calls;
}

const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/**
 * The parsers run in turns, one slice each per round, so that load from other processes falls on
 * all of them alike; the ratios are medians of per-round ratios.
 */
function compare(parsers: readonly ((text: string) => unknown)[], text: string) {
  for (const parse of parsers) slice(parse, text);
  const rounds = Array.from({ length: ROUNDS }, () => parsers.map((parse) => slice(parse, text)));
  return parsers.map((_, i) => ({
    ns: median(rounds.map((r) => r[i] ?? Number.NaN)),
    ratio: median(rounds.map((r) => (r[i] ?? Number.NaN) / (r[0] ?? Number.NaN))),
  }));
}

const bounded = (text: string): unknown => {
  const d = parseJsonBounded(text, DEFAULT_PARSE_LIMITS);
  return d.ok ? d.value : undefined;
};
const native = (text: string): unknown => JSON.parse(text) as unknown;
const alternative = (text: string): unknown => scanThenNative(text, DEFAULT_PARSE_LIMITS);

const pad = (s: string, n: number) => s.padStart(n);
console.log(`node ${process.version}; median of ${String(ROUNDS)} interleaved rounds`);
console.log('fixture               bytes  JSON.parse ns  bounded ns  ratio  scan+native ns  ratio');
for (const { name, text } of FIXTURES) {
  const [n, b, a] = compare([native, bounded, alternative], text);
  console.log(
    [
      name.padEnd(20),
      pad(String(Buffer.byteLength(text)), 6),
      pad((n?.ns ?? 0).toFixed(0), 14),
      pad((b?.ns ?? 0).toFixed(0), 11),
      pad((b?.ratio ?? 0).toFixed(2), 6),
      pad((a?.ns ?? 0).toFixed(0), 15),
      pad((a?.ratio ?? 0).toFixed(2), 6),
    ].join(' '),
  );
}
