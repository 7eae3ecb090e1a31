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

/**
 * On `proposals`: the tenant whose observations topic should carry a refusal when the session
 * cannot say (missing, forged, expired, or of a tenant the deployment does not serve). A claim,
 * never trusted for anything else: such a refusal carries nothing but the refusal. The agent
 * client sets it to its own tenant.
 */
export const REPLY_TENANT_HEADER = 'toolgate-reply-tenant';
