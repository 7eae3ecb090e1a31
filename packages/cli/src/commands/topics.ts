/**
 * `toolgate topics create`: creates the deployment's topics the cluster lacks (the fixed ones,
 * one command topic per tool, one observations topic per tenant) as an administrator. The gate's
 * stages never create topics: they only check, at start, that they can see theirs.
 */
import { loadVariables } from '@toolgate/platform';
import { CliError, EXIT } from '../cli-error.js';
import type { Command } from '../command.js';
import { CONFIG_OPTION, deploymentFileOf, deploymentTopics } from '../deployment-scope.js';
import { adminCliError, cliBus, KAFKA_CLIENT_VARIABLES } from '../kafka-client.js';
import { loadDeployment } from '../load-deployment.js';

/** `toolgate topics create [--config <file>]`. */
export const topicsCommand: Command = {
  name: 'topics',
  summary: "Create the deployment's Kafka topics that do not exist yet.",
  usage: 'toolgate topics create [--config <file>]',
  details: [
    'Creates, under TOOLGATE_TOPIC_PREFIX, the fixed topics, toolgate.commands.<tool> for each',
    "of the deployment's tools and toolgate.observations.<tenant> for each of its tenants, with",
    "the catalogue's partitions and retention (docs/topics.md); existing topics are left as they",
    'are. Prints each topic it created, then how many were already there. Idempotent.',
    'Connects as the Kafka identity of TOOLGATE_KAFKA_* (SASL user, password or password file,',
    "TLS), which must be an administrator's: the stages never create topics.",
    'Exit codes: 2 for a bad deployment or variable, 3 when Kafka cannot be reached, 4 when',
    'Kafka refuses the identity.',
  ],
  options: { ...CONFIG_OPTION },
  async run({ values, positionals, io }) {
    if (positionals.length !== 1 || positionals[0] !== 'create')
      throw new CliError('the only subcommand is: topics create', EXIT.usage);
    const file = deploymentFileOf(values, io.env);
    const config = loadVariables(io.env, KAFKA_CLIENT_VARIABLES);
    const deployment = await loadDeployment(file);
    const specs = deploymentTopics(deployment, config.topicPrefix);
    const bus = cliBus(config);
    try {
      const created = await bus.ensureTopics(specs);
      for (const name of created) io.stdout.write(`created ${name}\n`);
      io.stdout.write(
        `created ${created.length} topics, ${specs.length - created.length} were already there\n`,
      );
      return EXIT.ok;
    } catch (error) {
      throw adminCliError(error, 'topics create', config);
    } finally {
      await bus.close().catch(() => undefined);
    }
  },
};
