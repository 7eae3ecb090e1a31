import { accept, rejecterFor, type Decision } from '../decision.js';
import type { Ceilings } from './ceilings.js';
import { isCount } from './is-count.js';

const reject = rejecterFor('limits');

/** Call counts the shell fetched (Redis counters), each INCLUDING the call being decided. */
export interface CallCounts {
  /** Calls made in this run so far, this one included. */
  readonly callsInRun: number;
  /** Calls this tenant made in the current one-second window, this one included. */
  readonly tenantCallsThisSecond: number;
}

/**
 * The call-count ceilings of the limits rung. The run limit is checked first: it is final
 * (`run_call_limit`, deny), while the rate limit only asks to come back later (`rate_limited`,
 * retry), and a retry would meet the run limit anyway. A count that is not a non-negative integer
 * (a broken counter read) fails closed with the code of that counter.
 */
export function checkCallLimits(counts: CallCounts, ceilings: Ceilings): Decision<void, 'limits'> {
  const run = overLimit('calls in run', counts.callsInRun, ceilings.callsPerRun);
  if (run !== undefined) return reject('run_call_limit', undefined, run);
  const rate = overLimit(
    'tenant calls this second',
    counts.tenantCallsThisSecond,
    ceilings.callsPerTenantPerSecond,
  );
  if (rate !== undefined) return reject('rate_limited', undefined, rate);
  return accept(undefined);
}

/** The audit detail when `count` breaks `limit`, or undefined when it is within it. */
function overLimit(what: string, count: number, limit: number): string | undefined {
  if (!isCount(count)) return `${what} is not a count (${count}); failing closed`;
  return count > limit ? `${what} ${count} > ceiling ${limit}` : undefined;
}
