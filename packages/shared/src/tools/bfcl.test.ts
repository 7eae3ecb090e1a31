/**
 * Outside suite 2: Berkeley Function Calling Leaderboard (v4) definitions and ground truth, read in
 * place. Definitions are converted to strict tool definitions (bfcl.test-support.ts) and loaded
 * through createToolRegistry; definitions the gate refuses are listed, not bent. Ground-truth calls
 * must pass checkSchema (answers that contradict their own definition are data errors, listed),
 * and four mutations of every accepted call must be refused at the schema rung with the right code.
 */
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BFCL_CATEGORIES,
  BFCL_EXCEPTIONS,
  evaluateBfcl,
  parseJsonLines,
  type BfclAnswer,
  type BfclEntry,
  type BfclReport,
} from './bfcl.test-support.js';
import { corpusPath } from '../corpora.test-support.js';

/** Definitions the gate refuses at load, as `id name`, with why. */
const REFUSED: Readonly<Record<string, 'identity' | 'open dict' | 'any value'>> = {
  'live_simple_0-0-0 get_user_info': 'identity',
  'live_simple_114-70-0 update_user_profile': 'identity',
  'live_simple_255-136-1 user.mandates': 'identity',
  'parallel_multiple_179 update_user_info': 'identity',
  'live_parallel_multiple_3-2-1 OpenWeatherMap.get_current_weather': 'identity',
  'multiple_136 poker_game_winner': 'open dict',
  'parallel_multiple_135 poker_game_winner': 'open dict',
  'parallel_multiple_66 calculate_average': 'open dict',
  'parallel_multiple_66 calculate_standard_deviation': 'open dict',
  'parallel_multiple_66 highest_grade': 'open dict',
  'parallel_29 waste_calculation.calculate': 'open dict',
  'live_simple_165-98-0 extractor.extract_information': 'open dict',
  'parallel_multiple_57 flight.search': 'any value',
  'parallel_multiple_194 random_forest.train': 'any value',
  'live_simple_117-73-0 reverse_input': 'any value',
  'live_simple_122-78-0 process_data': 'any value',
  'live_parallel_multiple_13-11-0 estimate_derivative': 'any value',
  'live_parallel_multiple_14-12-0 estimate_derivative': 'any value',
};

/** What each refusal must say. */
const REFUSAL_EVIDENCE = {
  identity: /"(user_id|api_key)" is an identity field/,
  'open dict': /accepts objects with properties it does not list/,
  'any value': /accepts objects with properties it does not list.*accepts arrays whose items/s,
} as const;

/** Ground-truth calls refused although their definition loaded: the answer contradicts it. */
const DATA_ERRORS: Readonly<Record<string, { code: string; why: string }>> = {
  'parallel_multiple_21 linear_regression_fit': {
    code: 'wrong_type',
    why: "a Python expression (`data['sales']`) where an array of numbers is declared",
  },
  'parallel_multiple_26 bank.calculate_balance': {
    code: 'unexpected_field',
    why: 'the answer passes `type`, which the definition does not declare',
  },
  'parallel_multiple_94 sort_list': {
    code: 'wrong_type',
    why: 'strings where an array of integers is declared',
  },
  'live_simple_71-35-0 extract_parameters_v1': {
    code: 'invalid_value',
    why: 'a metric outside the declared enum',
  },
  'live_simple_106-63-0 record': {
    code: 'missing_field',
    why: 'the answer leaves out required parameters',
  },
  'live_simple_112-68-0 record': {
    code: 'missing_field',
    why: 'the answer leaves out required parameters',
  },
  'live_parallel_multiple_2-2-0 ControlAppliance.execute': {
    code: 'invalid_value',
    why: 'a command outside the declared enum',
  },
};

function readCategory(category: string): { entries: BfclEntry[]; answers: BfclAnswer[] } {
  const read = (...segments: string[]) => fs.readFileSync(corpusPath('bfcl', ...segments), 'utf8');
  return {
    entries: parseJsonLines<BfclEntry>(read(`BFCL_v4_${category}.json`)),
    answers: parseJsonLines<BfclAnswer>(read('possible_answer', `BFCL_v4_${category}.json`)),
  };
}

function print(report: BfclReport): void {
  const m = report.mutations;
  console.log(
    [
      `BFCL v4 (${BFCL_CATEGORIES.join(', ')}):`,
      `  definitions converted ${report.converted} (${report.distinct} distinct), loaded ${report.loaded}, refused at load ${report.refused.length}`,
      `  BFCL \`optional\` keyword handled in ${report.optionalKeyword} definitions; ${report.renamed.length} dotted names mapped (. → _); name collisions after mapping: ${report.collisions.length}`,
      `  ground-truth calls checked ${report.calls}, accepted ${report.accepted}, data errors ${report.dataErrors.length}; not checked (definition refused) ${report.skipped}`,
      `  mutations refused at stage schema with the expected code: missing_field ${m.missing.refusedAsExpected}/${m.missing.generated}, unexpected_field ${m.extra.refusedAsExpected}/${m.extra.generated}, wrong_type ${m.mistyped.refusedAsExpected}/${m.mistyped.generated}, unknown_tool ${m.unknownTool.refusedAsExpected}/${m.unknownTool.generated}`,
      `  refused at load: ${report.refused.map((r) => `${r.id} ${r.name}`).join('; ')}`,
      `  data errors: ${report.dataErrors.map((d) => `${d.id} ${d.name} (${d.code})`).join('; ')}`,
      `  renamed: ${report.renamed.join(', ')}`,
      `  not used: ${Object.entries(BFCL_EXCEPTIONS)
        .map(([c, why]) => `${c} (${why})`)
        .join('; ')}`,
    ].join('\n'),
  );
}

describe('the Berkeley Function Calling Leaderboard through the schema rung', () => {
  let report: BfclReport;

  beforeAll(() => {
    report = evaluateBfcl(BFCL_CATEGORIES.map(readCategory));
    print(report);
  }, 120_000);

  it('converts more than a thousand definitions and loads all but the listed ones', () => {
    expect(report.converted).toBe(2048);
    expect(report.distinct).toBe(1364);
    expect(report.loaded).toBe(report.distinct - report.refused.length);
    expect(report.optionalKeyword).toBe(36);
    expect(report.renamed.length).toBe(479);
    expect(report.renamed.every((name) => name.includes('.'))).toBe(true);
    expect(report.collisions).toEqual([]);
  });

  it('refuses exactly the listed definitions, each for its listed reason', () => {
    const refused = new Map(
      report.refused.map((r) => [`${r.id} ${r.name}`, r.problems.join('\n')]),
    );
    expect([...refused.keys()].sort()).toEqual(Object.keys(REFUSED).sort());
    for (const [key, problems] of refused)
      expect(problems, key).toMatch(REFUSAL_EVIDENCE[REFUSED[key]!]);
  });

  it('accepts every ground-truth call except the listed data errors', () => {
    expect(report.calls).toBe(2075);
    expect(report.accepted).toBe(report.calls - Object.keys(DATA_ERRORS).length);
    expect(report.skipped).toBe(24);
    const errors = Object.fromEntries(report.dataErrors.map((d) => [`${d.id} ${d.name}`, d.code]));
    expect(errors).toEqual(
      Object.fromEntries(Object.entries(DATA_ERRORS).map(([k, v]) => [k, v.code])),
    );
  });

  it('refuses every mutation of an accepted call at stage schema with the expected code', () => {
    expect(report.mutationFailures).toEqual([]);
    const m = report.mutations;
    expect(m.extra.generated).toBe(report.accepted);
    expect(m.unknownTool.generated).toBe(report.accepted);
    expect(m.missing.generated).toBe(2044);
    expect(m.mistyped.generated).toBe(2067);
    for (const kind of Object.values(m)) expect(kind.refusedAsExpected).toBe(kind.generated);
  });
});
