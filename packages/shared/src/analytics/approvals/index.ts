export * from './approval-health.js';
export * from './approval-ledger.js';
