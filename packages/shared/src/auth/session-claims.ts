/**
 * The claims a session token must carry besides the principal: who issued it (`iss`), for whom
 * (`aud`), of which type (`typ`), when (`iat`) and until when (`exp`), within a longest lifetime.
 */
import {
  DEFAULT_MAX_LIFETIME_SECONDS,
  SESSION_AUDIENCE,
  type SessionKeys,
} from './session-keys.js';

/** Most clock skew a deployment may allow, in seconds. */
export const MAX_CLOCK_SKEW_SECONDS = 300;

/** Default longest wait for a JWKS URL, in ms. */
export const DEFAULT_JWKS_TIMEOUT_MS = 5_000;

/** Default time fetched JWKS keys are used before being fetched again, in seconds. */
export const DEFAULT_JWKS_CACHE_SECONDS = 600;

/** The claim rules of a deployment, defaults applied. */
export interface ClaimRules {
  readonly issuers: readonly string[];
  readonly audience: string;
  readonly typ?: string;
  readonly maxLifetimeSeconds: number;
  readonly clockSkewSeconds: number;
}

/** The rules of `keys` (checked beforehand with {@link claimRuleProblems}). */
export function claimRulesOf(keys: SessionKeys): ClaimRules {
  const issuer = keys.issuer ?? [];
  return {
    issuers: typeof issuer === 'string' ? [issuer] : [...issuer],
    audience: keys.audience ?? SESSION_AUDIENCE,
    ...(keys.typ === undefined ? {} : { typ: keys.typ }),
    maxLifetimeSeconds: keys.maxLifetimeSeconds ?? DEFAULT_MAX_LIFETIME_SECONDS,
    clockSkewSeconds: keys.clockSkewSeconds ?? 0,
  };
}

/** The issuer a development token minted for `keys` names: the first one accepted. */
export function mintingIssuer(keys: SessionKeys): string {
  const [first] = claimRulesOf(keys).issuers;
  if (first === undefined) throw new TypeError('the deployment names no session issuer');
  return first;
}

/** Every problem with the claim rules and the JWKS settings of `keys`, one sentence each. */
export function claimRuleProblems(keys: SessionKeys): string[] {
  return [
    ...issuerProblems(keys.issuer),
    ...nonEmpty('audience', keys.audience),
    ...nonEmpty('typ', keys.typ),
    ...wholeIn('maxLifetimeSeconds', keys.maxLifetimeSeconds, 1, 366 * 24 * 3600),
    ...wholeIn('clockSkewSeconds', keys.clockSkewSeconds, 0, MAX_CLOCK_SKEW_SECONDS),
    ...wholeIn('jwksTimeoutMs', keys.jwksTimeoutMs, 1, 60_000),
    ...wholeIn('jwksCacheSeconds', keys.jwksCacheSeconds, 1, 24 * 3600),
    ...nonEmpty('jwksFile', keys.jwksFile),
    ...jwksUrlProblems(keys.jwksUrl),
  ];
}

/**
 * Why a verified token's times are refused, or undefined: `iat` after now (beyond the skew), or a
 * lifetime `exp - iat` above the deployment's longest. `iat` and `exp` are numbers (jose checked).
 */
export function lifetimeProblem(
  times: { readonly iat: number; readonly exp: number },
  now: Date,
  rules: ClaimRules,
): string | undefined {
  const seconds = Math.floor(now.getTime() / 1000);
  if (times.iat > seconds + rules.clockSkewSeconds) {
    return `claim "iat" (${times.iat}) is ${times.iat - seconds} s in the future; the allowed skew is ${rules.clockSkewSeconds} s`;
  }
  const lifetime = times.exp - times.iat;
  if (lifetime > rules.maxLifetimeSeconds) {
    return `lifetime exp - iat of ${lifetime} s exceeds the deployment's longest, ${rules.maxLifetimeSeconds} s`;
  }
  return undefined;
}

function issuerProblems(issuer: unknown): string[] {
  const hint =
    "name the issuer every session token must carry in `iss` (`sessions.issuer`: the identity provider's issuer URL, or a list of them; TOOLGATE_SESSION_ISSUER in the example)";
  if (issuer === undefined) return [hint];
  const list: unknown[] = Array.isArray(issuer) ? issuer : [issuer];
  if (list.length === 0 || !list.every((i) => typeof i === 'string' && i !== '')) {
    return [`issuer must be a non-empty string or a non-empty list of them: ${hint}`];
  }
  return [];
}

function nonEmpty(name: string, value: unknown): string[] {
  return value === undefined || (typeof value === 'string' && value !== '')
    ? []
    : [`${name} must be a non-empty string`];
}

function wholeIn(name: string, value: unknown, min: number, max: number): string[] {
  if (value === undefined) return [];
  return Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max
    ? []
    : [
        `${name} must be a whole number from ${min} to ${max} (got ${JSON.stringify(value) ?? 'nothing'})`,
      ];
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function jwksUrlProblems(url: unknown): string[] {
  if (url === undefined) return [];
  let parsed: URL;
  if (typeof url !== 'string') return ['jwksUrl must be a string'];
  try {
    parsed = new URL(url);
  } catch {
    return [`jwksUrl ${JSON.stringify(url)} is not a URL`];
  }
  if (parsed.protocol === 'https:') return [];
  if (parsed.protocol === 'http:' && LOOPBACK.has(parsed.hostname)) return [];
  return [
    `jwksUrl must be https: (http: only on a loopback host), so that nobody on the path can swap the keys (got ${parsed.protocol}//${parsed.host})`,
  ];
}
