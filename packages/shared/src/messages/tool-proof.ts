/**
 * Proof of origin between execute and a tool's workers (DESIGN §2). Each tool has its own key,
 * derived from execute's command key: HMAC-SHA256(command key, "toolgate tool key v1", NUL, tool).
 * Execute tags every command with its tool's key, a worker verifies it with the keys of its own
 * tools and tags its result with the same key, and execute accepts a result only when it verifies
 * with the key of the pending command's tool. HMAC is a pseudo-random function: one tool's key
 * says nothing about another's, so a worker (or whoever takes one over) cannot make a command or
 * a result for any tool but its own; only execute, which holds the command key, can for all.
 */
import { createHmac } from 'node:crypto';
import { ConfigError } from '../auth/index.js';
import { integrityKeyProblems, integrityTag, verifyIntegrity } from './integrity-tag.js';

/** Carries the tool-key HMAC (64 lowercase hex) on commands and on tool results. */
export const PROOF_HEADER = 'toolgate-proof';

const DERIVATION_LABEL = 'toolgate tool key v1';
const TOOL = /^[A-Za-z0-9_-]{1,64}$/;
const KEY = /^[0-9a-f]{64}$/;

/**
 * The key of `tool` under `commandKey` (TOOLGATE_COMMAND_KEY, at least 32 bytes): 64 lowercase
 * hex characters, what that tool's workers are given in TOOLGATE_TOOL_KEYS.
 *
 * @throws ConfigError when the command key is shorter than 32 bytes.
 */
export function deriveToolKey(commandKey: string, tool: string): string {
  const problems = integrityKeyProblems(commandKey).map((p) => p.replace('integrity', 'command'));
  if (problems.length > 0) throw new ConfigError('command key', problems);
  return createHmac('sha256', Buffer.from(commandKey, 'utf8'))
    .update(DERIVATION_LABEL, 'utf8')
    .update(Buffer.from([0]))
    .update(tool, 'utf8')
    .digest('hex');
}

/** The proof of a record of `bytes` on `topic` (its full name) under a tool's key. */
export function toolProof(toolKey: string, topic: string, bytes: Uint8Array): string {
  return integrityTag(toolKey, topic, bytes);
}

/**
 * The first of `toolKeys` under which `proof` verifies for exactly these bytes on exactly this
 * topic, or undefined (no proof, a malformed one, no bytes, or no key verifies it). Several keys
 * are tried during a rotation; each try is one HMAC.
 */
export function verifyToolProof(
  toolKeys: readonly string[],
  topic: string,
  bytes: Uint8Array | null,
  proof: string | undefined,
): string | undefined {
  return toolKeys.find((key) => verifyIntegrity(key, topic, bytes, proof));
}

/** The keys of a worker's tools, by tool (several during a rotation). */
export type ToolKeys = ReadonlyMap<string, readonly string[]>;

/**
 * Reads TOOLGATE_TOOL_KEYS entries, each `<tool>:<key>` (64 hex characters, from
 * `toolgate keys tool <name>`); a tool may be named twice during a rotation.
 *
 * @throws ConfigError naming every malformed entry (by position, never its key).
 */
export function parseToolKeys(entries: readonly string[]): ToolKeys {
  const keys = new Map<string, string[]>();
  const problems: string[] = [];
  entries.forEach((entry, i) => {
    const at = entry.indexOf(':');
    const tool = entry.slice(0, at);
    const key = entry.slice(at + 1);
    if (at < 0 || !TOOL.test(tool) || !KEY.test(key)) {
      problems.push(`entry ${i + 1} is not <tool>:<64 hex characters>`);
      return;
    }
    keys.set(tool, [...(keys.get(tool) ?? []), key]);
  });
  if (problems.length > 0) throw new ConfigError('tool keys', problems);
  return keys;
}
