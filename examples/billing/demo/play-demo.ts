/**
 * What the demo does once its system is up: the scripted run and its table of outcomes, then the
 * walk-around attempts and their table, each printed as soon as it is known. Resolves true only
 * when every outcome was the expected one, every rung refused something, and every walk-around
 * attempt was stopped.
 */
import { EXAMPLE_WORKER } from '@toolgate/platform';
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
    return report.mismatches.length === 0 && lines.every((l) => l.stopped);
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
