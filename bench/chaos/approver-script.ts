/**
 * The chaos run's approver, as a person would be: approves most requests, rejects some and leaves
 * some unanswered until they expire, so that the judge can check that a rejected or expired call
 * had no effect. The decision is a function of the seed and the confirmation id alone: a request
 * delivered twice (a confirm instance killed before it committed) gets the same answer. Pure.
 */
import { seededRandom } from '../core/seeded-random.js';
import type { Decide } from '../pipeline/approver.js';

/** Shares of the requests approved and rejected; the rest are left to expire. */
export const APPROVER_SHARES = { approve: 0.7, reject: 0.15 } as const;

/** FNV-1a over the text's UTF-16 code units: a well-spread 32-bit number. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The approver of a run seeded with `seed`. */
export function scriptedApprover(seed: number): Decide {
  return (confirmationId) => {
    const draw = seededRandom(hash(`${seed}:${confirmationId}`)).next();
    if (draw < APPROVER_SHARES.approve) return 'approve';
    return draw < APPROVER_SHARES.approve + APPROVER_SHARES.reject ? 'reject' : 'ignore';
  };
}
