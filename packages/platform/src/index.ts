export * from './fault.js';
export * from './topics.js';
