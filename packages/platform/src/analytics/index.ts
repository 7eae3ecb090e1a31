export * from './top-labels.js';
export * from './analytics-metrics.js';
