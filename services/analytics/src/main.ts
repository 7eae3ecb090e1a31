/** The analytics service as its own process: `toolgate-analytics` (TOOLGATE_* variables). */
import { isConfigurationError } from '@toolgate/platform';
import { superviseAnalytics } from './supervise-analytics.js';

try {
  await superviseAnalytics({ env: process.env });
} catch (error) {
  if (!isConfigurationError(error)) throw error;
  process.stderr.write(`toolgate: ${error.problems.map((p) => `  - ${p}\n`).join('')}`);
  process.exitCode = 2;
}
