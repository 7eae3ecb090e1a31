/**
 * Who a session token says its holder is, read WITHOUT checking its signature, audience or
 * expiry. The approvals consumer uses it for one thing: to find the confirmation that the very
 * message carrying the token took on an earlier delivery, so that it can finish it after the
 * token expired or the session keys rotated. The proof is the take, not the token: a
 * confirmation is taken by a message's token (its coordinates and a digest of its value and
 * session header) only after a delivery of that message verified its session, so only the bytes
 * that verified can find it again, even where offsets restart (a recreated topic, a mirror).
 */
import { decodeJwt } from 'jose';
import { principalFromClaims } from './principal-from-claims.js';
import type { Principal } from '../types.js';
import { MAX_SESSION_TOKEN_CHARS } from './session-verifier.js';

/** The principal of a compact JWS's claims, unverified; undefined when they do not name one. */
export function claimedPrincipal(token: string | undefined): Principal | undefined {
  if (token === undefined || token.length > MAX_SESSION_TOKEN_CHARS) return undefined;
  let claims: Readonly<Record<string, unknown>>;
  try {
    claims = decodeJwt(token);
  } catch {
    return undefined; // not a compact JWS, or its claims are not a JSON object
  }
  const outcome = principalFromClaims(claims);
  return outcome.ok ? outcome.principal : undefined;
}
