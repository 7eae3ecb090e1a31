/**
 * Dispatches `toolgate <command> [options]`: strict option parsing, `--help` on every command,
 * and one exit-code policy (see cli-error.ts). Exported so tests can run the CLI in-process.
 */
import { parseArgs } from 'node:util';
import { CliError, EXIT } from './cli-error.js';
import type { Command, CommandIo } from './command.js';
import { aclsCommand } from './commands/acls.js';
import { alertsCommand } from './commands/alerts.js';
import { approveCommand, rejectCommand } from './commands/decide.js';
import { evaluateCommand } from './commands/evaluate.js';
import { keysCommand } from './commands/keys.js';
import { pendingCommand } from './commands/pending.js';
import { stackCommand } from './commands/stack.js';
import { startCommand } from './commands/start.js';
import { statsCommand } from './commands/stats.js';
import { tailCommand } from './commands/tail.js';
import { tokenCommand } from './commands/token.js';
import { toolsCommand } from './commands/tools.js';
import { topicsCommand } from './commands/topics.js';

/** Every command, in the order `toolgate --help` lists them. */
export const COMMANDS: readonly Command[] = [
  stackCommand,
  topicsCommand,
  aclsCommand,
  keysCommand,
  startCommand,
  evaluateCommand,
  toolsCommand,
  pendingCommand,
  approveCommand,
  rejectCommand,
  tailCommand,
  statsCommand,
  alertsCommand,
  tokenCommand,
];

/** Runs one command line; resolves to the exit code. Never throws. */
export async function runCli(
  argv: readonly string[],
  io: CommandIo,
  commands = COMMANDS,
): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(overview(commands));
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = commands.find((c) => c.name === name);
  if (command === undefined) {
    io.stderr.write(`toolgate: unknown command "${name}". Run toolgate --help for the list.\n`);
    return EXIT.usage;
  }
  try {
    const parsed = parse(command, rest);
    if (parsed.values['help'] === true) {
      io.stdout.write(help(command));
      return EXIT.ok;
    }
    return await command.run({ values: parsed.values, positionals: parsed.positionals, io });
  } catch (error) {
    return report(error, command, io);
  }
}

function parse(command: Command, args: readonly string[]) {
  try {
    return parseArgs({
      args: [...args],
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (cause) {
    throw new CliError(`${(cause as Error).message}\nusage: ${command.usage}`, EXIT.usage, {
      cause,
    });
  }
}

function report(error: unknown, command: Command, io: CommandIo): number {
  if (error instanceof CliError) {
    io.stderr.write(`toolgate ${command.name}: ${error.message}\n`);
    return error.exitCode;
  }
  const problems = (error as { problems?: unknown }).problems;
  if (Array.isArray(problems)) {
    // Configuration errors from the core list every problem at once.
    io.stderr.write(
      `toolgate ${command.name}: ${(error as Error).message}\n${problems.map((p) => `  - ${String(p)}\n`).join('')}`,
    );
    return EXIT.usage;
  }
  io.stderr.write(
    `toolgate ${command.name}: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  return EXIT.failed;
}

function overview(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `usage: toolgate <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nRun toolgate <command> --help for a command's options.\nExit codes: 0 ok, 1 failed, 2 usage or configuration error, 3 infrastructure unavailable,\n4 session refused or not allowed, 5 not found.\n`;
}

function help(command: Command): string {
  const options = Object.entries(command.options).map(
    ([name, o]) => `  --${name}${o.type === 'string' ? ' <value>' : ''}  ${o.description}`,
  );
  const details = command.details === undefined ? '' : `\n${command.details.join('\n')}\n`;
  return `usage: ${command.usage}\n\n${command.summary}\n${details}\noptions:\n${[...options, '  --help  show this help'].join('\n')}\n`;
}
