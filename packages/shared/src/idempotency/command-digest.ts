import type { ObjectRef } from '../types.js';
import { canonicalSha256 } from './canonical-sha256.js';

/** What a command does, as far as idempotency is concerned. */
export interface CommandDigestInput {
  /** Tool name. */
  readonly tool: string;
  /** The tool definition's version. */
  readonly toolVersion: string;
  /** The validated arguments, as a JSON value. */
  readonly args: unknown;
  /** The objects the call names, in the order the tool's `references` gave them. */
  readonly objects: readonly ObjectRef[];
  /** The verified tenant. */
  readonly tenant: string;
}

/**
 * The digest stored with an idempotency record: SHA-256 (lowercase hex) over the RFC 8785
 * canonical JSON of `{tool, toolVersion, args, objects: [{type, id}], tenant}`. Same key and same
 * digest is a replay; same key and another digest is `idempotency/conflict` (DESIGN §5).
 *
 * Object *versions* are deliberately left out (extra fields such as `version` or `attributes` of a
 * `ResolvedObject` are dropped): a retry that arrives after the command already changed the object
 * sees a newer version, yet it is still the same command and must replay, not conflict. Object order
 * is kept, since it can carry meaning (from/to). `toolVersion` is included, so a retry that straddles
 * a change of the tool definition is a conflict rather than a replay of the old version's outcome.
 *
 * @throws TypeError when `args` is not a JSON value (see {@link canonicalSha256}).
 */
export function commandDigest(input: CommandDigestInput): string {
  return canonicalSha256({
    tool: input.tool,
    toolVersion: input.toolVersion,
    args: input.args,
    objects: input.objects.map(({ type, id }) => ({ type, id })),
    tenant: input.tenant,
  });
}
