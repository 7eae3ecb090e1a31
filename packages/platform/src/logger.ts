/**
 * The process logger: pino, one JSON line per event, with `stage` and `instanceId` on every line.
 * Tokens, secrets and tool arguments never reach the output, by three nets: pino's redaction at
 * fixed paths, a scrub of sensitive keys at any depth, and a last scrub of anything that looks
 * like a compact JWS in the finished line (a token pasted into a message or an error text).
 */
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';

/** The logger every shell module takes. */
export type Logger = PinoLogger;

/** What replaces a redacted value. */
export const REDACTED = '[redacted]';

/** Keys whose values are never logged, at any depth (compared in lower case). */
export const SENSITIVE_KEYS: ReadonlySet<string> = new Set([
  'token',
  'secret',
  'password',
  'authorization',
  'cookie',
  'session',
  'toolgate-session',
  'args',
  'arguments',
  'integritykey',
  'sessionsecret',
]);

/** pino redaction paths (bindings and the first levels of a logged object). */
export const REDACT_PATHS: readonly string[] = [
  'token',
  '*.token',
  'secret',
  '*.secret',
  'password',
  '*.password',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'headers["toolgate-session"]',
  '*.headers["toolgate-session"]',
  'args',
  '*.args',
  'integrityKey',
  '*.integrityKey',
];

/** A compact JWS (header `{"…` base64url-encoded, payload, signature): a session token. */
const COMPACT_JWS = /eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/g;

/** How deep the key scrub looks; deeper values are replaced whole. */
const MAX_SCRUB_DEPTH = 12;

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** pino level: fatal, error, warn, info, debug, trace or silent (TOOLGATE_LOG_LEVEL). */
  readonly level: string;
  /** The stage name (`validate`, `authorize`, …, or `cli`), on every line. */
  readonly stage: string;
  /** TOOLGATE_INSTANCE_ID, on every line. */
  readonly instanceId: string;
  /** Where lines go; default standard output. */
  readonly destination?: DestinationStream;
}

/** A JSON logger with ISO timestamps, level names and the redaction described above. */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { stage: options.stage, instanceId: options.instanceId },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: [...REDACT_PATHS], censor: REDACTED },
      formatters: {
        level: (label) => ({ level: label }),
        log: (fields) => scrub(fields, 0) as Record<string, unknown>,
      },
      hooks: { streamWrite: (line) => line.replace(COMPACT_JWS, REDACTED) },
    },
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}

/** Copies plain objects and arrays, replacing the values of sensitive keys. */
function scrub(value: unknown, depth: number): unknown {
  if (Array.isArray(value)) {
    return depth >= MAX_SCRUB_DEPTH ? REDACTED : value.map((item) => scrub(item, depth + 1));
  }
  if (!isPlainObject(value)) return value;
  if (depth >= MAX_SCRUB_DEPTH) return REDACTED;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      SENSITIVE_KEYS.has(key.toLowerCase()) ? REDACTED : scrub(item, depth + 1),
    ]),
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
