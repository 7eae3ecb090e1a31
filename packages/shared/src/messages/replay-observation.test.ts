import { describe, expect, it } from 'vitest';
import { rejecterFor } from '../decision.js';
import { decideIdempotency } from '../idempotency/index.js';
import { refusal } from '../ladder/index.js';
import { createMessageChecker } from './create-message-checker.js';
import { IDS, NOW, repairableRefusal } from './messages.test-support.js';
import {
  observationForExpired,
  observationForPending,
  observationForRefusal,
  observationForResult,
  observationForUnknown,
} from './observations.js';
import { replayObservation, storedOutcomeOf } from './replay-observation.js';

const check = createMessageChecker();
const LATER = new Date('2025-03-02T08:00:00.000Z');
const AGAIN = { proposalId: 'p-9999', runId: 'run-8', requestId: 'req-42', callId: 'call_abc' };

describe('storedOutcomeOf', () => {
  it('keeps the outcome and what a replay repeats, not the ids or the instant', () => {
    const o = observationForResult(IDS, { content: '<<42>>', withheld: false }, NOW);
    const stored = storedOutcomeOf(o);
    expect(stored.outcome).toBe('result');
    expect(stored.observation).toEqual({
      disposition: 'execute',
      message: o.message,
      result: { content: '<<42>>', withheld: false },
    });
  });

  it('does not keep a repair offer', () => {
    const stored = storedOutcomeOf(observationForRefusal(IDS, repairableRefusal(), NOW));
    expect(stored.observation).not.toHaveProperty('repair');
  });

  it('throws for outcomes a command cannot end in', () => {
    const conf = { confirmationId: 'conf_1', expiresAt: '2025-03-01T12:30:00.000Z' };
    expect(() => storedOutcomeOf(observationForPending(IDS, conf, NOW))).toThrow(TypeError);
    expect(() => storedOutcomeOf(observationForExpired(IDS, NOW))).toThrow(TypeError);
  });
});

describe('replayObservation', () => {
  it('re-issues a stored result under the new proposal, marked replay, at now', () => {
    const first = observationForResult(IDS, { content: '<<42>>', withheld: false }, NOW);
    const again = replayObservation(storedOutcomeOf(first), AGAIN, LATER);
    expect(again).toEqual({
      ...first,
      ...AGAIN,
      replay: true,
      at: '2025-03-02T08:00:00.000Z',
    });
    expect(check('observations', again)).toEqual([]);
  });

  it('survives the JSON round trip of the idempotency record', () => {
    const first = observationForResult(IDS, { content: '<<42>>', withheld: true }, NOW);
    const stored = JSON.parse(JSON.stringify(storedOutcomeOf(first))) as ReturnType<
      typeof storedOutcomeOf
    >;
    expect(replayObservation(stored, AGAIN, LATER).result).toEqual(first.result);
  });

  it('re-issues a stored refusal with its stage and code', () => {
    const r = refusal(rejecterFor('result')('invalid_output', undefined, 'detail'));
    const first = observationForRefusal(IDS, r, NOW);
    const again = replayObservation(storedOutcomeOf(first), AGAIN, LATER);
    expect(again).toMatchObject({ outcome: 'rejected', stage: 'result', code: 'invalid_output' });
    expect(check('observations', again)).toEqual([]);
  });

  it('replays the idempotency rung\'s "outcome lost" as unknown_outcome', () => {
    const decided = decideIdempotency(
      { digest: 'd', state: 'done', token: 'someone-else' },
      'd',
      'me',
    );
    if (!decided.ok || decided.value.action !== 'replay') throw new Error('expected a replay');
    const again = replayObservation(decided.value.outcome, AGAIN, LATER);
    expect(again).toEqual({ ...observationForUnknown(AGAIN, LATER), replay: true });
    expect(check('observations', again)).toEqual([]);
  });

  it('replays a damaged stored observation as unknown_outcome, never as what it claims', () => {
    const damaged = [
      {},
      { disposition: 'execute' },
      { disposition: 'explode', message: 'm' },
      { disposition: 'execute', message: 'm', stage: 'result' },
      { disposition: 'execute', message: 'm', stage: 'result', code: 'not_authorized' },
      { disposition: 'execute', message: 'm', result: { content: 1, withheld: false } },
      { disposition: 'execute', message: 'm', result: 'text' },
      { disposition: 'execute', message: 'm' },
      { disposition: 'deny', message: 'm', result: { content: 'x', withheld: false } },
      { disposition: 'execute', message: '', result: { content: 'x', withheld: false } },
    ];
    for (const observation of damaged) {
      const again = replayObservation({ outcome: 'result', observation }, AGAIN, LATER);
      expect(again.outcome).toBe('unknown_outcome');
      expect(again.replay).toBe(true);
      expect(check('observations', again)).toEqual([]);
    }
  });

  it('replays a stored refusal without a stage, or with a result, as unknown_outcome', () => {
    for (const observation of [
      { disposition: 'deny', message: 'm' },
      {
        disposition: 'deny',
        message: 'm',
        stage: 'result',
        code: 'too_large',
        result: { content: 'x', withheld: true },
      },
    ]) {
      const again = replayObservation({ outcome: 'rejected', observation }, AGAIN, LATER);
      expect(again.outcome).toBe('unknown_outcome');
    }
  });
});
