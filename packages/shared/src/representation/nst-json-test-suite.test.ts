/**
 * The outside suite: nst/JSONTestSuite's 318 parsing cases, read in place from the shared corpora.
 * `y_` must be accepted, `n_` refused, `i_` either; the figures are printed and asserted.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpusPath } from '../corpora.test-support.js';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PARSE_LIMITS, type ParseLimits } from './parse-limits.js';
import { parseJsonBounded } from './parse-json-bounded.js';

const SUITE = corpusPath('nst-JSONTestSuite', 'test_parsing');

/** `y_` cases refused on purpose: parsers disagree on duplicates, so the gate takes neither. */
const INTENDED_Y_REFUSALS: Readonly<Record<string, string>> = {
  'y_object_duplicated_key.json': 'duplicate_key',
  'y_object_duplicated_key_and_value.json': 'duplicate_key',
};

/** Strict UTF-8: invalid sequences refuse, and a byte order mark is kept (and then refused). */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

interface Outcome {
  readonly file: string;
  readonly kind: string;
  readonly result: string;
}

function run(limits: ParseLimits): Outcome[] {
  return readdirSync(SUITE)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({ file, kind: file.slice(0, 1), result: resultOf(file, limits) }));
}

function resultOf(file: string, limits: ParseLimits): string {
  let text: string;
  try {
    text = utf8.decode(readFileSync(join(SUITE, file)));
  } catch {
    return 'invalid_json (not UTF-8)';
  }
  const d = parseJsonBounded(text, limits);
  return d.ok ? 'accepted' : d.code;
}

const count = (outcomes: Outcome[], kind: string, accepted: boolean) =>
  outcomes.filter((o) => o.kind === kind && (o.result === 'accepted') === accepted).length;

describe('parseJsonBounded on nst/JSONTestSuite', () => {
  const outcomes = run(DEFAULT_PARSE_LIMITS);
  const figures = {
    files: outcomes.length,
    yAccepted: count(outcomes, 'y', true),
    yRefused: count(outcomes, 'y', false),
    nRefused: count(outcomes, 'n', false),
    nRefusedAsTruncated: outcomes.filter((o) => o.kind === 'n' && o.result === 'truncated').length,
    nAccepted: count(outcomes, 'n', true),
    iAccepted: count(outcomes, 'i', true),
    iRefused: count(outcomes, 'i', false),
  };
  console.info('nst/JSONTestSuite with the default limits:', figures);

  it('reads every case of the suite', () => {
    expect(figures.files).toBe(318);
  });

  it('accepts no n_ case', () => {
    expect(outcomes.filter((o) => o.kind === 'n' && o.result === 'accepted')).toEqual([]);
    expect(figures).toMatchObject({ nRefused: 188, nAccepted: 0, nRefusedAsTruncated: 27 });
  });

  it('accepts every y_ case except the intended differences', () => {
    const refused = outcomes.filter((o) => o.kind === 'y' && o.result !== 'accepted');
    expect(Object.fromEntries(refused.map((o) => [o.file, o.result]))).toEqual(INTENDED_Y_REFUSALS);
    expect(figures).toMatchObject({ yAccepted: 93, yRefused: 2 });
  });

  it('refuses the i_ cases that would change a value or break UTF-8, and records the split', () => {
    expect(
      outcomes.filter((o) => o.kind === 'i' && o.result === 'accepted').map((o) => o.file),
    ).toEqual([
      // 1e20 written out: the double holds it exactly, so nothing is lost.
      'i_number_too_big_pos_int.json',
    ]);
    expect(figures).toMatchObject({ iAccepted: 1, iRefused: 34 });
  });

  it('still accepts no n_ case and every other y_ case when the ceilings are lifted', () => {
    const wide = run({ maxBytes: 1 << 20, maxDepth: 1000 });
    expect(wide.filter((o) => o.kind === 'n' && o.result === 'accepted')).toEqual([]);
    expect(
      wide.filter((o) => o.kind === 'y' && o.result !== 'accepted').map((o) => o.file),
    ).toEqual(Object.keys(INTENDED_Y_REFUSALS));
  });
});
