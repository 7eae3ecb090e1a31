/**
 * The demo's deployment once its script has run and the system stays up for exploring: the same
 * as the demo's, with the default 30-minute confirmation TTL instead of the script's 10 s, so
 * that a person has time to decide a waiting call in the console.
 *
 *   npx toolgate start confirm --config examples/billing/demo/toolgate.explore.config.ts
 */
import { DEFAULT_CONFIRMATION_TTL_SECONDS, defineDeployment } from '@toolgate/shared';
import demo from './toolgate.demo.config.js';

export default defineDeployment({
  ...demo,
  confirmationTtlSeconds: DEFAULT_CONFIRMATION_TTL_SECONDS,
});
