/**
 * Gives every proposal of the chaos mix objects of its own. The benchmark's mix names the
 * example's few objects (inv_481, inv_900, pay_11, draft_7, …) again and again: once the first
 * write has approved an invoice, every later write to it fails its precondition and changes
 * nothing, so a run would check its effect invariants on a handful of effects. Here, entry `i`
 * names `inv_481c<i>` instead, a copy of inv_481 seeded before the load, so that each write,
 * refund and e-mail the gate lets through can take effect once, and one that it must stop
 * (refused, rejected, expired) would show as an effect. A client retry names its original's
 * copies, so it stays a retry of the same call. Pure.
 */
import type { Proposal, ResolvedObject } from '@toolgate/shared';
import type { MixEntry } from '../core/build-mix.js';

/** The chaos mix and the objects to seed before its load starts. */
export interface FreshMix {
  readonly mix: readonly MixEntry[];
  readonly objects: readonly ResolvedObject[];
}

/**
 * Rewrites every id of `seed` that an entry's proposal names to `<id>c<i>`, `i` the entry's
 * index (its original's, for a `write_retry`), and lists the copies to seed: same type, tenant,
 * attributes and version as the object they copy.
 */
export function withFreshObjects(
  mix: readonly MixEntry[],
  seed: readonly ResolvedObject[],
): FreshMix {
  const byId = new Map(seed.map((o) => [o.id, o]));
  // An id, not followed by more of an id: `inv_48` must not match inside `inv_481`.
  const names = new RegExp(`\\b(${[...byId.keys()].map(escaped).join('|')})(?![a-z0-9])`, 'g');
  const objects: ResolvedObject[] = [];
  const seeded = new Set<string>();
  let lastWrite = 0;
  const out = mix.map((entry, index) => {
    // As the mix makes them: a retry repeats the last non-bare approve_small before it.
    const owner = entry.label === 'write_retry' ? lastWrite : index;
    if (entry.label === 'approve_small' && entry.proposal.format !== 'action-json') {
      lastWrite = index;
    }
    const text = JSON.stringify(entry.proposal).replace(names, (id: string) => {
      const copy = `${id}c${owner}`;
      const original = byId.get(id);
      if (original !== undefined && !seeded.has(copy)) {
        seeded.add(copy);
        objects.push({ ...original, id: copy });
      }
      return copy;
    });
    return { ...entry, proposal: JSON.parse(text) as Proposal };
  });
  return { mix: out, objects };
}

function escaped(id: string): string {
  return id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
