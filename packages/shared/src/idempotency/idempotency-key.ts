import canonicalize from 'canonicalize';
import { sha256Hex } from './canonical-sha256.js';

/** Matches a lone UTF-16 surrogate; in `u` mode a well-formed pair is one code point and no match. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Hex characters of the tenant hash in a Redis hash tag: 64 bits spread tenants over all 16 384 slots. */
const TENANT_TAG_HEX = 16;

/** What an idempotency key is derived from: who made which model call (DESIGN §5, §9). */
export interface IdempotencyKeyParts {
  /** The verified tenant. */
  readonly tenant: string;
  /** The verified user (the session's `sub`): a stored outcome is replayed only to them. */
  readonly subject: string;
  /** The agent's request id. */
  readonly requestId: string;
  /** The model call's id, from the provider's payload. */
  readonly callId: string;
  /**
   * Set only for a key scoped to one submission rather than to the call (a read, see
   * `SIDE_EFFECT_DEFAULTS`): redeliveries of that proposal share the key, a new proposal of the
   * same call does not.
   */
  readonly proposalId?: string;
}

/**
 * The idempotency key of one model call (DESIGN §5, §9): SHA-256 (lowercase hex) over the RFC 8785
 * canonical JSON of `[tenant, subject, requestId, callId]`, or of
 * `[tenant, subject, requestId, callId, proposalId]` for a key scoped to one proposal. Encoding the
 * parts as a JSON array keeps them apart, so `("a", "bc")` and `("ab", "c")` never share a key, and
 * a four-part key never equals a five-part one.
 *
 * The subject is part of the key: two users of one tenant who reuse a request id and a call id
 * (MCP call ids are often 1, 2, 3) have two keys, so neither is ever replayed the other's outcome.
 *
 * Total: `requestId` and `callId` come from the agent's envelope, where JSON may legally carry a
 * lone surrogate (`"\ud800"`) that the canonicalize package refuses. For an array of strings,
 * RFC 8785 output is exactly `JSON.stringify`, which escapes a lone surrogate as `\ud800` and stays
 * injective, so that form is used for such input instead of throwing inside a stage handler.
 */
export function idempotencyKey(of: IdempotencyKeyParts): string {
  const parts = [of.tenant, of.subject, of.requestId, of.callId];
  if (of.proposalId !== undefined) parts.push(of.proposalId);
  const wellFormed = parts.every((part) => !LONE_SURROGATE.test(part));
  const text = wellFormed ? canonicalize(parts) : JSON.stringify(parts);
  return sha256Hex(text ?? JSON.stringify(parts));
}

/**
 * The Redis key holding an idempotency record: `${prefix}idem:{${tenantHash}}:${key}`, where
 * `tenantHash` is the first 16 hex characters of SHA-256(tenant). The braces are a Redis Cluster
 * hash tag, so one tenant's records share a slot and tenants spread over the cluster (DESIGN §10).
 * Hashing the tenant means a tenant name containing `{` or `}` cannot move or break the tag; two
 * tenants whose short hashes collide only share a slot, never a key, because `key` already
 * includes the tenant.
 *
 * @param prefix - The deployment's key prefix (e.g. `toolgate:`); may be empty.
 * @param tenant - The verified tenant.
 * @param key - An {@link idempotencyKey}.
 * @throws RangeError when `prefix` contains `{` or `}`: Redis would take the first braces as the
 *   hash tag and every tenant would land in one slot. A configuration fault, raised on first use.
 */
export function idempotencyRedisKey(prefix: string, tenant: string, key: string): string {
  if (/[{}]/.test(prefix)) {
    throw new RangeError(`Redis key prefix ${JSON.stringify(prefix)} must not contain { or }`);
  }
  return `${prefix}idem:{${tenantHashTag(tenant)}}:${key}`;
}

/**
 * The tenant part of a Redis Cluster hash tag: the first 16 hex characters of SHA-256(tenant),
 * without the braces. Every tenant-scoped Redis key (idempotency records, confirmations, counters,
 * objects) puts it between braces, so one tenant's keys share a slot and a tenant name can never
 * move or break the tag.
 */
export function tenantHashTag(tenant: string): string {
  return sha256Hex(tenant).slice(0, TENANT_TAG_HEX);
}
