/**
 * The keys that prove where a message comes from: the integrity key of internal envelopes (and how
 * old an envelope may be), the key that signs observations, and execute's command key. All are
 * secrets, never echoed in problems or logs.
 */
import type { VariableTable } from './variable-spec.js';

/** TOOLGATE_INTEGRITY_KEY … TOOLGATE_COMMAND_KEYS_ACCEPTED. */
export const KEY_VARIABLES = {
  INTEGRITY_KEY: {
    key: 'integrityKey',
    kind: 'string',
    required: true,
    secret: true,
    schema: { minBytes: 32 },
    description:
      'HMAC-SHA256 key of the integrity tag on internal topics; at least 32 bytes (UTF-8). The same in every stage.',
  },
  INTEGRITY_KEYS_ACCEPTED: {
    key: 'integrityKeysAccepted',
    kind: 'list',
    default: [],
    secret: true,
    schema: { minBytes: 32 },
    description:
      'Further integrity keys whose tags are accepted but never made: for a rotation (docs/security.md). Comma-separated.',
  },
  ENVELOPE_MAX_AGE_MS: {
    key: 'envelopeMaxAgeMs',
    kind: 'integer',
    default: 3_600_000,
    schema: { minimum: 60_000, maximum: 43_200_000 },
    description:
      'The oldest internal envelope a stage accepts, in ms from when it was issued (1 min to 12 h): an older one is refused as `authentication/stale_envelope`, audited and not forwarded, so a recorded envelope published again later issues nothing. Keep it well inside the idempotency retention.',
  },
  OBSERVATION_KEY: {
    key: 'observationKey',
    kind: 'string',
    required: true,
    secret: true,
    schema: { minLength: 1 },
    description:
      "The stages' Ed25519 private key (base64 of PKCS#8 DER) that signs every observation, so agent clients can tell the gate's observations from forged ones. The same in every stage; agents get its public key (TOOLGATE_OBSERVATION_PUBLIC_KEYS).",
  },
  COMMAND_KEY: {
    key: 'commandKey',
    kind: 'string',
    secret: true,
    schema: { minBytes: 32 },
    description:
      "Execute's key, at least 32 bytes (UTF-8): each tool's key is derived from it, and proves commands to that tool's workers and their results to execute. Required where execute runs; no other stage needs it.",
  },
  COMMAND_KEYS_ACCEPTED: {
    key: 'commandKeysAccepted',
    kind: 'list',
    default: [],
    secret: true,
    schema: { minBytes: 32 },
    description:
      "Further command keys whose tools' keys still verify results (never used for new commands): for a rotation. Comma-separated.",
  },
} as const satisfies VariableTable;
