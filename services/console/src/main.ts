/**
 * The console as its own process: `toolgate-console` (TOOLGATE_CONSOLE_*, TOOLGATE_APPROVAL_URL,
 * TOOLGATE_ANALYTICS_URL; the deployment from `--config` or TOOLGATE_CONFIG, for its session keys).
 */
import { parseArgs } from 'node:util';
import { importDeployment, isConfigurationError } from '@toolgate/platform';
import { superviseConsole } from './supervise-console.js';

const { values } = parseArgs({ options: { config: { type: 'string' } } });
const file = values.config ?? process.env['TOOLGATE_CONFIG'] ?? '';
try {
  if (file === '') throw new Error('--config (or TOOLGATE_CONFIG) is required');
  await superviseConsole({ env: process.env, deployment: await importDeployment(file) });
} catch (error) {
  const problems = isConfigurationError(error) ? error.problems : [(error as Error).message];
  process.stderr.write(`toolgate-console:\n${problems.map((p) => `  - ${p}\n`).join('')}`);
  process.exitCode = 2;
}
