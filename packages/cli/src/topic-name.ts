/** The topics `toolgate tail` accepts, by the short names an operator types. */
import {
  agentGroupPrefix,
  analyticsGroupPrefix,
  COMMAND_TOPIC_PREFIX,
  consoleGroupPrefix,
  TOPIC_NAMES,
  type TopicShortName,
} from '@toolgate/platform';
import { CliError, EXIT } from './cli-error.js';

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The short name an operator types (the catalogue name without `toolgate.`, e.g. `refusal-stats`)
 * of each fixed topic. Observations are per tenant (`observations.<tenant>`): the plain name is no
 * topic to read.
 */
const SHORT_NAMES: ReadonlyMap<string, TopicShortName> = new Map(
  (Object.entries(TOPIC_NAMES) as [TopicShortName, string][])
    .filter(([short]) => short !== 'observations')
    .map(([short, name]) => [name.slice('toolgate.'.length), short]),
);

/** Topics analytics reads or writes: read under its consumer groups. */
const ANALYTICS_TOPICS: readonly TopicShortName[] = [
  'audit',
  'refusalStats',
  'alerts',
  'windowState',
];

/** A topic of the catalogue, by what names it. */
type CatalogueTopic =
  | { readonly kind: 'fixed'; readonly short: TopicShortName }
  | { readonly kind: 'command'; readonly tool: string }
  | { readonly kind: 'observations'; readonly tenant: string };

/** The installation's prefixes (TOOLGATE_TOPIC_PREFIX, TOOLGATE_GROUP_PREFIX). */
export interface Prefixes {
  readonly topicPrefix: string;
  readonly groupPrefix: string;
}

/**
 * The full topic name of `name` under `prefix`: a short name (`audit`, `commands.search`,
 * `observations.acme`), a catalogue name (`toolgate.audit`) or the full name itself
 * (`<prefix>toolgate.audit`).
 *
 * @throws CliError (usage) listing the short names, for a name outside the topic catalogue.
 */
export function resolveTopic(name: string, prefix: string): string {
  const topic = parseTopic(name, prefix);
  switch (topic.kind) {
    case 'fixed':
      return `${prefix}${TOPIC_NAMES[topic.short]}`;
    case 'command':
      return `${prefix}${COMMAND_TOPIC_PREFIX}${topic.tool}`;
    case 'observations':
      return `${prefix}${TOPIC_NAMES.observations}.${topic.tenant}`;
  }
}

/**
 * The prefix of the throwaway consumer group that reads `name`: under the groups the ACL table
 * grants the topic's reader (analytics for `audit`, approval UIs for `confirmations`, the
 * tenant's agents for `observations.<tenant>`), so each can read as its own principal. Other
 * topics are read by the gate's stages and workers, whose groups are theirs alone: an
 * administrator reads those, under the plain group prefix.
 *
 * @throws CliError (usage) for a name outside the topic catalogue.
 */
export function readerGroupPrefix(name: string, prefixes: Prefixes): string {
  const topic = parseTopic(name, prefixes.topicPrefix);
  if (topic.kind === 'observations') return agentGroupPrefix(prefixes.groupPrefix, topic.tenant);
  if (topic.kind === 'fixed' && ANALYTICS_TOPICS.includes(topic.short))
    return `${analyticsGroupPrefix(prefixes.groupPrefix)}.`;
  if (topic.kind === 'fixed' && topic.short === 'confirmations')
    return `${consoleGroupPrefix(prefixes.groupPrefix)}.`;
  return prefixes.groupPrefix;
}

function parseTopic(name: string, prefix: string): CatalogueTopic {
  const bare = prefix !== '' && name.startsWith(prefix) ? name.slice(prefix.length) : name;
  const short = bare.startsWith('toolgate.') ? bare.slice('toolgate.'.length) : bare;
  const fixed = SHORT_NAMES.get(short);
  if (fixed !== undefined) return { kind: 'fixed', short: fixed };
  const tool = after(short, 'commands.');
  if (tool !== undefined && NAME.test(tool)) return { kind: 'command', tool };
  const tenant = after(short, 'observations.');
  if (tenant !== undefined && NAME.test(tenant)) return { kind: 'observations', tenant };
  const hint = short === 'observations' ? ' (observations are per tenant)' : '';
  throw new CliError(
    `unknown topic "${name}"${hint}: one of ${[...SHORT_NAMES.keys()].join(', ')}, commands.<tool>, observations.<tenant>`,
    EXIT.usage,
  );
}

function after(text: string, head: string): string | undefined {
  return text.startsWith(head) ? text.slice(head.length) : undefined;
}
