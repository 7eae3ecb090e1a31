import { accept, rejecterFor, type Decision } from '../decision.js';
import type { Ceilings } from './ceilings.js';
import { isCount } from './is-count.js';

const reject = rejecterFor('limits');

/**
 * Call counts the shell fetched (Redis counters, kept by the validate stage), each INCLUDING the
 * call being decided. The per-second counts are of the second the proposal reached the broker.
 */
export interface CallCounts {
  /** Calls made in this run so far, this one included. */
  readonly callsInRun: number;
  /** Calls this user (tenant and subject) made in the proposal's one-second window. */
  readonly userCallsThisSecond: number;
  /** Calls this tenant made in the proposal's one-second window, this one included. */
  readonly tenantCallsThisSecond: number;
}

/**
 * The call-count ceilings of the limits rung. The run limit is checked first: it is final
 * (`run_call_limit`, deny), while the rate limits only ask to come back later (`rate_limited`,
 * retry), and a retry would meet the run limit anyway; the user's rate before the tenant's, and
 * the audit detail names the one that was exceeded. A count that is not a non-negative integer
 * (a broken counter read) fails closed with the code of that counter.
 */
export function checkCallLimits(counts: CallCounts, ceilings: Ceilings): Decision<void, 'limits'> {
  const run = overLimit('calls in run', counts.callsInRun, ceilings.callsPerRun);
  if (run !== undefined) return reject('run_call_limit', undefined, run);
  const rate =
    overLimit(
      'user calls this second',
      counts.userCallsThisSecond,
      ceilings.callsPerUserPerSecond,
    ) ??
    overLimit(
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
