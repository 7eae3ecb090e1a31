import { describe, expect, it } from 'vitest';
import type { InjectedFault, SentProposal } from './chaos-facts.js';
import {
  holdUpOf,
  judge,
  type JudgedFacts,
  type RunRecords,
  type SeenCommand,
  type SeenEffect,
  type SeenObservation,
} from './judge.js';

const T0 = 1_800_000_000_000;
const now = new Date(T0 + 3_600_000);

const sent = (n: number, expected: SentProposal['expected'] = execute): SentProposal => ({
  proposalId: `p${n}`,
  label: 'refund',
  expected,
  sentAt: T0 + n * 1_000,
});
const execute = { kind: 'execute', replay: false } as const;

const facts = (over: Partial<JudgedFacts> = {}): JudgedFacts => ({
  mode: 'quick',
  seed: 7,
  rate: 1,
  startedAt: T0,
  endedAt: T0 + 100_000,
  faults: [],
  sent: [sent(1), sent(2)],
  instancesPerStage: 2,
  toolWorkers: 2,
  stack: { kafkaNodes: [], redisCluster: false },
  ...over,
});

const observed = (
  n: number,
  outcome: SeenObservation['outcome'] = 'result',
  at = T0 + n * 1_000 + 200,
): SeenObservation => ({ proposalId: `p${n}`, outcome, at });

const command = (n: number, over: Partial<SeenCommand> = {}): SeenCommand => ({
  commandId: `cmd${n}`,
  idempotencyKey: `key${n}`,
  tool: 'refund_payment',
  tenant: 'acme',
  proposalId: `p${n}`,
  at: T0 + n * 1_000 + 100,
  ...over,
});

const effect = (n: number, over: Partial<SeenEffect> = {}): SeenEffect => ({
  idempotencyKey: `key${n}`,
  commandId: `cmd${n}`,
  proposalId: `p${n}`,
  tenant: 'acme',
  tool: 'refund_payment',
  type: 'Payment',
  id: 'pay_11',
  versionBefore: n,
  versionAfter: n + 1,
  at: T0 + n * 1_000 + 150,
  ...over,
});

/** A clean run of proposals 1 and 2: both executed, one effect each. */
const clean = (over: Partial<RunRecords> = {}): RunRecords => ({
  proposals: ['p1', 'p2'],
  observations: [observed(1), observed(2)],
  commands: [command(1), command(2)],
  results: ['cmd1', 'cmd2'],
  quarantine: [],
  audit: [],
  effects: [effect(1), effect(2)],
  ...over,
});

const fault = (over: Partial<InjectedFault> = {}): InjectedFault => ({
  id: 1,
  kind: 'kill_stage',
  target: 'validate#2',
  injectedAt: T0 + 10_000,
  recoveredAt: T0 + 15_000,
  overlapping: false,
  ...over,
});

const broken = (records: RunRecords, f = facts()) =>
  Object.fromEntries(
    Object.entries(judge(f, records, { now }).invariants).map(([k, v]) => [k, v.broken]),
  );

describe('judge', () => {
  it('passes a clean run, every invariant checked over what it covers', () => {
    const report = judge(facts(), clean(), { now });
    expect(report.ok).toBe(true);
    expect(report.invariants).toEqual({
      one_terminal: { checked: 2, broken: 0, examples: [] },
      no_effect_without_acceptance: { checked: 2, broken: 0, examples: [] },
      one_effect_per_key: { checked: 2, broken: 0, examples: [] },
      nothing_lost: { checked: 2, broken: 0, examples: [] },
    });
    expect(report).toMatchObject({
      at: now.toISOString(),
      proposals: 2,
      durationSeconds: 100,
      duplicateTerminals: { count: 0, sameOutcome: 0 },
      rows: [],
      seen: { proposals: 2, observations: 2, commands: 2, effects: 2, results: 2 },
    });
  });

  it('breaks one_terminal and nothing_lost for a proposal without a terminal observation', () => {
    const records = clean({ observations: [observed(1), observed(2, 'pending_confirmation')] });
    const report = judge(facts(), records, { now });
    expect(report.ok).toBe(false);
    expect(report.invariants.one_terminal.examples).toEqual(['p2: no terminal observation']);
    expect(report.invariants.nothing_lost.examples).toEqual([
      'p2: on the proposals topic, never answered',
    ]);
    expect(broken(clean({ proposals: ['p1'], observations: [observed(1)] }))).toMatchObject({
      nothing_lost: 1,
    });
    const notSent = judge(facts(), clean({ proposals: ['p1'], observations: [observed(1)] }), {
      now,
    });
    expect(notSent.invariants.nothing_lost.examples).toEqual(['p2: not on the proposals topic']);
  });

  it('accounts for a quarantined proposal without an answer, and breaks nothing for it', () => {
    const records = clean({
      observations: [observed(1)],
      quarantine: [{ proposalId: 'p2', at: T0 + 2_100 }, { at: T0 + 2_200 }],
    });
    expect(judge(facts(), records, { now }).ok).toBe(true);
  });

  it('counts a repeated terminal observation with the same outcome apart, without a breach', () => {
    const records = clean({
      observations: [observed(1), observed(1, 'result', T0 + 5_000), observed(2)],
    });
    const report = judge(facts(), records, { now });
    expect(report.ok).toBe(true);
    expect(report.duplicateTerminals).toEqual({ count: 1, sameOutcome: 1 });
  });

  it('breaks one_terminal when a repeated terminal observation says another outcome', () => {
    const records = clean({
      observations: [
        { ...observed(1, 'rejected'), stage: 'execution', code: 'tool_error' },
        observed(1, 'result', T0 + 5_000),
        observed(2),
      ],
      effects: [effect(2)],
    });
    const report = judge(facts(), records, { now });
    expect(report.duplicateTerminals).toEqual({ count: 1, sameOutcome: 0 });
    expect(report.invariants.one_terminal).toEqual({
      checked: 2,
      broken: 1,
      examples: [
        'p1: terminal observations disagree: rejected (execution/tool_error), then result',
      ],
    });
    expect(report.ok).toBe(false);
  });

  it('breaks no_effect_without_acceptance for an effect with no command', () => {
    const records = clean({ commands: [command(1)] });
    const report = judge(facts(), records, { now });
    expect(report.invariants.no_effect_without_acceptance).toEqual({
      checked: 2,
      broken: 1,
      examples: [
        'refund_payment on Payment pay_11 v2→3 by cmd2 for p2: execute issued no command cmd2',
      ],
    });
  });

  it('breaks no_effect_without_acceptance for an effect of a refused or expired call', () => {
    for (const outcome of ['rejected', 'expired'] as const) {
      const records = clean({ observations: [observed(1), observed(2, outcome)] });
      expect(broken(records)).toEqual({
        one_terminal: 0,
        no_effect_without_acceptance: 1,
        one_effect_per_key: 0,
        nothing_lost: 0,
      });
    }
    const unknown = clean({ observations: [observed(1), observed(2, 'unknown_outcome')] });
    expect(judge(facts(), unknown, { now }).ok).toBe(true);
  });

  it('breaks no_effect_without_acceptance for an unconfirmed call that needed a person', () => {
    const confirmFacts = facts({ sent: [sent(1), sent(2, { kind: 'confirm' })] });
    expect(broken(clean(), confirmFacts)).toMatchObject({ no_effect_without_acceptance: 1 });
    const approved = clean({ commands: [command(1), command(2, { confirmedBy: 'alice' })] });
    expect(judge(confirmFacts, approved, { now }).ok).toBe(true);
  });

  it('breaks one_effect_per_key for two effects under one key, not for one key per tenant', () => {
    const twice = clean({
      commands: [command(1), command(2), command(3, { idempotencyKey: 'key2', proposalId: 'p2' })],
      effects: [effect(1), effect(2), effect(3, { idempotencyKey: 'key2', proposalId: 'p2' })],
    });
    const report = judge(facts(), twice, { now });
    expect(report.invariants.one_effect_per_key).toEqual({
      checked: 2,
      broken: 1,
      examples: [
        'key key2 (acme): 2 effects: refund_payment on Payment pay_11 v2→3 by cmd2; refund_payment on Payment pay_11 v3→4 by cmd3',
      ],
    });
    const tenants = clean({
      effects: [effect(1), effect(2, { idempotencyKey: 'key1', tenant: 'globex' })],
    });
    expect(judge(facts(), tenants, { now }).invariants.one_effect_per_key).toMatchObject({
      checked: 2,
      broken: 0,
    });
  });

  it('attributes a breach to every fault around the send of its proposal, and the rest to none', () => {
    const faults = [
      fault({ id: 1, kind: 'kill_stage', injectedAt: T0 + 40_000, recoveredAt: T0 + 45_000 }),
      fault({ id: 2, kind: 'redis_outage', injectedAt: T0 + 50_000, recoveredAt: T0 + 60_000 }),
      fault({
        id: 3,
        kind: 'redis_outage',
        injectedAt: T0 + 52_000,
        recoveredAt: T0 + 53_000,
        overlapping: true,
      }),
    ];
    // p15 is sent 25 s before the kill: within its margin only. p70 10 s after the outage
    // recovered and 25 s after the kill did: both. p95 is near none.
    const f = facts({ faults, sent: [sent(15), sent(70), sent(95)] });
    const records = clean({
      proposals: ['p15', 'p70', 'p95'],
      observations: [],
      effects: [],
      commands: [],
    });
    const report = judge(f, records, { now, marginMs: 30_000 });
    expect(report.rows).toEqual([
      {
        kind: 'kill_stage',
        injected: 1,
        overlapping: 0,
        broken: {
          one_terminal: 2,
          no_effect_without_acceptance: 0,
          one_effect_per_key: 0,
          nothing_lost: 2,
        },
        holdUpMs: expect.any(Object) as unknown,
      },
      {
        kind: 'redis_outage',
        injected: 2,
        overlapping: 1,
        broken: {
          one_terminal: 1,
          no_effect_without_acceptance: 0,
          one_effect_per_key: 0,
          nothing_lost: 1,
        },
        holdUpMs: expect.any(Object) as unknown,
      },
    ]);
    expect(report.unattributed).toEqual({
      one_terminal: 1,
      no_effect_without_acceptance: 0,
      one_effect_per_key: 0,
      nothing_lost: 1,
    });
    expect(
      judge(f, records, { now, marginMs: 5_000 }).rows.map((r) => r.broken.nothing_lost),
    ).toEqual([0, 0]);
  });

  it('dates an effect breach by its proposal, or by the effect when no proposal is known', () => {
    const f = facts({ faults: [fault({ injectedAt: T0 + 500_000, recoveredAt: T0 + 501_000 })] });
    const stray = effect(9, { commandId: 'nobody', proposalId: 'p-unknown', at: T0 + 500_500 });
    const report = judge(f, clean({ effects: [effect(1), effect(2), stray] }), {
      now,
      marginMs: 0,
    });
    expect(report.rows[0]?.broken.no_effect_without_acceptance).toBe(1);
  });

  it('counts the pauses, and those whose instance woke fenced and was started again', () => {
    const faults = [
      fault({ id: 1, kind: 'stop_stage', target: 'confirm#1' }),
      fault({ id: 2, kind: 'stop_worker', target: 'worker#2', fencedOnWaking: true }),
      fault({ id: 3, kind: 'kill_worker', target: 'worker#1' }),
    ];
    const report = judge(facts({ faults }), clean(), { now });
    expect(report.pauses).toEqual({ count: 2, fencedOnWaking: 1 });
    expect(report.ok).toBe(true);
  });

  it('names the instances that stopped fenced outside a pause, none when none did', () => {
    const fencedRestarts = [{ target: 'worker#1', at: 5_000 }];
    expect(judge(facts({ fencedRestarts }), clean(), { now }).fencedElsewhere).toEqual([
      'worker#1',
    ]);
    expect(judge(facts(), clean(), { now }).fencedElsewhere).toEqual([]);
  });

  it("takes each kind's hold-up as the max and median over its injections", () => {
    const faults = [
      fault({ id: 1, injectedAt: T0 + 10_500, recoveredAt: T0 + 11_000 }),
      fault({ id: 2, injectedAt: T0 + 30_500, recoveredAt: T0 + 31_000 }),
      fault({ id: 3, injectedAt: T0 + 50_500, recoveredAt: T0 + 51_000 }),
    ];
    const times = [10_000, 14_000, 15_000, 30_000, 31_000, 45_000, 50_000, 60_000, 61_000, 99_000];
    const observations = times.map((t, i) => ({
      proposalId: `x${i}`,
      outcome: 'result' as const,
      at: T0 + t,
    }));
    const report = judge(facts({ faults, sent: [] }), clean({ observations, effects: [] }), {
      now,
      marginMs: 0,
    });
    // Waits from the injections: 3.5 s, 0.5 s, 9.5 s; the gap 31 s → 45 s begins in the second
    // one's window: per injection 3.5 s, 14 s, 9.5 s.
    expect(report.rows[0]?.holdUpMs).toEqual({ max: 14_000, median: 9_500 });
  });
});

describe('judge, hold-up of a run that stalled', () => {
  it('runs the last gap to the end of the run when a proposal was never answered', () => {
    const faults = [fault({ injectedAt: T0 + 1_500, recoveredAt: T0 + 2_000 })];
    const stalled = clean({ observations: [observed(1)], effects: [] });
    const report = judge(facts({ faults }), stalled, { now, marginMs: 0 });
    expect(report.rows[0]?.holdUpMs.max).toBe(100_000 - 1_500);
    const done = judge(facts({ faults, sent: [sent(1)] }), stalled, { now, marginMs: 0 });
    expect(done.rows[0]?.holdUpMs.max).toBe(0);
  });
});

describe('holdUpOf', () => {
  const f = fault({ injectedAt: 100, recoveredAt: 200 });

  it('counts the wait from the injection to the next terminal observation', () => {
    expect(holdUpOf(f, [0, 50, 180, 190], 0)).toBe(80);
  });

  it('counts each gap that begins in the window widened by the margin, not one that begins after', () => {
    expect(holdUpOf(f, [0, 110, 120, 150, 240, 1_000], 0)).toBe(90);
    expect(holdUpOf(f, [0, 110, 120, 150, 240, 1_000], 50)).toBe(760);
  });

  it('runs a gap with nothing after it to the end of a run that left proposals unanswered', () => {
    expect(holdUpOf(f, [0, 50], 0)).toBe(0);
    expect(holdUpOf(f, [0, 50], 0, 5_000)).toBe(4_900);
    expect(holdUpOf(f, [0, 150], 0, 5_000)).toBe(4_850);
    expect(holdUpOf(f, [0, 150], 0)).toBe(50);
  });
});
