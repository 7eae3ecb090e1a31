/**
 * The analytics service as its own process: `toolgate-analytics` (TOOLGATE_* variables; with
 * TOOLGATE_CONFIG, the deployment's alert rules and its session keys for the HTTP API).
 */
import { importDeployment, isConfigurationError } from '@toolgate/platform';
import { superviseAnalytics } from './supervise-analytics.js';

try {
  const file = process.env['TOOLGATE_CONFIG'];
  const deployment = file === undefined || file === '' ? undefined : await importDeployment(file);
  await superviseAnalytics({
    env: process.env,
    ...(deployment === undefined ? {} : { deployment }),
  });
} catch (error) {
  if (!isConfigurationError(error)) throw error;
  process.stderr.write(`toolgate: ${error.problems.map((p) => `  - ${p}\n`).join('')}`);
  process.exitCode = 2;
}
