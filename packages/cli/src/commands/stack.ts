/**
 * `toolgate stack up|down|status`: the local stack (Kafka, schema registry, Redis), as
 * `npm run stack:*` runs it (infra/stack-driver.ts): `up` reuses what answers and starts what is
 * missing, `down` stops only what `up` started in this stack directory, `status` reports each part.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadStackConfig } from '../../../../infra/stack-config.js';
import { stackDown, stackStatus, stackUp } from '../../../../infra/stack-driver.js';
import { StackError } from '../../../../infra/stack-error.js';
import { CliError, EXIT } from '../cli-error.js';
import type { Command, CommandIo } from '../command.js';

/** The checkout the stack's default `.stack/` directory belongs to. */
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

const ACTIONS = ['up', 'down', 'status'] as const;

/** `toolgate stack up|down|status`. */
export const stackCommand: Command = {
  name: 'stack',
  summary: 'Bring the local stack up, stop what it started, or show each part (up|down|status).',
  usage: 'toolgate stack up|down|status',
  details: [
    'up: reuse every component that answers, start what is missing, wait until each answers,',
    '    create the declared topics. Idempotent.',
    'down: stop exactly the processes up started (pid files under .stack/run, or',
    '    TOOLGATE_STACK_DIR); components it did not start, or given by TOOLGATE_KAFKA_BROKERS,',
    '    TOOLGATE_SCHEMA_REGISTRY_URL, TOOLGATE_REDIS_URL, are left alone.',
    'status: one line per component; exit 0 when all are up, 3 when any is down.',
    'Failures print one line naming the component, the reason and the log (exit 3; 2 for bad',
    'TOOLGATE_STACK_* settings).',
  ],
  options: {},
  async run({ positionals, io }) {
    const [action, ...rest] = positionals;
    if (!ACTIONS.includes(action as (typeof ACTIONS)[number]) || rest.length > 0)
      throw new CliError('name one action: up, down or status', EXIT.usage);
    try {
      const config = loadStackConfig(io.env, REPO_ROOT);
      if (action === 'status') return await status(config, io);
      const reporter = { line: (text: string) => void io.stdout.write(`stack: ${text}\n`) };
      await (action === 'up' ? stackUp(config, reporter) : stackDown(config, reporter));
      return EXIT.ok;
    } catch (error) {
      if (!(error instanceof StackError)) throw error;
      const exitCode = error.component === 'config' ? EXIT.usage : EXIT.unavailable;
      throw new CliError(error.oneLine(), exitCode, { cause: error });
    }
  },
};

async function status(config: ReturnType<typeof loadStackConfig>, io: CommandIo): Promise<number> {
  const rows = await stackStatus(config);
  for (const r of rows) {
    io.stdout.write(
      `${r.component.padEnd(9)}${(r.up ? 'up' : 'down').padEnd(6)}${r.address.padEnd(42)} ${r.detail}\n`,
    );
  }
  return rows.every((r) => r.up) ? EXIT.ok : EXIT.unavailable;
}
