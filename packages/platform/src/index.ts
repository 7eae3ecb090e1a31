export * from './fault.js';
export * from './store.js';
export * from './store-keys.js';
export * from './redis-object-store.js';
export * from './config.js';
export * from './logger.js';
export * from './metrics.js';
export * from './http.js';
