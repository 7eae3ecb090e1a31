/**
 * A JWKS file as session keys, read again when it changes: the file is looked at (its size,
 * modification time and inode) at most once per interval, when a token needs a key, and read
 * again only when one of them changed. A change that cannot be read, is not JSON or holds a key
 * the gate does not trust is logged and the last good keys stay in force (the file is usually
 * being written); the start itself refuses such a file.
 */
import { readFileSync, statSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { ConfigError, jwksProblems, type JwksSource } from '@toolgate/shared';
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { Logger } from '../logger.js';

/** How often the file is looked at, at most, in ms: a rotation is in force within this. */
export const JWKS_FILE_CHECK_MS = 1_000;

/** Where a key source reports what it did. */
export type KeySourceLog = Pick<Logger, 'info' | 'warn'>;

/** Options of {@link openJwksFile}. */
export interface JwksFileOptions {
  readonly log: KeySourceLog;
  /** Default {@link JWKS_FILE_CHECK_MS}. */
  readonly checkEveryMs?: number;
  /** The clock, in ms; default `Date.now`. */
  readonly nowMs?: () => number;
}

/** Reads `path` now (throwing a ConfigError naming every problem) and keeps it current. */
export function openJwksFile(path: string, options: JwksFileOptions): JwksSource {
  const { log, checkEveryMs = JWKS_FILE_CHECK_MS, nowMs = Date.now } = options;
  let seen = signatureOf(statOrThrow(path));
  let local = createLocalJWKSet(parseOrThrow(path, readOrThrow(path)));
  let generation = 0;
  let checkedAt = nowMs();
  let pending: Promise<void> | undefined;
  const reload = async (): Promise<void> => {
    const now = await stat(path).then(
      signatureOf,
      (error: unknown) => `unreadable: ${String(error)}`,
    );
    if (now === seen) return;
    seen = now;
    const text = await readFile(path, 'utf8').catch((error: unknown) => error);
    const outcome = typeof text === 'string' ? parsed(text) : { problems: [String(text)] };
    if ('problems' in outcome) {
      log.warn(
        { jwksFile: path, problems: outcome.problems },
        'session JWKS file changed but is not usable; the last good keys stay in force',
      );
      return;
    }
    local = createLocalJWKSet(outcome.jwks);
    generation += 1;
    log.info({ jwksFile: path, kids: kidsOf(outcome.jwks) }, 'session JWKS file reloaded');
  };
  const current = async (): Promise<void> => {
    if (nowMs() - checkedAt < checkEveryMs) return pending;
    checkedAt = nowMs();
    pending ??= reload().finally(() => (pending = undefined));
    return pending;
  };
  const getKey: JWTVerifyGetKey = async (header, token) => {
    await current();
    return local(header, token);
  };
  return {
    getKey,
    async generation() {
      await current();
      return generation;
    },
  };
}

function signatureOf(s: { size: number; mtimeMs: number; ino: number }): string {
  return `${s.size}:${s.mtimeMs}:${s.ino}`;
}

function statOrThrow(path: string) {
  try {
    return statSync(path);
  } catch (cause) {
    throw new ConfigError('session keys', [`jwksFile ${path} cannot be read: ${String(cause)}`], {
      cause,
    });
  }
}

function readOrThrow(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (cause) {
    throw new ConfigError('session keys', [`jwksFile ${path} cannot be read: ${String(cause)}`], {
      cause,
    });
  }
}

function parseOrThrow(path: string, text: string): JSONWebKeySet {
  const outcome = parsed(text);
  if ('problems' in outcome) {
    throw new ConfigError(
      'session keys',
      outcome.problems.map((p) => `jwksFile ${path}: ${p}`),
    );
  }
  return outcome.jwks;
}

/** The JWKS of `text`, or every problem with it. */
function parsed(text: string): { jwks: JSONWebKeySet } | { problems: string[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problems: [`not JSON (${error instanceof Error ? error.message : 'unknown'})`] };
  }
  const problems = jwksProblems(value);
  return problems.length > 0 ? { problems } : { jwks: value as JSONWebKeySet };
}

/** The key ids of a set, for the log (public values). */
export function kidsOf(jwks: JSONWebKeySet): string[] {
  return jwks.keys.map((k, i) => (typeof k.kid === 'string' ? k.kid : `#${i}`));
}
