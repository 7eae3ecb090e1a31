/**
 * The call counters of the `limits` rung (DESIGN §7), kept where a call enters the gate, by the
 * validate stage: calls per run, a user's and a tenant's calls per second, and the repairs of
 * each call chain of a run.
 */
import type { ChainStep, GateCounts, RepairChain } from '@toolgate/shared';
import { loadScript } from './load-script.js';
import type { RedisConnection } from './redis-connection.js';
import { corrupt } from './store-faults.js';
import { checkCount } from './stored-json.js';

/** How long a run's counts and repair chains live after its last call, in seconds (24 h). */
export const RUN_COUNTER_TTL_SECONDS = 24 * 60 * 60;

/**
 * How long a minute's rate counts live after that minute ends, in seconds (75 minutes): longer
 * than the proposals topic keeps a record (an hour, plus the ten-minute segment that retention
 * waits for), so a record read late, after an outage, is still counted with the other calls of the
 * second it reached the broker in, never in a fresh count.
 */
export const RATE_WINDOW_KEPT_SECONDS = 75 * 60;

/** The field of the run's repair chains that holds calls of an unknown or unreadable tool. */
const UNKNOWN_CHAIN_FIELD = '';

const COUNT_PROPOSAL = loadScript('count-proposal');

/** One authenticated proposal, as the validate stage counts it. */
export interface CountedProposal {
  readonly tenant: string;
  /** The session's subject: the user whose rate it counts in. */
  readonly subject: string;
  readonly runId: string;
  /** What the proposal is told apart by: the same token is the same proposal, delivered again. */
  readonly token: string;
  /** The second (since the epoch) the proposal reached the broker. */
  readonly second: number;
  /** Its repair chain in the run, and what it does to it. */
  readonly chain: RepairChain;
  readonly step: ChainStep;
  /**
   * How many of the run's proposals are told apart, at least 1: the run's limit and one more
   * tell every call the limit decides on apart.
   */
  readonly keep: number;
}

/** The call counters of every tenant. */
export interface CallCounters {
  /**
   * Counts one proposal in one round trip: in its run (kept 24 h after the last), in its user's
   * and tenant's second (kept {@link RATE_WINDOW_KEPT_SECONDS} after that second's minute), and
   * charges, resets or keeps its repair chain. A proposal delivered again (same token) gets the
   * answer it got the first time and is counted nowhere again; past the `keep` proposals a run
   * tells apart, one is counted again (the run is over its limit already).
   */
  countProposal(p: CountedProposal): Promise<GateCounts>;
}

/** The call counters on `conn`. */
export function createCallCounters(conn: RedisConnection): CallCounters {
  const { keys } = conn;
  return {
    async countProposal(p) {
      checkCount('second', p.second, 0);
      checkCount('proposals kept per run', p.keep, 1);
      const minute = Math.floor(p.second / 60);
      const ks = [
        keys.runCalls(p.tenant, p.runId),
        keys.runOverflow(p.tenant, p.runId),
        keys.tenantMinute(p.tenant, minute),
        keys.userMinute(p.tenant, p.subject, minute),
        keys.repairChains(p.tenant, p.runId),
      ];
      const args = [
        p.token,
        RUN_COUNTER_TTL_SECONDS,
        p.second,
        (minute + 1) * 60 + RATE_WINDOW_KEPT_SECONDS,
        p.keep,
        p.chain ?? UNKNOWN_CHAIN_FIELD,
        p.step,
        UNKNOWN_CHAIN_FIELD,
      ];
      const reply = await conn.script(COUNT_PROPOSAL, ks, args);
      const counts = Array.isArray(reply) ? (reply as unknown[]) : [];
      if (counts.length !== 4 || !counts.every((n) => typeof n === 'number')) {
        throw corrupt('call counters', ks[0] ?? '');
      }
      const [callsInRun, userCallsThisSecond, tenantCallsThisSecond, repairsBefore] = counts;
      return {
        callsInRun: callsInRun ?? Number.NaN,
        userCallsThisSecond: userCallsThisSecond ?? Number.NaN,
        tenantCallsThisSecond: tenantCallsThisSecond ?? Number.NaN,
        repairsBefore: repairsBefore ?? Number.NaN,
      };
    },
  };
}
