/**
 * The Redis store adapter: one connection ({@link connectRedis}) and one narrow interface per
 * concern, so that each component is handed only what it uses (a tool worker gets the ledger and
 * its objects, not the gate's records).
 */
export * from './redis-connection.js';
export { redisTarget, type RedisClient, type RedisTarget } from './redis-client.js';
export { STORE_FAULTS } from './store-faults.js';
export * from './store-keys.js';
export { MAX_BATCH, type ExpiredClaim } from './expired-claims.js';
export {
  MIN_RECORD_TTL_SECONDS,
  createIdempotencyRecords,
  type IdempotencyRecords,
  type Settlement,
} from './idempotency-records.js';
export * from './pending-commands.js';
export * from './confirmations.js';
export * from './decided-history.js';
export * from './call-counters.js';
export * from './gate-store.js';
export * from './ledger.js';
export * from './redis-object-store.js';
