export * from './summarize-audit.js';
