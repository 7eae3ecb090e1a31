/**
 * The full topic names and consumer groups of one gate installation, under its prefixes
 * (TOOLGATE_TOPIC_PREFIX, TOOLGATE_GROUP_PREFIX). Tests give each file its own prefixes.
 */
import { commandTopicName, observationsTopic, TOPIC_NAMES, type TopicShortName } from './topics.js';

/** Every topic of the gate by short name, plus the command topic of a tool. */
export type GateTopics = Readonly<Record<TopicShortName, string>> & {
  /** `<prefix>toolgate.commands.<tool>`. */
  command(tool: string): string;
  /** `<prefix>toolgate.observations.<tenant>`: the observations of one tenant's agents. */
  observationsOf(tenant: string): string;
};

/** The topic names under `prefix` (may be empty). */
export function gateTopics(prefix: string): GateTopics {
  const names = Object.fromEntries(
    Object.entries(TOPIC_NAMES).map(([short, name]) => [short, `${prefix}${name}`]),
  ) as Record<TopicShortName, string>;
  return Object.freeze({
    ...names,
    command: (tool: string) => `${prefix}${commandTopicName(tool)}`,
    observationsOf: (tenant: string) => `${prefix}${observationsTopic(tenant).name}`,
  });
}

/** The consumer group of a stage: `<prefix>toolgate.<stage>` (STYLE: one stage, one name). */
export function stageGroup(prefix: string, stage: string): string {
  return `${prefix}toolgate.${stage}`;
}
