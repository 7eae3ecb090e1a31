/**
 * `toolgate keys …`: makes the gate's keys and derives the ones given to others. A tool's key
 * comes from execute's command key (TOOLGATE_COMMAND_KEY), the agents' public key from the stages'
 * observation key (TOOLGATE_OBSERVATION_KEY); both are read from the environment, never from the
 * command line (where the shell history and `ps` would keep them), and never printed.
 */
import { generateObservationKeys, generateSecretKey, type Env } from '@toolgate/platform';
import { deriveToolKey, observationKeyProblems, observationPublicKeyOf } from '@toolgate/shared';
import { CliError, EXIT } from '../cli-error.js';
import type { Command } from '../command.js';

const ACTIONS = ['tool', 'observation', 'observation-public', 'secret'] as const;

type Action = (typeof ACTIONS)[number];

const TOOL = /^[A-Za-z0-9_-]{1,64}$/;

/** The least a command key may hold, in bytes (UTF-8), as execute requires. */
const MIN_COMMAND_KEY_BYTES = 32;

/** `toolgate keys tool <name…>|observation|observation-public|secret`. */
export const keysCommand: Command = {
  name: 'keys',
  summary: "Make the gate's keys, or derive a tool's key or the observation public key.",
  usage: 'toolgate keys tool <name> [<name> …] | observation | observation-public | secret',
  details: [
    "tool <name…>: each tool's key, derived from TOOLGATE_COMMAND_KEY in the environment, as",
    '    <tool>:<key> comma-joined on one line: the TOOLGATE_TOOL_KEYS of a worker running them.',
    '    A worker holds the keys of its own tools only, never the command key.',
    "observation: a fresh Ed25519 pair, as TOOLGATE_OBSERVATION_KEY=… (the stages') and",
    "    TOOLGATE_OBSERVATION_PUBLIC_KEYS=… (the agents').",
    'observation-public: the public key of TOOLGATE_OBSERVATION_KEY in the environment.',
    'secret: a fresh random 32-byte key, for TOOLGATE_INTEGRITY_KEY or TOOLGATE_COMMAND_KEY.',
    'Keys given are read from the environment only and never printed. Exit 2 when one is missing',
    'or unusable.',
  ],
  options: {},
  run({ positionals, io }) {
    const [action, ...rest] = positionals;
    if (!ACTIONS.includes(action as Action))
      throw new CliError(`name one action: ${ACTIONS.join(', ')}`, EXIT.usage);
    io.stdout.write(`${keysOutput(action as Action, rest, io.env).join('\n')}\n`);
    return Promise.resolve(EXIT.ok);
  },
};

function keysOutput(action: Action, names: readonly string[], env: Env): readonly string[] {
  if (action !== 'tool' && names.length > 0)
    throw new CliError(`keys ${action} takes no names`, EXIT.usage);
  switch (action) {
    case 'tool':
      return [toolKeys(names, commandKeyOf(env))];
    case 'observation': {
      const pair = generateObservationKeys();
      return [
        `TOOLGATE_OBSERVATION_KEY=${pair.privateKey}`,
        `TOOLGATE_OBSERVATION_PUBLIC_KEYS=${pair.publicKey}`,
      ];
    }
    case 'observation-public':
      return [observationPublicKeyOf(observationKeyOf(env))];
    case 'secret':
      return [generateSecretKey()];
  }
}

/** `<tool>:<key>` of each of `names`, comma-joined (TOOLGATE_TOOL_KEYS). */
function toolKeys(names: readonly string[], commandKey: string): string {
  if (names.length === 0) throw new CliError('name at least one tool', EXIT.usage);
  const bad = names.filter((n) => !TOOL.test(n));
  if (bad.length > 0)
    throw new CliError(
      `not a tool name: ${bad.map((n) => JSON.stringify(n)).join(', ')} (1-64 of A-Z a-z 0-9 _ -)`,
      EXIT.usage,
    );
  return names.map((tool) => `${tool}:${deriveToolKey(commandKey, tool)}`).join(',');
}

function commandKeyOf(env: Env): string {
  const key = env['TOOLGATE_COMMAND_KEY'];
  if (key === undefined || key === '')
    throw new CliError("TOOLGATE_COMMAND_KEY is required: execute's command key", EXIT.usage);
  const bytes = Buffer.byteLength(key, 'utf8');
  if (bytes < MIN_COMMAND_KEY_BYTES)
    throw new CliError(
      `TOOLGATE_COMMAND_KEY is ${bytes} bytes; at least ${MIN_COMMAND_KEY_BYTES} are required`,
      EXIT.usage,
    );
  return key;
}

function observationKeyOf(env: Env): string {
  const key = env['TOOLGATE_OBSERVATION_KEY'];
  if (key === undefined || key === '')
    throw new CliError("TOOLGATE_OBSERVATION_KEY is required: the stages' signing key", EXIT.usage);
  const problems = observationKeyProblems(key);
  if (problems.length > 0)
    throw new CliError(`TOOLGATE_OBSERVATION_KEY: ${problems.join('; ')}`, EXIT.usage);
  return key;
}
