/**
 * The alerts the analytics service raised during the run, read back from the alerts topic with
 * `toolgate alerts --json` as its principal, as an operator would read them. The run must raise
 * two: its runaway run (stopped by its call ceiling) and the walk-around's forgeries.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ANALYTICS_PRINCIPAL } from '@toolgate/platform';
import type { Alert } from '@toolgate/shared';
import type { DemoSettings } from './demo-settings.js';
import { REPO_ROOT } from './demo-settings.js';
import { WaitTimeoutError, waitUntil } from './wait-until.js';

const run = promisify(execFile);

/** How long the demo waits for the alerts it expects, in ms: windows of analytics close later. */
export const ALERTS_TIMEOUT_MS = 60_000;

/** What the demo expects analytics to raise, by rule, and which subject shows it. */
export interface ExpectedAlert {
  readonly rule: string;
  readonly what: string;
  matches(alert: Alert): boolean;
}

/** The runaway run's alert and a forgery alert. */
export function expectedAlerts(runTag: string): readonly ExpectedAlert[] {
  return [
    {
      rule: 'runaway_run',
      what: 'the runaway run, stopped by its call ceiling',
      matches: (a) => a.rule === 'runaway_run' && a.subject.id === `demo-${runTag}-runaway`,
    },
    {
      rule: 'forgery',
      what: "the walk-around's forged envelopes and results",
      matches: (a) => a.rule === 'forgery',
    },
  ];
}

/** The alerts raised since `sinceMs`, once the expected ones are among them (or the time is up). */
export async function readDemoAlerts(
  settings: DemoSettings,
  sinceMs: number,
): Promise<{ readonly alerts: readonly Alert[]; readonly missing: readonly ExpectedAlert[] }> {
  const expected = expectedAlerts(settings.runTag);
  let alerts: readonly Alert[] = [];
  const missing = () => expected.filter((e) => !alerts.some((a) => e.matches(a)));
  try {
    await waitUntil(
      async () => {
        alerts = await alertsSince(settings, sinceMs);
        return missing().length === 0 ? true : undefined;
      },
      'alerts of this run on the alerts topic',
      ALERTS_TIMEOUT_MS,
      1_000,
    );
  } catch (error) {
    if (!(error instanceof WaitTimeoutError)) throw error;
  }
  return { alerts, missing: missing() };
}

async function alertsSince(settings: DemoSettings, sinceMs: number): Promise<readonly Alert[]> {
  const since = new Date(sinceMs).toISOString();
  const { stdout } = await run(
    process.execPath,
    ['packages/cli/bin/toolgate.js', 'alerts', '--since', since, '--json'],
    { cwd: REPO_ROOT, env: { ...process.env, ...settings.envOf(ANALYTICS_PRINCIPAL) } },
  );
  return (JSON.parse(stdout) as { alerts: Alert[] }).alerts;
}

/** One line per alert: rule, subject, counts over threshold. */
export function alertsTable(alerts: readonly Alert[]): string {
  const rows = alerts.map((a) => [
    a.rule,
    `${a.subject.kind} ${a.subject.tenant ?? '-'}/${a.subject.id}`,
    Object.entries(a.counts)
      .map(([k, v]) => `${k} ${v}`)
      .join(', '),
    a.mode === 'log' ? 'log only' : 'alert',
  ]);
  const header = ['rule', 'subject', 'counts', 'mode'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: readonly string[]) =>
    `  ${cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ')}`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
