export * from './fault.js';
export * from './topics.js';
export * from './adapter-logger.js';
export * from './kafka-fault.js';
export * from './record-headers.js';
export * from './classify-bytes.js';
export * from './retry-backoff.js';
export * from './bus.js';
