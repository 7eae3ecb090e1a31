/**
 * The alert engine: every rule of the deployment over the audit events of the partitions it is
 * fed, on event time, in memory, with no clock of its own.
 */
import type { AuditEvent } from '../../messages/audit-event.js';
import type { Alert, AlertEngine, AlertSubject, AuditPosition } from '../analytics-types.js';
import { alertIdOf, subjectKey } from './alert-id.js';
import type { AlertRules, AlertRuleName, RuleSwitch } from './alert-rules.js';
import { RateJumpTracker } from './rate-jump.js';
import { SlidingWindow } from './sliding-window.js';
import { windowRules, type Verdict, type WindowRule } from './window-rules.js';

/**
 * Wall-clock time (by `tick`) with no event observed after which the engine takes the clock as
 * its event time, so that the windows of a quiet installation still empty: one minute.
 */
export const ALERT_IDLE_MS = 60_000;

/** A rule's live state: each subject's window and when each subject last raised an alert. */
interface RuleState {
  readonly rule: WindowRule;
  readonly windows: Map<string, SlidingWindow>;
  readonly lastRaised: Map<string, number>;
}

/**
 * An engine for `rules` (resolve them with `resolveAlertRules`). Time is event time: the newest
 * `at` observed (the watermark) ends every sliding window, and an event older than its rule's
 * window behind the watermark counts for nothing. `tick(nowMs)` moves the watermark to the clock
 * only after {@link ALERT_IDLE_MS} of ticks with no event in between, so replaying old events
 * (after a crash) raises exactly the alerts, with the same ids, that they raised live.
 *
 * De-duplication: after an alert of a rule and subject, none other until the rule's `cooldownMs`
 * of event time has passed (at least its window, so no event is counted by two alerts of one
 * subject). The alert's window starts at the oldest event it counted (for `refusal_rate_jump`, at
 * the recent window's first minute), and its id is derived from rule, subject and that start.
 *
 * State is bounded by event time: each subject keeps only the matching events within its rule's
 * window (at most 10 000 per subject and rule), empty windows and spent cool-downs are dropped on
 * every `tick`, and `refusal_rate_jump` keeps one counter per minute of recent + baseline per
 * tenant (71 by default) and at most `evidenceLimit` event ids.
 *
 * @throws RangeError from `observe` for an event whose `at` is not an instant (the audit schema
 *   rules that out: such an event was not decoded by the gate's codec).
 */
export function createAlertEngine(rules: AlertRules): AlertEngine {
  const states: RuleState[] = windowRules(rules.rules)
    .filter((rule) => rule.settings.enabled)
    .map((rule) => ({ rule, windows: new Map(), lastRaised: new Map() }));
  const jumpRule = rules.rules.refusal_rate_jump;
  const jumps = jumpRule.enabled ? new RateJumpTracker(jumpRule, rules.evidenceLimit) : undefined;
  const jumpRaised = new Map<string, number>();
  let watermark = -Infinity;
  let observedSinceTick = false;
  let quietSince: number | undefined;

  const raise = (
    name: AlertRuleName,
    settings: RuleSwitch,
    raised: Map<string, number>,
    found: Verdict & { subject: AlertSubject; windowStartMs: number },
    evidence: readonly { eventId: string; position: AuditPosition }[],
    event: AuditEvent,
    atMs: number,
  ): Alert[] => {
    const key = subjectKey(found.subject);
    const last = raised.get(key);
    if (last !== undefined && atMs < last + settings.cooldownMs) return [];
    raised.set(key, atMs);
    const start = new Date(found.windowStartMs).toISOString();
    return [
      {
        alertId: alertIdOf(name, found.subject, start),
        rule: name,
        subject: found.subject,
        window: { start, end: event.at },
        counts: found.counts,
        threshold: found.threshold,
        mode: settings.mode,
        evidence: evidence.map(({ eventId, position }) => ({ eventId, position: { ...position } })),
        raisedAt: event.at,
      },
    ];
  };

  const observeWindowed = (
    state: RuleState,
    event: AuditEvent,
    position: AuditPosition,
    atMs: number,
  ) =>
    state.rule.match(event).flatMap(({ subject, marks }) => {
      const key = subjectKey(subject);
      const window = state.windows.get(key) ?? new SlidingWindow(state.rule.settings.windowMs);
      state.windows.set(key, window);
      window.add({ atMs, eventId: event.eventId, position, marks }, watermark);
      const verdict = window.total > 0 ? state.rule.judge(window) : undefined;
      if (verdict === undefined) return [];
      const found = { ...verdict, subject, windowStartMs: window.startMs ?? atMs };
      const evidence = window.oldest(rules.evidenceLimit);
      const { name, settings } = state.rule;
      return raise(name, settings, state.lastRaised, found, evidence, event, atMs);
    });

  const sweep = () => {
    for (const state of states) {
      for (const [key, window] of state.windows) {
        window.prune(watermark);
        if (window.total === 0) state.windows.delete(key);
      }
      forgetSpent(state.lastRaised, state.rule.settings.cooldownMs, watermark);
    }
    jumps?.sweep(watermark);
    forgetSpent(jumpRaised, jumpRule.cooldownMs, watermark);
  };

  return {
    observe(event, position) {
      const atMs = Date.parse(event.at);
      if (Number.isNaN(atMs)) {
        throw new RangeError(`audit event ${event.eventId} has no instant in at`);
      }
      observedSinceTick = true;
      watermark = Math.max(watermark, atMs);
      const windowed = states.flatMap((state) => observeWindowed(state, event, position, atMs));
      const jump = jumps?.observe(event, position, atMs, watermark);
      const jumped =
        jump === undefined
          ? []
          : raise('refusal_rate_jump', jumpRule, jumpRaised, jump, jump.evidence, event, atMs);
      return [...windowed, ...jumped];
    },
    tick(nowMs) {
      if (observedSinceTick) {
        observedSinceTick = false;
        quietSince = undefined;
      } else if (quietSince === undefined) {
        quietSince = nowMs;
      } else if (nowMs - quietSince >= ALERT_IDLE_MS) {
        watermark = Math.max(watermark, nowMs);
      }
      sweep();
      // Every rule raises on the event that crosses its threshold; time alone raises none.
      return [];
    },
  };
}

/** Forgets the subjects whose cool-down ended before `watermarkMs`: they may alert again anyway. */
function forgetSpent(raised: Map<string, number>, cooldownMs: number, watermarkMs: number): void {
  for (const [key, at] of raised) if (at + cooldownMs <= watermarkMs) raised.delete(key);
}
