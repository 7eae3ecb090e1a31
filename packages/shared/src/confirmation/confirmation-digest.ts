/** The digest that binds an approval to exactly one effect (DESIGN §4). */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** What a confirmation digest covers: everything that decides what would run. */
export interface DigestInput {
  readonly tool: string;
  /** The normalized (schema-validated) arguments. */
  readonly args: unknown;
  /** Resolved objects: only type, id and version count (extra members are ignored). */
  readonly objects: readonly {
    readonly type: string;
    readonly id: string;
    readonly version: number;
  }[];
  /** The card's preview, built from the live objects. */
  readonly preview: unknown;
  readonly tenant: string;
  readonly policyVersion: string;
}

/**
 * sha256 hex over the RFC 8785 canonical JSON of the input, with objects reduced to
 * `{type, id, version}` and sorted by type then id (code-unit order, never locale order), so key
 * order and object order do not matter and every value does. Throws on values JSON cannot carry
 * (NaN, Infinity, lone surrogates, cycles): those are faults of the caller, not refusals.
 */
export function confirmationDigest(input: DigestInput): string {
  const objects = input.objects
    .map(({ type, id, version }) => ({ type, id, version }))
    .sort((a, b) => compare(a.type, b.type) || compare(a.id, b.id));
  const canonical = canonicalize({
    tool: input.tool,
    args: input.args,
    objects,
    preview: input.preview,
    tenant: input.tenant,
    policyVersion: input.policyVersion,
  });
  return createHash('sha256')
    .update(canonical ?? '')
    .digest('hex');
}

function compare(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
