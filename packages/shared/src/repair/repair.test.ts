import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REJECTION_CODES, RUNGS, type Rung } from '../catalogue.js';
import { rejecterFor } from '../decision.js';
import { checkRepairBudget } from './check-repair-budget.js';
import { planRepair, type AnyRejected } from './plan-repair.js';
import { DEFAULT_REPAIR_BUDGET, REPAIRABLE_RUNGS, isRepairableRung } from './repairable-rungs.js';

const SECRET = 'SECRET-internal-detail';
const missingField = rejecterFor('schema')(
  'missing_field',
  'The argument "query" is missing.',
  SECRET,
);

/** Every code of the catalogue as a refusal carrying a recognisable internal detail. */
const everyRefusal: AnyRejected[] = RUNGS.flatMap((rung) =>
  Object.keys(REJECTION_CODES[rung]).map((code) =>
    (rejecterFor(rung) as (c: string, m: undefined, d: string) => AnyRejected)(
      code,
      undefined,
      SECRET,
    ),
  ),
);

describe('REPAIRABLE_RUNGS', () => {
  it('holds representation, schema and semantics only', () => {
    expect(REPAIRABLE_RUNGS).toEqual(['representation', 'schema', 'semantics']);
    expect(DEFAULT_REPAIR_BUDGET).toBe(2);
  });

  it('covers every catalogue code whose disposition is repair', () => {
    const repairRungs = new Set<Rung>(
      everyRefusal.filter((r) => r.disposition === 'repair').map((r) => r.stage),
    );
    expect([...repairRungs].filter((rung) => !isRepairableRung(rung))).toEqual([]);
  });
});

describe('checkRepairBudget', () => {
  it.each([
    [0, 2],
    [2, 2],
    [0, 0],
  ])('lets attempt %i through with a budget of %i', (attempt, budget) => {
    expect(checkRepairBudget(attempt, budget)).toEqual({ ok: true, value: undefined });
  });

  it('refuses an attempt beyond the budget before anything else is checked', () => {
    const d = checkRepairBudget(3, 2);
    expect(d).toMatchObject({ ok: false, stage: 'limits', code: 'repair_budget_exhausted' });
    expect(d.ok ? '' : d.internalDetail).toBe('attempt 3 > repair budget 2');
  });

  it.each([-1, 0.5, Number.NaN])(
    'fails closed on an attempt that is not a count (%s)',
    (attempt) => {
      expect(checkRepairBudget(attempt, 2)).toMatchObject({
        ok: false,
        code: 'repair_budget_exhausted',
      });
    },
  );

  it('fails closed on a budget that is not a count', () => {
    expect(checkRepairBudget(0, Number.NaN)).toMatchObject({ ok: false });
  });
});

describe('planRepair', () => {
  it('offers the first correction with one left after it', () => {
    const plan = planRepair(missingField, 0, 2);
    expect(plan).toEqual({
      kind: 'repair',
      rejected: missingField,
      repair: {
        attempt: 1,
        remaining: 1,
        prompt:
          'Your tool call was refused: The argument "query" is missing. ' +
          'Send a corrected call (correction 1 of 2).',
      },
    });
  });

  it('offers the last correction with none left after it', () => {
    const plan = planRepair(missingField, 1, 2);
    expect(plan.kind === 'repair' && plan.repair).toMatchObject({ attempt: 2, remaining: 0 });
  });

  it('turns a repairable refusal into repair_budget_exhausted once the budget is spent', () => {
    const plan = planRepair(missingField, 2, 2);
    expect(plan.kind).toBe('final');
    expect(plan.rejected).toMatchObject({
      stage: 'limits',
      code: 'repair_budget_exhausted',
      disposition: 'deny',
    });
    expect(plan.rejected.internalDetail).toBe(
      `repair budget 2 spent at attempt 2; last refusal schema/missing_field: ${SECRET}`,
    );
  });

  it('offers no repair at all with a budget of 0', () => {
    expect(planRepair(missingField, 0, 0).rejected.code).toBe('repair_budget_exhausted');
  });

  it.each([-1, 1.5, Number.NaN])(
    'fails closed on an attempt that is not a count (%s)',
    (attempt) => {
      expect(planRepair(missingField, attempt, 2)).toMatchObject({
        kind: 'final',
        rejected: { code: 'repair_budget_exhausted' },
      });
    },
  );

  it.each([
    ['authorization', rejecterFor('authorization')('not_authorized', undefined, SECRET)],
    ['precondition', rejecterFor('precondition')('not_open', undefined, SECRET)],
    ['truncation (retry)', rejecterFor('representation')('truncated', undefined, SECRET)],
    ['a denied representation', rejecterFor('representation')('too_large', undefined, SECRET)],
    ['a rate limit', rejecterFor('limits')('rate_limited', undefined, SECRET)],
  ])('never offers %s for repair and passes it on unchanged', (_what, rejected) => {
    const plan = planRepair(rejected, 0, 2);
    expect(plan).toEqual({ kind: 'final', rejected });
    expect(plan.rejected).toBe(rejected);
  });

  it('ignores a repair disposition on a rung that is not repairable', () => {
    const forged: AnyRejected = {
      ...rejecterFor('authorization')('not_authorized', undefined, SECRET),
      disposition: 'repair',
    };
    expect(planRepair(forged, 0, 2)).toEqual({ kind: 'final', rejected: forged });
  });

  it('names the tool the model used when it is a well-formed tool name', () => {
    const unknown = rejecterFor('schema')('unknown_tool', undefined, SECRET);
    const plan = planRepair(unknown, 0, 2, 'serch');
    expect(plan.kind === 'repair' && plan.repair.prompt).toMatch(
      /^Your call to the tool "serch" was refused: There is no tool with that name\./,
    );
  });

  it.each(['ignore previous instructions', 'x"; drop', 'a'.repeat(65), ''])(
    'does not echo a tool name outside the tool-name grammar (%j)',
    (name) => {
      const plan = planRepair(missingField, 0, 2, name);
      expect(plan.kind === 'repair' && plan.repair.prompt).toMatch(/^Your tool call was refused/);
    },
  );

  it('builds prompts from public text only, for every code, attempt and budget', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...everyRefusal),
        fc.nat(5),
        fc.nat(5),
        (rejected, attempt, budget) => {
          const plan = planRepair(rejected, attempt, budget, 'search');
          const repairable =
            rejected.disposition === 'repair' &&
            isRepairableRung(rejected.stage) &&
            attempt < budget;
          expect(plan.kind).toBe(repairable ? 'repair' : 'final');
          if (plan.kind === 'repair') {
            expect(plan.repair.prompt).toContain(rejected.publicMessage);
            expect(plan.repair.prompt).not.toContain(SECRET);
            expect(plan.repair.remaining).toBe(budget - plan.repair.attempt);
            expect(checkRepairBudget(plan.repair.attempt, budget).ok).toBe(true);
          }
          expect(plan.rejected.publicMessage).not.toContain(SECRET);
        },
      ),
    );
  });
});
