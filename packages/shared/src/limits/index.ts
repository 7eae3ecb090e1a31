/** Ceilings (DESIGN §7): defaults, validation, and the call-count checks of the limits rung. */
export * from './call-count-token.js';
export * from './ceilings.js';
export * from './check-call-limits.js';
