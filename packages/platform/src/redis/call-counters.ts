/**
 * The call counters of the `limits` rung (DESIGN §7): calls per run and a tenant's calls per
 * second, counted where a call enters the gate, by the authorize stage.
 */
import type { CallCounts } from '@toolgate/shared';
import { loadScript } from './load-script.js';
import type { RedisConnection } from './redis-connection.js';
import { corrupt } from './store-faults.js';
import { checkCount } from './stored-json.js';

/** How long a calls-per-run counter lives after its last call, in seconds (24 h). */
export const RUN_COUNTER_TTL_SECONDS = 24 * 60 * 60;

/** How long a per-second rate counter lives, in seconds (its second plus one). */
export const RATE_COUNTER_TTL_SECONDS = 2;

const COUNT_CALL = loadScript('count-call');

/** The call counters of every tenant. */
export interface CallCounters {
  /**
   * Counts one call, in one round trip: in its run (distinct `callToken`s, kept 24 h after the
   * last) and in the tenant's current second (2 s). Counting by token means a redelivered message
   * (same token) is counted in neither again; a run over its limit is a final denial. A
   * redelivery is told the current second's count as it stands, and at least 1 (itself).
   * The run keeps at most `keep` tokens (≥ 1; the run's limit and one more tell every call the
   * limit decides on apart): past them each new call is only counted, so a run that goes on
   * calling past its limit costs Redis a counter, not a token per call, and a redelivered call
   * past them is counted again, in the run and in the rate.
   */
  countCall(
    tenant: string,
    runId: string,
    callToken: string,
    nowMs: number,
    keep: number,
  ): Promise<CallCounts>;
}

/** The call counters on `conn`. */
export function createCallCounters(conn: RedisConnection): CallCounters {
  const { keys } = conn;
  return {
    async countCall(tenant, runId, callToken, nowMs, keep) {
      checkCount('now (ms)', nowMs, 0);
      checkCount('tokens kept per run', keep, 1);
      const second = Math.floor(nowMs / 1000);
      const ks = [
        keys.runCounter(tenant, runId),
        keys.rateCounter(tenant, second),
        keys.runOverflow(tenant, runId),
      ];
      const args = [callToken, RUN_COUNTER_TTL_SECONDS, RATE_COUNTER_TTL_SECONDS, keep];
      const reply = await conn.script(COUNT_CALL, ks, args);
      const [callsInRun, tenantCallsThisSecond] = Array.isArray(reply) ? (reply as unknown[]) : [];
      if (typeof callsInRun !== 'number' || typeof tenantCallsThisSecond !== 'number') {
        throw corrupt('call counters', ks[0] ?? '');
      }
      return { callsInRun, tenantCallsThisSecond } satisfies CallCounts;
    },
  };
}
