/** Kafka header names the gate reads and writes. Header names are part of the wire contract. */

/**
 * Carries the integrity tag ({@link integrityTag}) of a message on an internal topic
 * (`validated`, `authorized`, `cleared`): lowercase hex HMAC-SHA256, 64 characters.
 */
export const INTEGRITY_HEADER = 'toolgate-integrity';

/**
 * Carries the caller's compact session token (JWS) on `proposals`, and the approver's on
 * `approvals` (DESIGN §3). Never copied into any message the gate writes.
 */
export const SESSION_HEADER = 'toolgate-session';
