export * from './cli-error.js';
export * from './command.js';
export * from './run-cli.js';
export * from './audit-stats.js';
export type { AuditInclude } from './tally-audit.js';
