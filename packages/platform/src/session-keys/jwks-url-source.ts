/**
 * The identity provider's JWKS URL as session keys, through jose's remote key set: cached for a
 * while, fetched again when that ends or a token names a key it lacks (at most once per cooldown),
 * each fetch bounded. When the keys cannot be had, every lookup throws SessionKeysUnavailable:
 * the token is refused, never accepted on stale or absent keys. Keys the gate does not trust (a
 * type, curve or size it does not allow, an encryption key) are left out of the set and logged.
 */
import {
  DEFAULT_JWKS_CACHE_SECONDS,
  DEFAULT_JWKS_TIMEOUT_MS,
  jwkProblems,
  SessionKeysUnavailable,
  type JwksSource,
} from '@toolgate/shared';
import { createRemoteJWKSet, customFetch, errors, type JWTVerifyGetKey } from 'jose';
import type { KeySourceLog } from './jwks-file-source.js';

/** Options of {@link openJwksUrl}. */
export interface JwksUrlOptions {
  readonly log: KeySourceLog;
  /** The longest wait for one fetch, in ms. Default {@link DEFAULT_JWKS_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
  /** How long fetched keys are used, in seconds. Default {@link DEFAULT_JWKS_CACHE_SECONDS}. */
  readonly cacheSeconds?: number;
}

/** Longest time between two fetches for a key the set lacks, in ms (jose's cooldown). */
export const JWKS_URL_COOLDOWN_MS = 30_000;

/** A key source that can also be told to fetch now. */
export interface RemoteJwksSource extends JwksSource {
  /** Fetches the set now; a failure is logged, never thrown. */
  refresh(): Promise<void>;
}

/** A key source over `url` (checked beforehand: https, or http on a loopback host). */
export function openJwksUrl(url: string, options: JwksUrlOptions): RemoteJwksSource {
  const { log } = options;
  const cacheMs = (options.cacheSeconds ?? DEFAULT_JWKS_CACHE_SECONDS) * 1000;
  let generation = 0;
  let lastSet = '';
  const trustedOnly = async (input: string | URL, init: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    if (response.status !== 200) return response;
    const body = (await response.json()) as { keys?: unknown };
    const keys: unknown[] = Array.isArray(body.keys) ? body.keys : [];
    const kept = keys.filter((key, index) => {
      const problems = jwkProblems(key, index);
      if (problems.length > 0) log.warn({ jwksUrl: url, problems }, 'session JWKS key left out');
      return problems.length === 0;
    });
    const text = JSON.stringify({ keys: kept });
    if (text !== lastSet) {
      lastSet = text;
      generation += 1;
      log.info({ jwksUrl: url, keys: kept.length }, 'session JWKS fetched');
    }
    return new Response(text, { status: 200, headers: { 'content-type': 'application/json' } });
  };
  const remote = createRemoteJWKSet(new URL(url), {
    timeoutDuration: options.timeoutMs ?? DEFAULT_JWKS_TIMEOUT_MS,
    cacheMaxAge: cacheMs,
    cooldownDuration: Math.min(JWKS_URL_COOLDOWN_MS, cacheMs),
    [customFetch]: trustedOnly,
  });
  const unavailable = (error: unknown): SessionKeysUnavailable => {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    log.warn(
      { jwksUrl: url, err: reason },
      'session JWKS could not be fetched; tokens are refused',
    );
    return new SessionKeysUnavailable(`the JWKS at ${url} could not be had (${reason})`, {
      cause: error,
    });
  };
  const getKey: JWTVerifyGetKey = async (header, token) => {
    try {
      return await remote(header, token);
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey) throw error;
      if (error instanceof errors.JWKSMultipleMatchingKeys) throw error;
      throw unavailable(error);
    }
  };
  return {
    getKey,
    refresh: () => remote.reload().catch((error: unknown) => void unavailable(error)),
    // Keys due to be fetched again count as changed: a token verified under them is checked anew.
    generation: () => Promise.resolve(remote.fresh ? generation : Number.NaN),
  };
}
