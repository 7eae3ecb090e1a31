import { describe, expect, it } from 'vitest';
import type { Alert } from '@toolgate/shared';
import { collectAlerts, formatAlertLine } from './alert-lines.js';

const alert = (overrides: Partial<Alert> = {}): Alert => ({
  alertId: 'a'.repeat(64),
  rule: 'authorization_probing',
  subject: { kind: 'run', tenant: 'acme', id: 'run-7' },
  window: { start: '2026-03-01T09:00:00.000Z', end: '2026-03-01T09:05:00.000Z' },
  counts: { refusals: 6 },
  threshold: { refusals: 5 },
  mode: 'alert',
  evidence: [{ eventId: 'e'.repeat(64), position: { partition: 0, offset: '12' } }],
  raisedAt: '2026-03-01T09:05:00.000Z',
  ...overrides,
});

describe('collectAlerts', () => {
  it('keeps each alert id once, newest last, and counts what is not an alert', () => {
    const early = alert({ alertId: 'b'.repeat(64), raisedAt: '2026-03-01T08:00:00.000Z' });
    const late = alert();
    const { alerts, skipped } = collectAlerts([
      late,
      undefined,
      early,
      { ...late, mode: 'log' },
      { hello: 1 },
      { ...late, alertId: 'not hex' },
    ]);
    expect(alerts).toEqual([early, late]);
    expect(skipped).toBe(3);
  });
});

describe('formatAlertLine', () => {
  it('shows when, rule, subject, window, counts against the threshold and the id', () => {
    expect(formatAlertLine(alert())).toBe(
      '2026-03-01T09:05:00.000Z  authorization_probing  run acme/run-7  ' +
        '2026-03-01T09:00:00.000Z..2026-03-01T09:05:00.000Z  refusals=6 (>5)  aaaaaaaaaaaa',
    );
  });

  it('names thresholds that are no count, marks log mode, and shows a subject of the gate', () => {
    const line = formatAlertLine(
      alert({
        rule: 'refusal_rate_jump',
        subject: { kind: 'gate', tenant: null, id: 'integrity' },
        counts: { recentRefusals: 40, baselineRefusals: 60 },
        threshold: { factor: 3, minRefusals: 20 },
        mode: 'log',
      }),
    );
    expect(line).toContain('  gate integrity  ');
    expect(line).toContain(
      'recentRefusals=40 baselineRefusals=60  threshold factor: 3, minRefusals: 20',
    );
    expect(line).toContain('  (log only)  ');
  });

  it("quotes and escapes a caller's id, so no control sequence reaches the terminal", () => {
    const line = formatAlertLine(
      alert({ subject: { kind: 'run', tenant: 'acme', id: 'r\u001b[2J\u202e x' } }),
    );
    expect(line).toContain('run acme/"r\\u001b[2J\\u202e x"');
    expect(line).not.toMatch(/[^\x20-\x7e]/);
  });
});
