export * from './catalogue.js';
export * from './decision.js';
export * from './tool-spec.js';
export * from './types.js';
