import { describe, expect, it } from 'vitest';
import { createMessageChecker } from '../../messages/create-message-checker.js';
import type { Alert } from '../analytics-types.js';
import { ALERT_RULE_NAMES, resolveAlertRules, type AlertRulesInput } from './alert-rules.js';
import { denied, feed, MIN, ofKind, refusal, T0 } from './alerts.test-support.js';
import { ALERT_IDLE_MS, createAlertEngine } from './create-alert-engine.js';

/** Every alert any test raised: all are checked against the schema at the end. */
const raised: Alert[] = [];

function engineWith(input: AlertRulesInput = {}) {
  const engine = createAlertEngine(resolveAlertRules(input));
  return {
    engine,
    feed: (events: Parameters<typeof feed>[1]) => {
      const alerts = feed(engine, events);
      raised.push(...alerts);
      return alerts;
    },
  };
}

const times = (n: number, from: number, stepMs: number) =>
  Array.from({ length: n }, (_, i) => from + i * stepMs);

describe('authorization_probing', () => {
  it('stays quiet at 5 authorization refusals in 10 minutes and fires on the 6th, per run and per principal', () => {
    const { feed } = engineWith();
    expect(feed(times(5, T0, MIN).map((t) => denied(t)))).toEqual([]);
    const alerts = feed([denied(T0 + 5 * MIN)]);
    expect(alerts.map((a) => [a.rule, a.subject])).toEqual([
      ['authorization_probing', { kind: 'run', tenant: 'acme', id: 'run-1' }],
      ['authorization_probing', { kind: 'principal', tenant: 'acme', id: 'alice' }],
    ]);
    const [run] = alerts;
    expect(run).toMatchObject({
      counts: { refusals: 6 },
      threshold: { refusals: 5 },
      mode: 'alert',
      window: { start: new Date(T0).toISOString(), end: new Date(T0 + 5 * MIN).toISOString() },
      raisedAt: new Date(T0 + 5 * MIN).toISOString(),
    });
    expect(run?.evidence).toHaveLength(6);
  });

  it('slides: 6 refusals never more than 5 within 10 minutes raise nothing', () => {
    const { feed } = engineWith();
    // One every 2 minutes and 1 second: any 10-minute window holds at most 5.
    expect(feed(times(12, T0, 2 * MIN + 1000).map((t) => denied(t)))).toEqual([]);
  });

  it('counts only not_authorized refusals, and the principal across runs', () => {
    const { feed } = engineWith();
    const schema = times(10, T0, 1000).map((t) =>
      refusal('schema', 'unknown_tool', { atMs: t, runId: 'r', subject: 'alice', tenant: 'acme' }),
    );
    const broken = times(10, T0, 1000).map((t) =>
      refusal('authorization', 'policy_error', {
        atMs: t,
        runId: 'r',
        subject: 'alice',
        tenant: 'acme',
      }),
    );
    expect(feed([...schema, ...broken])).toEqual([]);
    const alerts = feed(times(6, T0 + 20_000, 1000).map((t, i) => denied(t, `run-${i}`)));
    expect(alerts.map((a) => a.subject)).toEqual([
      { kind: 'principal', tenant: 'acme', id: 'alice' },
    ]);
  });

  it('raises one alert per run per cool-down, and a new one with a new id after it', () => {
    const { feed } = engineWith();
    const first = feed(times(12, T0, 10_000).map((t) => denied(t, 'run-1', 'u')));
    expect(first.filter((a) => a.subject.kind === 'run')).toHaveLength(1);
    // 10 minutes after the first alert (raised at the 6th, T0 + 50 s), the window is fresh.
    const later = feed(times(6, T0 + 11 * MIN, 1000).map((t) => denied(t, 'run-1', 'u')));
    const runAlerts = [...first, ...later].filter((a) => a.subject.kind === 'run');
    expect(runAlerts).toHaveLength(2);
    expect(runAlerts[1]?.alertId).not.toBe(runAlerts[0]?.alertId);
    expect(runAlerts[1]?.counts).toEqual({ refusals: 6 });
  });

  it('keeps tenants apart: the same run id in two tenants is two subjects', () => {
    const { feed } = engineWith();
    const both = times(6, T0, 1000).flatMap((t) => [
      refusal('authorization', 'not_authorized', { atMs: t, runId: 'r', tenant: 'acme' }),
      refusal('authorization', 'not_authorized', { atMs: t, runId: 'r', tenant: 'globex' }),
    ]);
    expect(feed(both).map((a) => a.subject.tenant)).toEqual(['acme', 'globex']);
  });

  it('in log mode raises the same alert marked log; disabled, none', () => {
    const events = times(6, T0, 1000).map((t) => denied(t));
    const logged = engineWith({ rules: { authorization_probing: { mode: 'log' } } }).feed(events);
    expect(logged.map((a) => a.mode)).toEqual(['log', 'log']);
    const off = engineWith({ rules: { authorization_probing: { enabled: false } } }).feed(events);
    expect(off).toEqual([]);
  });

  it('names at most evidenceLimit events, the oldest first', () => {
    const events = times(8, T0, 1000).map((t) => denied(t, 'run-1', 'bob'));
    const { feed } = engineWith({
      evidenceLimit: 3,
      rules: { authorization_probing: { threshold: 7 } },
    });
    const [alert] = feed(events);
    expect(alert?.counts).toEqual({ refusals: 8 });
    expect(alert?.evidence.map((e) => e.eventId)).toEqual(events.slice(0, 3).map((e) => e.eventId));
  });
});

describe('runaway_run', () => {
  const stopped = (atMs: number, code: 'run_call_limit' | 'repair_budget_exhausted', runId = 'r') =>
    refusal('limits', code, { atMs, runId, subject: 'carol', tenant: 'acme' });

  it('fires on the first refusal of a run for its call ceiling, once per run and hour', () => {
    const { feed } = engineWith();
    const first = feed([stopped(T0, 'run_call_limit')]);
    expect(first.map((a) => [a.rule, a.subject, a.counts])).toEqual([
      ['runaway_run', { kind: 'run', tenant: 'acme', id: 'r' }, { refusals: 1, run_call_limit: 1 }],
    ]);
    expect(feed([stopped(T0 + MIN, 'repair_budget_exhausted')])).toEqual([]);
    expect(feed([stopped(T0 + 2 * MIN, 'run_call_limit', 'other')])).toHaveLength(1);
    expect(feed([stopped(T0 + 61 * MIN, 'run_call_limit')])).toHaveLength(1);
  });

  it("ignores a tenant's or a user's rate limit, which says nothing of one run", () => {
    const { feed } = engineWith();
    const limited = times(20, T0, 1000).map((t) =>
      refusal('limits', 'rate_limited', { atMs: t, runId: 'r', subject: 'carol', tenant: 'acme' }),
    );
    expect(feed(limited).filter((a) => a.rule === 'runaway_run')).toEqual([]);
  });
});

describe('object_enumeration', () => {
  const miss = (atMs: number, ids: readonly string[], runId = 'run-e') =>
    refusal('resolution', 'not_found', {
      atMs,
      runId,
      subject: 'eve',
      tenant: 'acme',
      objectIds: ids,
    });

  it('fires on the 11th distinct missing object, not the 10th', () => {
    const { feed } = engineWith();
    expect(feed(times(10, T0, 1000).map((t, i) => miss(t, [`inv_${i}`])))).toEqual([]);
    const alerts = feed([miss(T0 + 20_000, ['inv_new'])]);
    expect(alerts.map((a) => a.subject.kind)).toEqual(['run', 'principal']);
    expect(alerts[0]?.counts).toEqual({ distinctObjects: 11, refusals: 11 });
    expect(alerts[0]?.threshold).toEqual({ distinctObjects: 10 });
  });

  it('counts distinct ids: 40 misses of the same 3 objects raise nothing', () => {
    const { feed } = engineWith();
    const same = times(40, T0, 1000).map((t, i) => miss(t, [`inv_${i % 3}`]));
    expect(feed(same)).toEqual([]);
  });

  it('slides: ids missed more than 10 minutes apart are not counted together', () => {
    const { feed } = engineWith();
    expect(feed(times(20, T0, MIN + 1000).map((t, i) => miss(t, [`inv_${i}`])))).toEqual([]);
  });

  it('ignores not_found refusals of other rungs and other codes', () => {
    const { feed } = engineWith();
    const other = times(20, T0, 1000).map((t, i) =>
      refusal('resolution', 'ambiguous_reference', {
        atMs: t,
        runId: 'r',
        tenant: 'acme',
        objectIds: [`x${i}`],
      }),
    );
    expect(feed(other)).toEqual([]);
  });
});

describe('refusal_rate_jump', () => {
  const refused = (atMs: number, tenant = 'acme') =>
    refusal('schema', 'missing_field', { atMs, tenant, runId: 'r', subject: 'a' });
  /** One refusal a minute for the 70 minutes before `T0 + 70 min`. */
  const baseline = () => times(70, T0, MIN).map((t) => refused(t));
  /** `perMinute` refusals in each of the 10 minutes from T0 + 70 min. */
  const burst = (perMinute: number) =>
    times(10 * perMinute, T0 + 70 * MIN, MIN / perMinute).map((t) => refused(t));

  it('fires when the last 10 minutes run more than 3 times the trailing hour', () => {
    const { feed } = engineWith();
    expect(feed(baseline())).toEqual([]);
    const alerts = feed(burst(4));
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      rule: 'refusal_rate_jump',
      subject: { kind: 'tenant', tenant: 'acme', id: 'acme' },
      threshold: { factor: 3, minRefusals: 20 },
    });
    const { recentRefusals = 0, baselineRefusals = 0 } = alerts[0]?.counts ?? {};
    expect(recentRefusals / 10).toBeGreaterThan((3 * baselineRefusals) / 60);
  });

  it('stays quiet at exactly 3 times the baseline', () => {
    const { feed } = engineWith();
    expect(feed([...baseline(), ...burst(3)])).toEqual([]);
  });

  it('needs minRefusals: a tenant with no baseline pages at 20 recent refusals, not 19', () => {
    const quiet = (n: number) => [
      ofKind('validated', { atMs: T0, tenant: 'acme' }),
      ...times(n, T0 + 70 * MIN, 1000).map((t) => refused(t)),
    ];
    expect(engineWith().feed(quiet(19))).toEqual([]);
    expect(
      engineWith()
        .feed(quiet(20))
        .map((a) => a.counts),
    ).toEqual([{ recentRefusals: 20, baselineRefusals: 0 }]);
  });

  it('judges no tenant it has not seen for a whole baseline (a freshly started engine)', () => {
    const { feed } = engineWith();
    expect(feed(times(100, T0, 1000).map((t) => refused(t)))).toEqual([]);
  });

  it('raises one alert per cool-down, and log mode marks it', () => {
    const { feed } = engineWith({ rules: { refusal_rate_jump: { mode: 'log' } } });
    const alerts = feed([...baseline(), ...burst(8)]);
    expect(alerts.map((a) => a.mode)).toEqual(['log']);
  });
});

describe('forgery', () => {
  const forged = (atMs: number) => refusal('authentication', 'forged_envelope', { atMs });

  it('fires on the first forged envelope, for the gate, and counts every kind of forgery', () => {
    const { feed } = engineWith({ rules: { forgery: { cooldownMs: MIN, windowMs: MIN } } });
    const [first, ...rest] = feed([forged(T0)]);
    expect(rest).toEqual([]);
    expect(first).toMatchObject({
      rule: 'forgery',
      subject: { kind: 'gate', tenant: null, id: 'integrity' },
      counts: { forgeries: 1, forged_envelope: 1 },
      threshold: { forgeries: 0 },
    });
    expect(feed([refusal('authentication', 'stale_envelope', { atMs: T0 + 1000 })])).toEqual([]);
    const after = feed([forged(T0 + MIN + 30_000)]);
    expect(after.map((a) => a.counts)).toEqual([{ forgeries: 1, forged_envelope: 1 }]);
  });

  it('files a forged result under its tenant', () => {
    const alerts = engineWith().feed([ofKind('forged_result', { atMs: T0, tenant: 'acme' })]);
    expect(alerts.map((a) => [a.subject, a.counts])).toEqual([
      [
        { kind: 'tenant', tenant: 'acme', id: 'acme' },
        { forgeries: 1, forged_result: 1 },
      ],
    ]);
  });

  it('de-duplicates within the cool-down', () => {
    const alerts = engineWith().feed(times(30, T0, 1000).map((t) => forged(t)));
    expect(alerts).toHaveLength(1);
  });
});

describe('invalid_sessions_burst', () => {
  const bad = (atMs: number, code: 'invalid_session' | 'missing_session' = 'invalid_session') =>
    refusal('authentication', code, { atMs });

  it('fires above 20 invalid sessions a minute, counting them by code', () => {
    const { feed } = engineWith();
    expect(
      feed(
        times(20, T0, 1000).map((t, i) => bad(t, i % 2 ? 'missing_session' : 'invalid_session')),
      ),
    ).toEqual([]);
    const alerts = feed([bad(T0 + 30_000)]);
    expect(alerts.map((a) => [a.subject.kind, a.counts])).toEqual([
      ['gate', { invalidSessions: 21, invalid_session: 11, missing_session: 10 }],
    ]);
  });

  it('slides over the minute and ignores forged envelopes', () => {
    const { feed } = engineWith();
    expect(feed(times(40, T0, 3100).map((t) => bad(t)))).toEqual([]);
    const forged = times(30, T0 + 10 * MIN, 100).map((t) =>
      refusal('authentication', 'forged_envelope', { atMs: t }),
    );
    expect(feed(forged).map((a) => a.rule)).toEqual(['forgery']);
  });
});

describe('quarantine_burst', () => {
  it('fires on the 11th quarantined input in a minute, once per cool-down', () => {
    const { feed } = engineWith();
    const q = times(30, T0, 1000).map((t) => ofKind('quarantined', { atMs: t }));
    const alerts = feed(q);
    expect(alerts.map((a) => [a.rule, a.counts])).toEqual([
      ['quarantine_burst', { quarantined: 11 }],
    ]);
  });
});

describe('approval_health', () => {
  const changed = (atMs: number) =>
    refusal('confirmation', 'content_changed', { atMs, tenant: 'acme', subject: 'bob' });

  it('fires on the 4th content_changed in an hour, reporting every count against its threshold', () => {
    const { feed } = engineWith();
    expect(feed(times(3, T0, MIN).map(changed))).toEqual([]);
    const [alert, ...rest] = feed([
      ofKind('expired', { atMs: T0 + 4 * MIN, tenant: 'acme' }),
      changed(T0 + 5 * MIN),
    ]);
    expect(rest).toEqual([]);
    expect(alert).toMatchObject({
      subject: { kind: 'tenant', tenant: 'acme', id: 'acme' },
      counts: { expired: 1, contentChanged: 4, approverRefused: 0 },
      threshold: { expired: 10, contentChanged: 3, approverRefused: 3 },
    });
  });

  it('fires on the 11th expired confirmation and the 4th refused approver', () => {
    const expired = times(11, T0, MIN).map((t) => ofKind('expired', { atMs: t, tenant: 'acme' }));
    expect(
      engineWith()
        .feed(expired)
        .map((a) => a.counts['expired']),
    ).toEqual([11]);
    const refused = times(4, T0, MIN).map((t) =>
      refusal('confirmation', 'approver_not_authorized', { atMs: t, tenant: 'acme' }),
    );
    expect(
      engineWith()
        .feed(refused)
        .map((a) => a.counts['approverRefused']),
    ).toEqual([4]);
  });

  it('slides over the hour', () => {
    expect(engineWith().feed(times(8, T0, 21 * MIN).map(changed))).toEqual([]);
  });
});

describe('createAlertEngine', () => {
  it('raises the same alerts with the same ids when the same events are replayed', () => {
    const events = [
      ...times(7, T0, 1000).map((t) => denied(t)),
      refusal('authentication', 'forged_envelope', { atMs: T0 + 9000 }),
    ];
    const run = () => {
      const engine = createAlertEngine(resolveAlertRules(undefined));
      return events.flatMap((e, i) => engine.observe(e, { partition: 3, offset: String(100 + i) }));
    };
    const live = run();
    const replayed = run();
    raised.push(...live);
    expect(live.length).toBe(3);
    expect(replayed).toEqual(live);
  });

  it('forgets old events only when the clock ticks over a quiet minute, not during a replay', () => {
    const early = times(5, T0, 1000).map((t) => denied(t));
    const late = denied(T0 + 6000);
    // Ticks while events keep arriving (a replay far behind the clock) forget nothing.
    const replaying = engineWith();
    replaying.feed(early.slice(0, 3));
    replaying.engine.tick(T0 + 30 * MIN);
    replaying.feed(early.slice(3));
    expect(replaying.engine.tick(T0 + 31 * MIN)).toEqual([]);
    expect(replaying.feed([late])).toHaveLength(2);
    // A quiet minute of ticks moves the windows to the clock: the 6th refusal comes too late.
    const quiet = engineWith();
    quiet.feed(early);
    quiet.engine.tick(T0 + 30 * MIN);
    quiet.engine.tick(T0 + 30 * MIN);
    quiet.engine.tick(T0 + 30 * MIN + ALERT_IDLE_MS);
    expect(quiet.feed([late])).toEqual([]);
  });

  it('refuses an event whose at is not an instant', () => {
    const event = { ...denied(T0), at: 'yesterday' };
    expect(() =>
      createAlertEngine(resolveAlertRules(undefined)).observe(event, { partition: 0, offset: '1' }),
    ).toThrow(RangeError);
  });

  it('writes only alerts the alerts schema accepts', () => {
    expect(raised.length).toBeGreaterThan(20);
    const check = createMessageChecker();
    for (const alert of raised) expect(check('alerts', alert), alert.rule).toEqual([]);
    expect(new Set(raised.map((a) => a.rule)).size).toBe(ALERT_RULE_NAMES.length);
  });
});
