/**
 * The process configuration (`config/`): `TOOLGATE_*` environment variables, validated with ajv
 * (defaults, integer coercion, every problem at once), returned typed and frozen. The environment
 * is an argument: only `main.ts` passes `process.env`. `docs/configuration.md` is rendered from
 * the variable tables ({@link renderConfigurationDoc}) and a test keeps the two in sync.
 *
 * By concern: how a variable is declared (`variable-spec.ts`); where the infrastructure is
 * (`connection-variables.ts`, the Kafka identity in `kafka-security.ts`); the keys
 * (`key-variables.ts`); HTTP (`http-variables.ts`, the approval API's in `approval-variables.ts`); the process (`process-variables.ts`); the
 * stage loop's fetch (`fetch-settings.ts`); all of them in order (`variables.ts`); loading
 * (`load-config.ts`, `validate-variables.ts`); and the page (`configuration-doc.ts`).
 */
export * from './config/variable-spec.js';
export { isHostPort } from './config/connection-variables.js';
export * from './config/http-variables.js';
export { DEFAULT_APPROVAL_PORT } from './config/approval-variables.js';
export { EXECUTE_INPUTS, STOP_SHARE, type ExecuteInputs } from './config/process-variables.js';
export * from './config/fetch-settings.js';
export * from './config/analytics-variables.js';
export * from './config/variables.js';
export * from './config/load-config.js';
export { renderConfigurationDoc } from './config/configuration-doc.js';
