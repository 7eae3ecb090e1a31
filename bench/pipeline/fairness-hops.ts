/**
 * Where the victim's time goes in the fairness scenario, hop by hop, alone and beside the flood:
 * each call's stamps on the gate's topics (hop-times.ts) between the driver's own two times, when
 * the proposal was due and when its observation reached the driver. The first leg (`sent`: due →
 * appended to the proposals topic) is the driver's send and the broker's append; the last
 * (`delivered`: observation written → read) is the driver's fetch. Besides each leg's percentiles,
 * the mean of each leg over the slowest calls says which hop the tail is made of. Pure.
 */
import { percentilesOf } from '../core/stats.js';
import { callHopTimes, HOPS, type Stamp } from './hop-times.js';
import type { CallTime } from './load-driver.js';

/** The legs of a victim call, in order: the driver's send, each gate hop, the driver's read. */
export const FAIRNESS_LEGS = ['sent', ...HOPS.slice(1), 'delivered'] as const;
export type FairnessLeg = (typeof FAIRNESS_LEGS)[number];

/** One leg over the calls of a phase, in ms. */
export interface LegSummary {
  readonly leg: FairnessLeg;
  readonly p50: number;
  readonly p99: number;
  /** The mean over the slowest {@link TAIL_SHARE} of calls (by due → answered). */
  readonly tailMean: number;
}

/** The victim's calls of one phase, leg by leg. */
export interface PhaseLegs {
  readonly calls: number;
  readonly legs: readonly LegSummary[];
  /** Due → answered over the same calls. */
  readonly total: { readonly p50: number; readonly p99: number; readonly tailMean: number };
}

/** The share of slowest calls whose legs' means make the tail: 5 %, 30 of a quick run's 600. */
export const TAIL_SHARE = 0.05;

const mean = (xs: readonly number[]) =>
  xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * The legs of the calls that `wanted` accepts, that the driver answered (`times`) and whose every
 * hop was stamped.
 */
export function phaseLegs(
  stamps: readonly Stamp[],
  times: ReadonlyMap<string, CallTime>,
  wanted: (proposalId: string) => boolean,
): PhaseLegs {
  const rows: number[][] = [];
  for (const [id, hops] of callHopTimes(stamps, (id) => wanted(id) && times.has(id))) {
    const t = times.get(id) as CallTime;
    const at = [t.dueAt, ...hops, t.answeredAt];
    rows.push(at.slice(1).map((x, i) => x - (at[i] as number)));
  }
  const totals = rows.map((r) => r.reduce((a, b) => a + b, 0));
  const slowest = rows
    .map((r, i) => ({ r, total: totals[i] as number }))
    .sort((a, b) => b.total - a.total)
    .slice(0, Math.max(1, Math.ceil(rows.length * TAIL_SHARE)));
  const column = (i: number) => rows.map((r) => r[i] as number);
  return {
    calls: rows.length,
    legs: FAIRNESS_LEGS.map((leg, i) => {
      const { p50, p99 } = percentilesOf(column(i));
      return { leg, p50, p99, tailMean: mean(slowest.map((s) => s.r[i] as number)) };
    }),
    total: {
      ...(({ p50, p99 }) => ({ p50, p99 }))(percentilesOf(totals)),
      tailMean: mean(slowest.map((s) => s.total)),
    },
  };
}

/** One line per phase: each leg's p50 / p99 / mean of the slowest calls, in ms. */
export function formatPhaseLegs(phases: Readonly<Record<string, PhaseLegs>>): string[] {
  const ms = (x: number) => (Number.isNaN(x) ? '–' : x.toFixed(0));
  return Object.entries(phases).map(
    ([phase, p]) =>
      `victim ${phase} (${p.calls} calls), legs p50/p99/slowest ${TAIL_SHARE * 100} % mean ms: ` +
      p.legs.map((l) => `${l.leg} ${ms(l.p50)}/${ms(l.p99)}/${ms(l.tailMean)}`).join(', ') +
      `; due → answered ${ms(p.total.p50)}/${ms(p.total.p99)}/${ms(p.total.tailMean)}`,
  );
}
