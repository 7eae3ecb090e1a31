/** The CLI's view of a deployment file: a ConfigError becomes a usage error (exit 2). */
import type { Writable } from 'node:stream';
import { createGateWithSessionKeys, importDeployment, type KeySourceLog } from '@toolgate/platform';
import { ConfigError, isConfigurationError, type Deployment, type Gate } from '@toolgate/shared';
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

/**
 * The ladder's facts for `deployment`, with its JWKS file or URL opened; what the key source logs
 * goes to `stderr` (warnings only). A bad deployment is a usage error (exit 2).
 */
export function gateOf(deployment: Deployment, stderr: Writable): Gate {
  const log: KeySourceLog = {
    info: () => undefined,
    warn: (fields: object, message?: string) => {
      stderr.write(`toolgate: ${message ?? ''} ${JSON.stringify(fields)}\n`);
    },
  };
  try {
    return createGateWithSessionKeys(deployment, {}, log);
  } catch (error) {
    if (isConfigurationError(error))
      throw new CliError(error.problems.join('; '), EXIT.usage, { cause: error });
    throw error;
  }
}
