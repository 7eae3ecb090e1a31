/** The CLI's view of a deployment file: a ConfigError becomes a usage error (exit 2). */
import { importDeployment } from '@toolgate/platform';
import { ConfigError, type Deployment } from '@toolgate/shared';
import { CliError, EXIT } from './cli-error.js';

/** Imports `path` (relative to the working directory) and returns its default export. */
export async function loadDeployment(path: string): Promise<Deployment> {
  try {
    return await importDeployment(path);
  } catch (error) {
    if (error instanceof ConfigError)
      throw new CliError(error.problems.join('; '), EXIT.usage, { cause: error });
    throw error;
  }
}
