/** The topics `toolgate tail` accepts, by the short names an operator types. */
import { COMMAND_TOPIC_PREFIX, TOPIC_NAMES, type TopicShortName } from '@toolgate/platform';
import { CliError, EXIT } from './cli-error.js';

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The full topic name of `name` under `prefix`: a short name (`audit`, `observations`,
 * `commands.search`), a catalogue name (`toolgate.audit`) or the full name itself
 * (`<prefix>toolgate.audit`).
 *
 * @throws CliError (usage) listing the short names, for a name outside the topic catalogue.
 */
export function resolveTopic(name: string, prefix: string): string {
  const bare = prefix !== '' && name.startsWith(prefix) ? name.slice(prefix.length) : name;
  const short = bare.startsWith('toolgate.') ? bare.slice('toolgate.'.length) : bare;
  if (Object.hasOwn(TOPIC_NAMES, short)) return `${prefix}${TOPIC_NAMES[short as TopicShortName]}`;
  const tool = short.startsWith('commands.') ? short.slice('commands.'.length) : undefined;
  if (tool !== undefined && TOOL_NAME.test(tool)) return `${prefix}${COMMAND_TOPIC_PREFIX}${tool}`;
  throw new CliError(
    `unknown topic "${name}": one of ${Object.keys(TOPIC_NAMES).join(', ')}, commands.<tool>`,
    EXIT.usage,
  );
}
