export * from './console-config.js';
export * from './service.js';
export * from './supervise-console.js';
