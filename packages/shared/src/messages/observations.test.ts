import { describe, expect, it } from 'vitest';
import { REJECTION_CODES } from '../catalogue.js';
import { rejecterFor } from '../decision.js';
import { refusal } from '../ladder/index.js';
import { WITHHELD_TEXT } from '../result/index.js';
import { OUTCOMES } from '../types.js';
import { createMessageChecker } from './create-message-checker.js';
import { IDS, NOW, repairableRefusal } from './messages.test-support.js';
import {
  observationForCheckedResult,
  observationForExpired,
  observationForPending,
  observationForRefusal,
  observationForResult,
  observationForToolError,
  observationForUnknown,
  RESULT_MESSAGE,
} from './observations.js';

const check = createMessageChecker();
const SECRET = 'SECRET-internal-detail';
const AT = '2025-03-01T12:00:00.000Z';

describe('observationForRefusal', () => {
  it('reports a refusal with its stage, code, disposition and public message', () => {
    const denied = refusal(rejecterFor('authorization')('not_authorized', undefined, SECRET));
    expect(observationForRefusal(IDS, denied, NOW)).toEqual({
      ...IDS,
      outcome: 'rejected',
      disposition: 'deny',
      stage: 'authorization',
      code: 'not_authorized',
      message: 'This action is not allowed.',
      at: AT,
    });
  });

  it('carries the repair offer of a repairable refusal', () => {
    const r = repairableRefusal();
    const o = observationForRefusal({ ...IDS, proposalId: 'p-2' }, r, NOW);
    expect(o).toMatchObject({ outcome: 'rejected', disposition: 'repair', stage: 'schema' });
    expect(o.repair).toEqual(r.repair);
    expect(check('observations', o)).toEqual([]);
  });

  it('never carries the internal detail', () => {
    for (const [code, spec] of Object.entries(REJECTION_CODES.confirmation)) {
      const r = (rejecterFor('confirmation') as (c: string, m: undefined, d: string) => never)(
        code,
        undefined,
        SECRET,
      );
      const o = observationForRefusal(IDS, refusal(r), NOW);
      expect(JSON.stringify(o)).not.toContain(SECRET);
      expect(o.message).toBe(spec.publicMessage);
    }
  });

  it('omits callId when the call was never read', () => {
    const { callId: _unused, ...ids } = IDS;
    const r = refusal(rejecterFor('authentication')('missing_session', undefined, SECRET));
    const o = observationForRefusal(ids, r, NOW);
    expect(o).not.toHaveProperty('callId');
    expect(check('observations', o)).toEqual([]);
  });

  it('drops members the ids value carries beyond the four ids', () => {
    const ids = { ...IDS, tenant: 'tenant-a' } as typeof IDS;
    const r = refusal(rejecterFor('limits')('rate_limited', undefined, SECRET));
    expect(observationForRefusal(ids, r, NOW)).not.toHaveProperty('tenant');
  });
});

describe('observationForPending', () => {
  it('is a non-terminal confirm/confirmation/pending with where the confirmation waits', () => {
    const confirmation = { confirmationId: 'conf_abc', expiresAt: '2025-03-01T12:30:00.000Z' };
    const o = observationForPending(IDS, confirmation, NOW);
    expect(o).toEqual({
      ...IDS,
      outcome: 'pending_confirmation',
      disposition: 'confirm',
      stage: 'confirmation',
      code: 'pending',
      message: REJECTION_CODES.confirmation.pending.publicMessage,
      confirmation,
      at: AT,
    });
    expect(check('observations', o)).toEqual([]);
  });
});

describe('observationForResult', () => {
  it('shows checked output with outcome result and no stage or code', () => {
    const o = observationForResult(IDS, { content: '<<out>>', withheld: false }, NOW);
    expect(o).toEqual({
      ...IDS,
      outcome: 'result',
      disposition: 'execute',
      message: RESULT_MESSAGE,
      result: { content: '<<out>>', withheld: false },
      at: AT,
    });
    expect(check('observations', o)).toEqual([]);
  });

  it('marks withheld output with stage result, code withheld', () => {
    const o = observationForResult(IDS, { content: WITHHELD_TEXT, withheld: true }, NOW);
    expect(o).toMatchObject({
      outcome: 'result',
      disposition: 'execute',
      stage: 'result',
      code: 'withheld',
      message: REJECTION_CODES.result.withheld.publicMessage,
      result: { content: WITHHELD_TEXT, withheld: true },
    });
    expect(check('observations', o)).toEqual([]);
  });

  it('sets replay only when asked', () => {
    const shown = { content: 'x', withheld: false };
    expect(observationForResult(IDS, shown, NOW)).not.toHaveProperty('replay');
    expect(observationForResult(IDS, shown, NOW, { replay: false })).not.toHaveProperty('replay');
    expect(observationForResult(IDS, shown, NOW, { replay: true }).replay).toBe(true);
  });
});

describe('observationForCheckedResult', () => {
  it('reports a result-rung refusal as a result whose content is withheld', () => {
    const tooLarge = rejecterFor('result')('too_large', undefined, SECRET);
    const o = observationForCheckedResult(IDS, tooLarge, NOW);
    expect(o).toMatchObject({
      outcome: 'result',
      disposition: 'execute',
      stage: 'result',
      code: 'too_large',
      message: REJECTION_CODES.result.too_large.publicMessage,
      result: { content: WITHHELD_TEXT, withheld: true },
    });
    expect(JSON.stringify(o)).not.toContain(SECRET);
    expect(check('observations', o)).toEqual([]);
  });
});

describe('observationForToolError', () => {
  it('reports a tool error as execution/tool_error, with or without shown text', () => {
    const bare = observationForToolError(IDS, undefined, NOW);
    expect(bare).toMatchObject({
      outcome: 'result',
      disposition: 'execute',
      stage: 'execution',
      code: 'tool_error',
      message: REJECTION_CODES.execution.tool_error.publicMessage,
    });
    expect(bare).not.toHaveProperty('result');
    const shown = observationForToolError(
      IDS,
      { content: '<<card declined>>', withheld: false },
      NOW,
    );
    expect(shown.result).toEqual({ content: '<<card declined>>', withheld: false });
    expect(check('observations', bare)).toEqual([]);
    expect(check('observations', shown)).toEqual([]);
  });
});

describe('observationForUnknown and observationForExpired', () => {
  it('reports a timeout as unknown_outcome, execution/timeout_outcome_unknown, deny', () => {
    const o = observationForUnknown(IDS, NOW);
    expect(o).toEqual({
      ...IDS,
      outcome: 'unknown_outcome',
      disposition: 'deny',
      stage: 'execution',
      code: 'timeout_outcome_unknown',
      message: REJECTION_CODES.execution.timeout_outcome_unknown.publicMessage,
      at: AT,
    });
    expect(check('observations', o)).toEqual([]);
  });

  it('reports an unanswered confirmation as expired, confirmation/expired, deny', () => {
    const o = observationForExpired(IDS, NOW);
    expect(o).toEqual({
      ...IDS,
      outcome: 'expired',
      disposition: 'deny',
      stage: 'confirmation',
      code: 'expired',
      message: REJECTION_CODES.confirmation.expired.publicMessage,
      at: AT,
    });
    expect(check('observations', o)).toEqual([]);
  });
});

describe('the observation builders together', () => {
  it('cover every outcome', () => {
    const all = [
      observationForRefusal(IDS, repairableRefusal(), NOW),
      observationForPending(IDS, { confirmationId: 'conf_1', expiresAt: AT }, NOW),
      observationForResult(IDS, { content: '', withheld: false }, NOW),
      observationForExpired(IDS, NOW),
      observationForUnknown(IDS, NOW),
    ];
    expect(new Set(all.map((o) => o.outcome))).toEqual(new Set(OUTCOMES));
  });
});
