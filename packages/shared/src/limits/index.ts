/** Ceilings (DESIGN §7): defaults, validation, and the call-count checks of the limits rung. */
export * from './ceilings.js';
export * from './check-call-limits.js';
export * from './rate-second.js';
