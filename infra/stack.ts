/**
 * The local stack's command line: `tsx infra/stack.ts up | down | status` (npm run stack:*).
 * A failure prints one line — component, reason, log file — and exits 1.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadStackConfig } from './stack-config.js';
import { stackDown, stackStatus, stackUp } from './stack-driver.js';
import { StackError } from './stack-error.js';
import type { Reporter } from './wait.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const reporter: Reporter = { line: (text) => console.log(`stack: ${text}`) };

async function main(command: string): Promise<number> {
  const config = loadStackConfig(process.env, repoRoot);
  switch (command) {
    case 'up':
      await stackUp(config, reporter);
      return 0;
    case 'down':
      await stackDown(config, reporter);
      return 0;
    case 'status': {
      const rows = await stackStatus(config);
      const width = Math.max(9, ...rows.map((r) => r.label.length + 1));
      for (const r of rows) {
        console.log(
          `${r.label.padEnd(width)}${(r.up ? 'up' : 'down').padEnd(6)}${r.address.padEnd(42)} ${r.detail}`,
        );
      }
      return rows.every((r) => r.up) ? 0 : 3;
    }
    default:
      console.error('usage: tsx infra/stack.ts up|down|status');
      return 2;
  }
}

const command = process.argv[2] ?? '';
main(command).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const line =
      error instanceof StackError
        ? error.oneLine()
        : String(error instanceof Error ? error.message : error);
    console.error(`stack:${command} failed: ${line}`);
    process.exit(1);
  },
);
