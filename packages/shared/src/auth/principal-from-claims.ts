/**
 * Turns a verified claims set into a principal, refusing claims of the wrong shape: identity comes
 * only from these claims, so a half-formed one must not reach the rungs that trust it.
 */
import type { Principal } from '../types.js';

/** A principal, or the first problem with the claims (for the audit detail, never the model). */
export type ClaimsOutcome =
  | { readonly ok: true; readonly principal: Principal }
  | { readonly ok: false; readonly problem: string };

/**
 * `sub` and `tenant` must be non-empty strings; `roles` an array of non-empty strings (an empty
 * role name is an issuer bug, refused rather than guessed at). The returned principal is frozen.
 */
export function principalFromClaims(claims: Readonly<Record<string, unknown>>): ClaimsOutcome {
  const { sub, tenant, roles } = claims;
  if (!isNonEmptyString(sub)) return refuse('claim "sub" is missing or not a non-empty string');
  if (!isNonEmptyString(tenant)) {
    return refuse('claim "tenant" is missing or not a non-empty string');
  }
  if (!Array.isArray(roles) || !roles.every(isNonEmptyString)) {
    return refuse('claim "roles" is missing or not an array of non-empty strings');
  }
  const principal: Principal = Object.freeze({
    subject: sub,
    tenant,
    roles: Object.freeze([...roles]),
  });
  return { ok: true, principal };
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

function refuse(problem: string): ClaimsOutcome {
  return { ok: false, problem };
}
