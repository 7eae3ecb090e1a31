import { sha256Hex } from '../idempotency/canonical-sha256.js';

/**
 * What the run and rate counters count a call by: SHA-256 (hex) over the JSON array
 * `[proposalId, idempotencyKey, commandDigest]`. The same envelope delivered again is the same
 * call and is counted once; a proposalId sent again with another call (another call id, request
 * id or arguments) is counted as the new call it is. The proposalId alone would let an agent that
 * reuses one for every call stay at one call per run, under every call ceiling.
 */
export function callCountToken(proposalId: string, key: string, digest: string): string {
  // For a flat array of strings JSON.stringify is injective and never throws on a lone surrogate.
  return sha256Hex(JSON.stringify([proposalId, key, digest]));
}
