/**
 * The body of a stage process's main: load the deployment named by TOOLGATE_CONFIG, supervise the
 * stages until a signal, and turn bad configuration into one message and exit code 2.
 */
import { ConfigError, isConfigurationError } from '@toolgate/shared';
import type { Env } from './config.js';
import { importDeployment } from './import-deployment.js';
import { superviseStages, type StageModule } from './supervise-stages.js';

/**
 * Runs `modules` in this process; `deploymentFile` defaults to TOOLGATE_CONFIG. Bad configuration
 * (the environment, the deployment file, its tools, policies, session keys or ceilings) is written to
 * standard error, every problem on a line of its own, and sets exit code 2. Any other start-up
 * failure (Kafka, the registry or Redis unreachable, an HTTP port in use) was logged with its
 * cause by the supervisor and is rethrown, which ends the process with exit code 1.
 */
export async function runStagesMain(
  env: Env,
  modules: readonly StageModule[],
  deploymentFile = env['TOOLGATE_CONFIG'],
): Promise<void> {
  try {
    if (deploymentFile === undefined || deploymentFile === '') {
      throw new ConfigError('configuration', [
        'TOOLGATE_CONFIG (or --config) must name the deployment file',
      ]);
    }
    await superviseStages({ env, deployment: await importDeployment(deploymentFile), modules });
  } catch (error) {
    if (!isConfigurationError(error)) throw error;
    process.stderr.write(
      `toolgate: ${error.message.split(':')[0]}:\n${error.problems.map((p) => `  - ${p}\n`).join('')}`,
    );
    process.exitCode = 2;
  }
}

/** Such a start-up failure exits 2 (the shared core's test, re-exported for the CLI). */
export { isConfigurationError };
