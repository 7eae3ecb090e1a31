/**
 * What `toolgate acls` and `toolgate topics` draw from a deployment: its tools, tenants and
 * workers under the installation's prefixes, as the ACL table's scope and as the topic list.
 */
import { topicsFor, type AclScope, type Env, type TopicSpec } from '@toolgate/platform';
import { deploymentTenantProblems, type Deployment } from '@toolgate/shared';
import { CliError, EXIT } from './cli-error.js';
import { optionalString, type OptionValues } from './command.js';
import type { Prefixes } from './topic-name.js';

/** The `--config` option of the commands that read a deployment. */
export const CONFIG_OPTION = {
  config: { type: 'string', description: 'the deployment file (default TOOLGATE_CONFIG)' },
} as const;

/**
 * The deployment file named by `--config`, else by TOOLGATE_CONFIG.
 *
 * @throws CliError (usage) when neither names one.
 */
export function deploymentFileOf(values: OptionValues, env: Env): string {
  const file = optionalString(values, 'config') ?? env['TOOLGATE_CONFIG'];
  if (file === undefined || file === '')
    throw new CliError('--config (or TOOLGATE_CONFIG) is required', EXIT.usage);
  return file;
}

/**
 * The ACL table's scope of `deployment` under `prefixes`: its tools, its tenants and its workers
 * (none when it lists none).
 *
 * @throws CliError (usage) naming every problem with the deployment's tenants and workers.
 */
export function aclScopeOf(deployment: Deployment, prefixes: Prefixes): AclScope {
  checkTenants(deployment);
  return {
    topicPrefix: prefixes.topicPrefix,
    groupPrefix: prefixes.groupPrefix,
    tools: deployment.tools.map((t) => t.name),
    tenants: deployment.tenants,
    workers: deployment.workers ?? [],
  };
}

/**
 * Every topic of `deployment` under `topicPrefix`: the fixed ones, one command topic per tool,
 * one observations topic per tenant.
 *
 * @throws CliError (usage) naming every problem with the deployment's tenants and workers.
 */
export function deploymentTopics(deployment: Deployment, topicPrefix: string): TopicSpec[] {
  checkTenants(deployment);
  const specs = topicsFor(
    deployment.tools.map((t) => t.name),
    deployment.tenants,
  );
  return specs.map((spec) => ({ ...spec, name: `${topicPrefix}${spec.name}` }));
}

function checkTenants(deployment: Deployment): void {
  const problems = deploymentTenantProblems(deployment);
  if (problems.length > 0) throw new CliError(problems.join('; '), EXIT.usage);
}
