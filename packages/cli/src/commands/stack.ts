/**
 * `toolgate stack up|down|status|env`: the local stack (Kafka, schema registry, Redis), as
 * `npm run stack:*` runs it (infra/stack-driver.ts): `up` reuses what answers and starts what is
 * missing, `down` stops only what `up` started in this stack directory, `status` reports each part,
 * `env` prints the environment one principal of the stack runs with.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadStackConfig, type StackConfig } from '@toolgate/infra/stack-config';
import { stackDown, stackStatus, stackUp } from '@toolgate/infra/stack-driver';
import { exportLines, stackEnv, stackRoles } from '@toolgate/infra/stack-env';
import { StackError } from '@toolgate/infra/stack-error';
import { CliError, EXIT } from '../cli-error.js';
import type { Command, CommandIo, OptionValues } from '../command.js';

/** The checkout the stack's default `.stack/` directory belongs to. */
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

const ACTIONS = ['up', 'down', 'status', 'env'] as const;

type Action = (typeof ACTIONS)[number];

/** `toolgate stack up|down|status|env`. */
export const stackCommand: Command = {
  name: 'stack',
  summary: "Bring the local stack up or down, show it, or print a principal's environment.",
  usage: 'toolgate stack up|down|status | toolgate stack env <principal>|--list',
  details: [
    'up: reuse every component that answers, start what is missing, wait until each answers,',
    '    create the declared topics, users and ACLs. Idempotent.',
    'down: stop exactly the processes up started (pid files under .stack/run, or',
    '    TOOLGATE_STACK_DIR); components it did not start, or given by TOOLGATE_KAFKA_BROKERS,',
    '    TOOLGATE_SCHEMA_REGISTRY_URL, TOOLGATE_REDIS_URL, are left alone.',
    'status: one line per component; exit 0 when all are up, 3 when any is down.',
    'env <principal>: export TOOLGATE_…=… lines for a shell, to run as that principal of the',
    '    stack: its Kafka identity (the password as a file), the registry, its Redis user and the',
    '    keys its role holds, no others (eval "$(npx toolgate stack env toolgate-validate)").',
    '    They hold secrets: print them only where you would keep the secrets.',
    'env --list: every principal of the stack, with its role.',
    'Failures print one line naming the component, the reason and the log (exit 3; 2 for bad',
    'TOOLGATE_STACK_* settings or an unknown principal).',
  ],
  options: {
    list: { type: 'boolean', description: 'env: list the principals of the stack and their roles' },
  },
  async run({ values, positionals, io }) {
    const action = actionOf(positionals, values);
    try {
      const config = loadStackConfig(io.env, REPO_ROOT);
      if (action === 'env') return printEnv(config, positionals[1], io);
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

function actionOf(positionals: readonly string[], values: OptionValues): Action {
  const [action, ...rest] = positionals;
  if (!ACTIONS.includes(action as Action))
    throw new CliError('name one action: up, down, status or env', EXIT.usage);
  const list = values['list'] === true;
  if (action !== 'env' && (rest.length > 0 || list))
    throw new CliError(`stack ${action} takes no ${list ? '--list' : 'arguments'}`, EXIT.usage);
  if (action === 'env' && rest.length !== (list ? 0 : 1))
    throw new CliError('stack env: name one principal, or --list', EXIT.usage);
  return action as Action;
}

function printEnv(config: StackConfig, principal: string | undefined, io: CommandIo): number {
  if (principal === undefined) {
    const roles = stackRoles();
    const width = Math.max(...roles.map((r) => r.principal.length));
    for (const r of roles) io.stdout.write(`${r.principal.padEnd(width)}  ${r.role}\n`);
    return EXIT.ok;
  }
  const env = stackEnv(config, principal);
  if (env === undefined)
    throw new CliError(
      `stack env: the stack has no principal ${JSON.stringify(principal)}; toolgate stack env --list names them`,
      EXIT.usage,
    );
  io.stdout.write(`${exportLines(env)}\n`);
  return EXIT.ok;
}

async function status(config: StackConfig, io: CommandIo): Promise<number> {
  const rows = await stackStatus(config);
  for (const r of rows) {
    io.stdout.write(
      `${r.component.padEnd(9)}${(r.up ? 'up' : 'down').padEnd(6)}${r.address.padEnd(42)} ${r.detail}\n`,
    );
  }
  return rows.every((r) => r.up) ? EXIT.ok : EXIT.unavailable;
}
