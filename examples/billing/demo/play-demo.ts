/**
 * What the demo does once its system is up: the scripted run and its table of outcomes, then the
 * walk-around attempts and their table, then the alerts analytics raised, each printed as soon as
 * it is known. Resolves true only when every outcome was the expected one, every rung refused
 * something, every walk-around attempt was stopped, and analytics alerted on the runaway run and
 * on the forgeries.
 */
import { EXAMPLE_WORKER } from '@toolgate/platform';
import { alertsTable, readDemoAlerts } from './analytics-alerts.js';
import { openDemoClients } from './demo-clients.js';
import type { DemoSettings } from './demo-settings.js';
import type { DemoSystem } from './demo-system.js';
import type { Provisioned } from './namespace-setup.js';
import { runDemo, type DemoReport } from './run-demo.js';
import { walkAround } from './walk-around.js';
import { walkAroundTable, walkAroundVerdict, type AttemptLine } from './walk-around-table.js';

/** Where the demo writes: `say` for a phase line, `print` for a block of text. */
export interface DemoOutput {
  readonly say: (line: string) => void;
  readonly print: (text: string) => void;
}

/** Plays the scripted run, then the walk-around, against `system`. */
export async function playDemo(
  settings: DemoSettings,
  system: DemoSystem,
  provisioned: Provisioned,
  out: DemoOutput,
): Promise<boolean> {
  const clients = await openDemoClients(settings);
  // Alerts are read back by event time: this run's start, a little early for clock skew.
  const sinceMs = Date.now() - 5_000;
  try {
    const report = await runDemo(settings, clients, out.say);
    printReport(report, out);
    out.say('now trying to walk around the gate, as components and intruders it must stop');
    const lines = await walkAround({
      settings,
      clients,
      worker: system.worker,
      workerRedisUrl: provisioned.workerRedisUrl ?? workerRedisUrl(settings),
    });
    printWalkAround(lines, out);
    out.say('reading back the alerts analytics raised (toolgate alerts, as toolgate-analytics)');
    const alerted = await printAlerts(settings, sinceMs, out);
    return report.mismatches.length === 0 && lines.every((l) => l.stopped) && alerted;
  } finally {
    await clients.close();
  }
}

function workerRedisUrl(settings: DemoSettings): string {
  const url = settings.envOf(EXAMPLE_WORKER.principal)['TOOLGATE_REDIS_URL'];
  if (url === undefined) throw new Error('the stack gives the tool worker no Redis user');
  return url;
}

function printReport(report: DemoReport, out: DemoOutput): void {
  out.print(
    `\nOutcomes of this run by stage, code and kind (from the audit topic):\n\n${report.table}\n\n`,
  );
  if (report.mismatches.length === 0) {
    out.say(
      `all ${report.proposals} proposals ended as the script expected; every rung of the ladder refused at least once`,
    );
    return;
  }
  out.say(`${report.mismatches.length} difference(s) from the script:`);
  for (const line of report.mismatches) out.print(`  - ${line}\n`);
}

function printWalkAround(lines: readonly AttemptLine[], out: DemoOutput): void {
  out.print(
    `\nWalk-around attempts: what was tried, as whom, and what stopped it (as observed):\n\n${walkAroundTable(lines)}\n\n`,
  );
  out.say(walkAroundVerdict(lines));
}

async function printAlerts(
  settings: DemoSettings,
  sinceMs: number,
  out: DemoOutput,
): Promise<boolean> {
  const { alerts, missing } = await readDemoAlerts(settings, sinceMs);
  out.print(
    `\nAlerts analytics raised during this run (read back from the alerts topic):\n\n${alertsTable(alerts)}\n\n`,
  );
  if (missing.length === 0) {
    out.say('analytics alerted on the runaway run and on the forgeries');
    return true;
  }
  out.say(`analytics raised no alert for ${missing.map((m) => m.what).join(', ')}`);
  return false;
}
