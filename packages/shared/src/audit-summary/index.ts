export * from './summarize-audit.js';
export * from './is-refusal.js';
