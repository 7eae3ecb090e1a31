export * from './alert-id.js';
export * from './alert-rules.js';
export * from './alerts-doc.js';
export * from './create-alert-engine.js';
export { forgeryOf, INVALID_SESSION_CODES } from './window-rules.js';
