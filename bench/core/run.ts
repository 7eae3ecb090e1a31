/**
 * `npm run bench:core`: the in-process ladder's cost on the billing example, beside a baseline of
 * bare JSON.parse + ajv measured in the same run. Prints a table and a final summary line, and
 * writes bench/results/core-latest.json. Asserts nothing about speed.
 *
 *   npm run bench:core                  # about 1.5 minutes
 *   npm run bench:core -- --quick       # about 20 seconds
 *   npm run bench:core -- --ladder-only # only evaluate(), e.g. under node --cpu-prof
 *   options: --rounds N  --seed N  --size N  --out FILE
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { finalLine, formatReport } from './format-report.js';
import { measureCore, type CoreOptions } from './measure-core.js';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    'ladder-only': { type: 'boolean', default: false },
    rounds: { type: 'string' },
    seed: { type: 'string', default: '20261129' },
    size: { type: 'string', default: '500' },
    out: { type: 'string', default: 'bench/results/core-latest.json' },
  },
});

function wholeNumber(name: string, text: string | undefined, fallback: number): number {
  const n = text === undefined ? fallback : Number(text);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new RangeError(`--${name} must be a whole number ≥ 1`);
  return n;
}

const quick = values.quick;
const options: CoreOptions = {
  mode: `${quick ? 'quick' : 'full'}${values['ladder-only'] ? ', ladder only' : ''}`,
  rounds: wholeNumber('rounds', values.rounds, quick ? 5 : 11),
  mainSliceMs: quick ? 600 : 2000,
  rungSliceMs: quick ? 120 : 400,
  warmupMs: quick ? 250 : 800,
  mixSize: wholeNumber('size', values.size, 500),
  seed: wholeNumber('seed', values.seed, 1),
  ladderOnly: values['ladder-only'],
};

const result = await measureCore(options, (line) => console.error(line));
const out = values.out;
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(formatReport(result).join('\n'));
console.log(`(written to ${out})`);
console.log(finalLine(result));
