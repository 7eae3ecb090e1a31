/**
 * parseJsonBounded against native JSON.parse on realistic argument texts. Run with
 * `npx tsx packages/shared/bench/parse.bench.ts`. Prints ns per parse and the ratio.
 */
import { DEFAULT_PARSE_LIMITS } from '../src/representation/parse-limits.js';
import { parseJsonBounded } from '../src/representation/parse-json-bounded.js';
import { FIXTURES } from './fixtures.js';

const BUDGET_MS = 400;

/** Nanoseconds per call of `parse(text)`, after a warm-up, over about BUDGET_MS of wall time. */
function measure(parse: (text: string) => unknown, text: string): number {
  let sink = 0;
  for (let i = 0; i < 2_000; i++) sink += parse(text) === undefined ? 1 : 0;
  let calls = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0n;
  while (elapsed < BigInt(BUDGET_MS) * 1_000_000n) {
    for (let i = 0; i < 200; i++) sink += parse(text) === undefined ? 1 : 0;
    calls += 200;
    elapsed = process.hrtime.bigint() - start;
  }
  if (sink < 0) console.log(sink);
  return Number(elapsed) / calls;
}

const bounded = (text: string): unknown => {
  const d = parseJsonBounded(text, DEFAULT_PARSE_LIMITS);
  if (!d.ok) throw new Error(`fixture refused: ${d.code} ${d.internalDetail}`);
  return d.value;
};
const native = (text: string): unknown => JSON.parse(text) as unknown;

console.log(`node ${process.version}`);
console.log('fixture                 bytes   JSON.parse ns   bounded ns   ratio');
for (const { name, text } of FIXTURES) {
  const bytes = Buffer.byteLength(text);
  const n = measure(native, text);
  const b = measure(bounded, text);
  console.log(
    `${name.padEnd(22)} ${String(bytes).padStart(6)} ${n.toFixed(0).padStart(14)} ${b.toFixed(0).padStart(12)} ${(b / n).toFixed(2).padStart(7)}`,
  );
}
