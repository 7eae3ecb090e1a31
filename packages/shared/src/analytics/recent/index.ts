export * from './recent-audit-events.js';
