import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  IDEMPOTENCY_STATES,
  decideIdempotency,
  type IdempotencyRecord,
  type StoredOutcome,
} from './decide-idempotency.js';

const outcome: StoredOutcome = { outcome: 'result', observation: { message: 'ok' } };
const record = (over: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
  digest: 'd1',
  state: 'done',
  token: 'theirs',
  commandId: 'cmd-1',
  outcome,
  ...over,
});
const claimed = (token: string): IdempotencyRecord => ({ digest: 'd1', state: 'claimed', token });

describe('decideIdempotency', () => {
  it('claims a key that has no record', () => {
    expect(decideIdempotency(undefined, 'd1', 'mine')).toEqual({
      ok: true,
      value: { action: 'claim' },
    });
  });

  it('never claims for a call authorized as a replay: no record left is replay_expired', () => {
    const replayOnly = { replayOnly: true };
    expect(decideIdempotency(undefined, 'd1', 'mine', replayOnly)).toMatchObject({
      ok: false,
      stage: 'idempotency',
      code: 'replay_expired',
      disposition: 'retry',
    });
    expect(decideIdempotency(record(), 'd1', 'mine', replayOnly)).toEqual({
      ok: true,
      value: { action: 'replay', outcome },
    });
    expect(decideIdempotency(claimed('theirs'), 'd1', 'mine', replayOnly)).toMatchObject({
      ok: false,
      code: 'in_flight',
    });
  });

  it('refuses a key reused for a different command as a conflict', () => {
    const d = decideIdempotency(record({ digest: 'd0' }), 'd1', 'mine');
    expect(d).toMatchObject({
      ok: false,
      stage: 'idempotency',
      code: 'conflict',
      disposition: 'deny',
    });
    expect(!d.ok && d.internalDetail).toContain('d0');
  });

  it('calls it a conflict even when the different command is my own claim', () => {
    const d = decideIdempotency(
      record({ digest: 'd0', state: 'claimed', token: 'mine' }),
      'd1',
      'mine',
    );
    expect(d).toMatchObject({ ok: false, code: 'conflict' });
  });

  it('proceeds when the claim is mine, as after a client retry of SET NX', () => {
    const mine = claimed('mine');
    expect(decideIdempotency(mine, 'd1', 'mine')).toEqual({
      ok: true,
      value: { action: 'proceed' },
    });
  });

  it.each(['done', 'unknown'] as const)(
    'never proceeds on my own %s record: the call ended, so it is settled, not run again',
    (state) => {
      const stored: StoredOutcome = { outcome: 'unknown_outcome', observation: { code: 'x' } };
      const mine = record({ state, token: 'mine', outcome: stored });
      expect(decideIdempotency(mine, 'd1', 'mine')).toEqual({
        ok: true,
        value: { action: 'settled', outcome: stored },
      });
    },
  );

  it.each(['done', 'unknown'] as const)('replays the stored outcome of a %s record', (state) => {
    const stored: StoredOutcome = { outcome: 'unknown_outcome', observation: { code: 'x' } };
    expect(decideIdempotency(record({ state, outcome: stored }), 'd1', 'mine')).toEqual({
      ok: true,
      value: { action: 'replay', outcome: stored },
    });
  });

  it('replays an unknown outcome when a finished record lost its outcome, rather than run again', () => {
    const { outcome: _lost, ...bare } = record();
    expect(decideIdempotency(bare, 'd1', 'mine')).toEqual({
      ok: true,
      value: { action: 'replay', outcome: { outcome: 'unknown_outcome', observation: {} } },
    });
  });

  it('asks to retry while another handler holds the claim', () => {
    const d = decideIdempotency(claimed('theirs'), 'd1', 'mine');
    expect(d).toMatchObject({ ok: false, code: 'in_flight', disposition: 'retry' });
    expect(d.ok ? '' : d.publicMessage).not.toContain('theirs');
  });

  it('decides every record state, digest and token combination by the documented order', () => {
    const small = fc.constantFrom('a', 'b');
    const anyRecord = fc.option(
      fc.record(
        {
          digest: small,
          state: fc.constantFrom(...IDEMPOTENCY_STATES),
          token: small,
          commandId: fc.string(),
          outcome: fc.constantFrom<StoredOutcome>(outcome, {
            outcome: 'rejected',
            observation: {},
          }),
        },
        { requiredKeys: ['digest', 'state', 'token'] },
      ),
      { nil: undefined },
    );
    fc.assert(
      fc.property(anyRecord, small, small, (rec, digest, token) => {
        expect(summary(decideIdempotency(rec, digest, token))).toBe(expected(rec, digest, token));
      }),
      { numRuns: 1000 },
    );
  });
});

/** The documented order, written independently of the implementation. */
function expected(rec: IdempotencyRecord | undefined, digest: string, token: string): string {
  if (rec === undefined) return 'claim';
  if (rec.digest !== digest) return 'conflict';
  if (rec.token === token) return rec.state === 'claimed' ? 'proceed' : 'settled';
  return rec.state === 'claimed' ? 'in_flight' : 'replay';
}

function summary(d: ReturnType<typeof decideIdempotency>): string {
  return d.ok ? d.value.action : d.code;
}
