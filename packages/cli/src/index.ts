export * from './cli-error.js';
export * from './command.js';
export * from './run-cli.js';
