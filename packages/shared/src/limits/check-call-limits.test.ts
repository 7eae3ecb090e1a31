import { describe, expect, it } from 'vitest';
import { DEFAULT_CEILINGS } from './ceilings.js';
import { checkCallLimits } from './check-call-limits.js';

const ceilings = {
  ...DEFAULT_CEILINGS,
  callsPerRun: 3,
  callsPerUserPerSecond: 4,
  callsPerTenantPerSecond: 5,
};
const within = { callsInRun: 1, userCallsThisSecond: 1, tenantCallsThisSecond: 1 };

describe('checkCallLimits', () => {
  it('accepts counts up to and including each ceiling', () => {
    expect(
      checkCallLimits(
        { callsInRun: 3, userCallsThisSecond: 4, tenantCallsThisSecond: 5 },
        ceilings,
      ),
    ).toEqual({ ok: true, value: undefined });
  });

  it('denies the call that takes the run past its ceiling', () => {
    const d = checkCallLimits({ ...within, callsInRun: 4 }, ceilings);
    expect(d).toMatchObject({
      ok: false,
      stage: 'limits',
      code: 'run_call_limit',
      disposition: 'deny',
    });
    expect(d.ok ? '' : d.internalDetail).toBe('calls in run 4 > ceiling 3');
  });

  it('asks to retry later when the tenant is over its calls per second', () => {
    const d = checkCallLimits({ ...within, tenantCallsThisSecond: 6 }, ceilings);
    expect(d).toMatchObject({ ok: false, code: 'rate_limited', disposition: 'retry' });
    expect(d.ok ? '' : d.internalDetail).toBe('tenant calls this second 6 > ceiling 5');
  });

  it('asks to retry later when the user is over its calls per second, and says it was the user', () => {
    const d = checkCallLimits(
      { ...within, userCallsThisSecond: 5, tenantCallsThisSecond: 6 },
      ceilings,
    );
    expect(d).toMatchObject({ ok: false, code: 'rate_limited', disposition: 'retry' });
    expect(d.ok ? '' : d.internalDetail).toBe('user calls this second 5 > ceiling 4');
  });

  it('reports the final run limit before the passing rate limit when both are exceeded', () => {
    const d = checkCallLimits(
      { callsInRun: 4, userCallsThisSecond: 9, tenantCallsThisSecond: 6 },
      ceilings,
    );
    expect(d).toMatchObject({ ok: false, code: 'run_call_limit' });
  });

  it.each([Number.NaN, -1, 1.5, Number.POSITIVE_INFINITY])(
    'fails closed when a counter read is not a count (%s)',
    (bad) => {
      expect(checkCallLimits({ ...within, callsInRun: bad }, ceilings)).toMatchObject({
        ok: false,
        code: 'run_call_limit',
      });
      expect(checkCallLimits({ ...within, userCallsThisSecond: bad }, ceilings)).toMatchObject({
        ok: false,
        code: 'rate_limited',
      });
      expect(checkCallLimits({ ...within, tenantCallsThisSecond: bad }, ceilings)).toMatchObject({
        ok: false,
        code: 'rate_limited',
      });
    },
  );

  it('tells the model nothing about the counts or the ceilings', () => {
    const d = checkCallLimits(
      { callsInRun: 4, userCallsThisSecond: 9, tenantCallsThisSecond: 6 },
      ceilings,
    );
    expect(d.ok ? '' : d.publicMessage).not.toMatch(/\d/);
  });
});
