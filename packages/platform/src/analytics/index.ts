export * from './top-labels.js';
export * from './analytics-metrics.js';
export * from './analytics-view.js';
export * from './analytics-query.js';
export * from './analytics-routes.js';
export * from './analytics-hub.js';
