/**
 * `toolgate acls print|apply`: the deployment's Kafka ACL table (packages/platform/src/acls.ts),
 * printed as `kafka-acls.sh` commands for an operator, or applied to the cluster as an
 * administrator: the missing bindings created, optionally the stale ones of its principals
 * deleted.
 */
import { aclTable, loadVariables } from '@toolgate/platform';
import { aclScript, describeBinding, planAcls } from '../acl-plan.js';
import { CliError, EXIT } from '../cli-error.js';
import type { Command, CommandIo } from '../command.js';
import { aclScopeOf, CONFIG_OPTION, deploymentFileOf } from '../deployment-scope.js';
import { adminCliError, cliBus, KAFKA_CLIENT_VARIABLES, prefixesOf } from '../kafka-client.js';
import { loadDeployment } from '../load-deployment.js';

const ACTIONS = ['print', 'apply'] as const;

/** `toolgate acls print|apply [--config <file>] [--prune]`. */
export const aclsCommand: Command = {
  name: 'acls',
  summary:
    "Print the deployment's Kafka ACLs as kafka-acls.sh commands, or apply them (print|apply).",
  usage: 'toolgate acls print|apply [--config <file>] [--prune]',
  details: [
    'The table: every stage, tenant agent, tool worker, analytics and approval UI principal, with',
    "what each may read and write, for the deployment's tools, tenants and workers under",
    'TOOLGATE_TOPIC_PREFIX and TOOLGATE_GROUP_PREFIX.',
    'print: a shell script, per binding a "# <principal>: <why>" comment and its kafka-acls.sh',
    '    --add command (BOOTSTRAP and ADMIN_CONFIG name a broker and the client properties of an',
    '    administrator). Connects to nothing.',
    'apply: connects as the Kafka identity of TOOLGATE_KAFKA_* (SASL user, password or password',
    "    file, TLS), which must be an administrator's (it describes and creates ACLs), creates",
    '    the bindings the cluster lacks and says how many were already there. Idempotent.',
    '    --prune also deletes the ALLOW bindings of those principals, on resources under the',
    '    prefixes, that the table does not contain, and lists them.',
    'Exit codes: 2 for a bad deployment or variable, 3 when Kafka cannot be reached, 4 when',
    'Kafka refuses the identity (not an administrator, wrong password).',
  ],
  options: {
    ...CONFIG_OPTION,
    prune: {
      type: 'boolean',
      description: "apply: also delete bindings of the table's principals it does not contain",
    },
  },
  async run({ values, positionals, io }) {
    const [action, ...rest] = positionals;
    if (!ACTIONS.includes(action as (typeof ACTIONS)[number]) || rest.length > 0)
      throw new CliError('name one action: print or apply', EXIT.usage);
    if (action === 'print' && values['prune'] === true)
      throw new CliError('--prune goes with apply', EXIT.usage);
    const file = deploymentFileOf(values, io.env);
    if (action === 'print') {
      const deployment = await loadDeployment(file);
      const scope = aclScopeOf(deployment, prefixesOf(io.env));
      io.stdout.write(aclScript(aclTable(scope), { deployment: deployment.name, scope }));
      return EXIT.ok;
    }
    return apply(file, { prune: values['prune'] === true }, io);
  },
};

async function apply(file: string, options: { readonly prune: boolean }, io: CommandIo) {
  const config = loadVariables(io.env, KAFKA_CLIENT_VARIABLES);
  const scope = aclScopeOf(await loadDeployment(file), config);
  const table = aclTable(scope);
  const bus = cliBus(config);
  try {
    const plan = planAcls(table, await bus.describeAcls(), scope);
    await bus.createAcls(plan.missing);
    for (const row of plan.missing) io.stdout.write(`created ${describeBinding(row)}\n`);
    if (options.prune) {
      await bus.deleteAcls(plan.extra);
      for (const b of plan.extra) io.stdout.write(`deleted ${describeBinding(b)}\n`);
    }
    io.stdout.write(
      `created ${plan.missing.length} bindings, ${plan.present} were already there` +
        `${options.prune ? `; deleted ${plan.extra.length} the table does not contain` : ''}\n`,
    );
    return EXIT.ok;
  } catch (error) {
    throw adminCliError(error, 'acls apply', config);
  } finally {
    await bus.close().catch(() => undefined);
  }
}
