/** Idempotency (DESIGN §5): keys, command digests, the decision over a stored record, retention. */
export * from './command-digest.js';
export * from './decide-idempotency.js';
export * from './idempotency-key.js';
export * from './idempotency-retention.js';
