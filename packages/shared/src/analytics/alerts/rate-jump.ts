/**
 * `refusal_rate_jump`: a tenant's refusals per minute over the recent window against the same
 * rate over the baseline just before it, counted in one-minute buckets of event time so that a
 * busy tenant costs at most (recent + baseline) / 1 min counters.
 */
import { isRefusal } from '../../audit-summary/is-refusal.js';
import type { AuditEvent } from '../../messages/audit-event.js';
import type { AlertSubject, AuditPosition } from '../analytics-types.js';
import type { RateJumpRule } from './alert-rules.js';
import type { Verdict } from './window-rules.js';

const MINUTE = 60_000;

/** Evidence kept for a tenant: the first refusals of its recent window. */
interface Kept {
  readonly atMs: number;
  readonly eventId: string;
  readonly position: AuditPosition;
}

interface TenantRate {
  /** Event time of the first event of the tenant the engine saw (any event, not only refusals). */
  firstSeenMs: number;
  /** Refusals per minute bucket (`floor(at / 1 min)`). */
  readonly buckets: Map<number, number>;
  kept: Kept[];
}

/** A jump: its subject, its recent window's start, what it counted and the evidence. */
export interface Jump extends Verdict {
  readonly subject: AlertSubject;
  readonly windowStartMs: number;
  readonly evidence: readonly Kept[];
}

/** The rule's state across tenants. */
export class RateJumpTracker {
  private readonly tenants = new Map<string, TenantRate>();
  private readonly recent: number;
  private readonly baseline: number;

  constructor(
    private readonly rule: RateJumpRule,
    private readonly evidenceLimit: number,
  ) {
    this.recent = rule.recentMs / MINUTE;
    this.baseline = rule.baselineMs / MINUTE;
  }

  /**
   * Takes one event at `atMs` with the engine's watermark; returns the jump it shows, if any. A
   * tenant is judged only once the engine has seen it since the start of the baseline, so that
   * an engine that has just started (knowing no baseline) does not mistake every tenant's normal
   * refusals for a jump.
   */
  observe(
    event: AuditEvent,
    position: AuditPosition,
    atMs: number,
    watermarkMs: number,
  ): Jump | undefined {
    if (event.tenant === null) return undefined;
    const state = this.stateOf(event.tenant, atMs);
    if (!isRefusal(event)) return undefined;
    const bucket = Math.floor(atMs / MINUTE);
    state.buckets.set(bucket, (state.buckets.get(bucket) ?? 0) + 1);
    const current = Math.floor(watermarkMs / MINUTE);
    const recentStart = current - this.recent + 1;
    if (atMs >= recentStart * MINUTE && state.kept.length < this.evidenceLimit) {
      state.kept.push({ atMs, eventId: event.eventId, position });
    }
    this.prune(state, current);
    return this.judge(event.tenant, state, current);
  }

  /** Drops buckets and evidence older than the rule needs, for every tenant. */
  sweep(watermarkMs: number): void {
    const current = Math.floor(watermarkMs / MINUTE);
    for (const state of this.tenants.values()) this.prune(state, current);
  }

  private stateOf(tenant: string, atMs: number): TenantRate {
    const known = this.tenants.get(tenant);
    if (known !== undefined) {
      known.firstSeenMs = Math.min(known.firstSeenMs, atMs);
      return known;
    }
    const made: TenantRate = { firstSeenMs: atMs, buckets: new Map(), kept: [] };
    this.tenants.set(tenant, made);
    return made;
  }

  private prune(state: TenantRate, current: number): void {
    const oldest = current - this.recent - this.baseline + 1;
    for (const bucket of state.buckets.keys()) if (bucket < oldest) state.buckets.delete(bucket);
    const recentStartMs = (current - this.recent + 1) * MINUTE;
    state.kept = state.kept.filter((k) => k.atMs >= recentStartMs);
  }

  private judge(tenant: string, state: TenantRate, current: number): Jump | undefined {
    const recentStart = current - this.recent + 1;
    const baselineStart = recentStart - this.baseline;
    // Seen since the baseline's first minute: the baseline counted is the tenant's real one.
    if (state.firstSeenMs >= (baselineStart + 1) * MINUTE) return undefined;
    let recent = 0;
    let baseline = 0;
    for (const [bucket, n] of state.buckets) {
      if (bucket >= recentStart && bucket <= current) recent += n;
      else if (bucket >= baselineStart && bucket < recentStart) baseline += n;
    }
    // Rates per minute compared without dividing: recent/R > factor * baseline/B.
    const jumped =
      recent >= this.rule.minRefusals &&
      recent * this.baseline > this.rule.factor * baseline * this.recent;
    if (!jumped) return undefined;
    return {
      subject: { kind: 'tenant', tenant, id: tenant },
      windowStartMs: recentStart * MINUTE,
      counts: { recentRefusals: recent, baselineRefusals: baseline },
      threshold: { factor: this.rule.factor, minRefusals: this.rule.minRefusals },
      evidence: state.kept,
    };
  }
}
