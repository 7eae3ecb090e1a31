import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChaosReport } from './chaos-facts.js';
import {
  chaosMarkdown,
  formatChaosTable,
  replaceChaosBlock,
  writeChaosReport,
} from './format-chaos.js';

const report: ChaosReport = {
  at: '2027-01-15T08:00:00.000Z',
  mode: 'quick',
  seed: 7,
  rate: 20,
  durationSeconds: 120,
  proposals: 2400,
  faults: 3,
  instancesPerStage: 2,
  toolWorkers: 2,
  kafkaNodes: 1,
  redisCluster: false,
  invariants: {
    one_terminal: { checked: 2400, broken: 1, examples: ['p9: no terminal observation'] },
    no_effect_without_acceptance: { checked: 300, broken: 0, examples: [] },
    one_effect_per_key: { checked: 300, broken: 0, examples: [] },
    nothing_lost: {
      checked: 2400,
      broken: 1,
      examples: ['p9: on the proposals topic, never answered'],
    },
  },
  duplicateTerminals: { count: 4, sameOutcome: 3 },
  rows: [
    {
      kind: 'kill_stage',
      injected: 2,
      overlapping: 1,
      broken: {
        one_terminal: 1,
        no_effect_without_acceptance: 0,
        one_effect_per_key: 0,
        nothing_lost: 1,
      },
      holdUpMs: { max: 4_250, median: 3_000 },
    },
    {
      kind: 'redis_outage',
      injected: 1,
      overlapping: 0,
      broken: {
        one_terminal: 0,
        no_effect_without_acceptance: 0,
        one_effect_per_key: 0,
        nothing_lost: 0,
      },
      holdUpMs: { max: 12_000, median: 12_000 },
    },
  ],
  ok: false,
  marginMs: 30_000,
  unattributed: {
    one_terminal: 0,
    no_effect_without_acceptance: 0,
    one_effect_per_key: 0,
    nothing_lost: 0,
  },
};

describe('formatChaosTable', () => {
  it('prints a row per fault kind, the totals, the duplicates and the breaches', () => {
    const lines = formatChaosTable(report).split('\n');
    expect(lines[0]).toBe(
      'quick chaos run, seed 7: 2400 proposals at 20/s over 120.0 s, 3 faults; 2 instances per stage, 2 tool workers, 1 Kafka node, one Redis server',
    );
    expect(lines[1]?.split(/\s{2,}/)).toEqual([
      'fault',
      'injected',
      'overlapping',
      'one_terminal',
      'no_effect_without_acceptance',
      'one_effect_per_key',
      'nothing_lost',
      'hold-up max',
      'median',
    ]);
    expect(lines[2]?.split(/\s+/)).toEqual([
      'kill_stage',
      '2',
      '1',
      '1',
      '0',
      '0',
      '1',
      '4.3',
      's',
      '3.0',
      's',
    ]);
    expect(lines[3]?.split(/\s+/)).toEqual([
      'redis_outage',
      '1',
      '0',
      '0',
      '0',
      '0',
      '0',
      '12.0',
      's',
      '12.0',
      's',
    ]);
    expect(lines[4]?.split(/\s{2,}/)).toEqual(['near no fault', '0', '0', '0', '0']);
    expect(lines[5]?.split(/\s{2,}/)).toEqual([
      'all: broken of checked',
      '3',
      '1',
      '1 of 2400',
      '0 of 300',
      '0 of 300',
      '1 of 2400',
    ]);
    expect(lines.slice(6)).toEqual([
      "duplicate terminal observations: 4 (3 with the first's outcome, 1 with another)",
      'verdict: BROKEN (a breach or gap counts for a fault within 30.0 s of it)',
      '  one_terminal: p9: no terminal observation',
      '  nothing_lost: p9: on the proposals topic, never answered',
    ]);
    // Every column lines up: the header is as wide as each row.
    expect(new Set(lines.slice(1, 4).map((l) => l.length)).size).toBe(1);
  });
  it('says how many paused instances woke fenced, only when the run paused any', () => {
    const paused = { ...report, pauses: { count: 3, fencedOnWaking: 1 } };
    const line =
      'paused instances: 3, of which 1 woke fenced (their open transaction aborted) and were started again';
    expect(formatChaosTable(paused).split('\n')).toContain(line);
    expect(chaosMarkdown(paused)).toContain(`with another); ${line}; verdict: BROKEN`);
    const none = { ...report, pauses: { count: 0, fencedOnWaking: 0 } };
    expect(formatChaosTable(none)).not.toContain('paused instances');
  });
  it('names the instances that stopped fenced outside a pause, only when any did', () => {
    const fenced = { ...report, fencedElsewhere: ['worker#1', 'confirm#2'] };
    const line =
      'instances that stopped fenced outside a pause and were started again: 2 (worker#1, confirm#2)';
    expect(formatChaosTable(fenced).split('\n')).toContain(line);
    expect(chaosMarkdown(fenced)).toContain(`${line}; verdict: BROKEN`);
    expect(formatChaosTable({ ...report, fencedElsewhere: [] })).not.toContain('stopped fenced');
  });
});

describe('chaosMarkdown and replaceChaosBlock', () => {
  it('renders a markdown table and puts it between the markers, leaving the rest of the page', () => {
    const md = chaosMarkdown(report);
    expect(md).toContain('| fault | injected | overlapping | `one_terminal` |');
    expect(md).toContain('| kill_stage | 2 | 1 | 1 | 0 | 0 | 1 | 4.3 s | 3.0 s |');
    expect(md).toContain('- one_terminal: p9: no terminal observation');
    const page =
      '# Reliability\n\nBefore.\n\n<!-- chaos-latest:start -->\nold\n<!-- chaos-latest:end -->\n\nAfter.\n';
    const once = replaceChaosBlock(page, md);
    expect(once).toBe(
      `# Reliability\n\nBefore.\n\n<!-- chaos-latest:start -->\n${md}\n<!-- chaos-latest:end -->\n\nAfter.\n`,
    );
    expect(replaceChaosBlock(once, md)).toBe(once);
    expect(() => replaceChaosBlock('# Reliability\n', md)).toThrow(/chaos-latest:start/);
  });
});

describe('writeChaosReport', () => {
  it('writes the report as JSON, making the folder', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'chaos-')), 'results', 'chaos.json');
    writeChaosReport(report, file);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(report);
  });
});
