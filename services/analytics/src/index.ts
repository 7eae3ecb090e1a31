export * from './service.js';
export * from './supervise-analytics.js';
