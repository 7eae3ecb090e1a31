export * from './authorize-proposal.js';
export * from './build-command.js';
export * from './evaluate.js';
export * from './evaluation-line.js';
export * from './plan-confirmation.js';
export * from './validate-proposal.js';
export * from './validated.js';
export * from './create-gate.js';
