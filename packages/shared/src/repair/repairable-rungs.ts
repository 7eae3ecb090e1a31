import type { Rung } from '../catalogue.js';

/**
 * Rungs whose refusals may be offered to the model for repair (DESIGN §1): what it wrote can be
 * fixed by writing it again. Authorization and precondition refusals never are, because rewording
 * a proposal must not change what the runtime permits; truncation is retried, never repaired.
 */
export const REPAIRABLE_RUNGS: readonly Rung[] = Object.freeze([
  'representation',
  'schema',
  'semantics',
]);

/** Corrections a model may make to one call unless the deployment sets `repairAttempts`. */
export const DEFAULT_REPAIR_BUDGET = 2;

/** Whether refusals of `rung` may be offered for repair. */
export function isRepairableRung(rung: Rung): boolean {
  return REPAIRABLE_RUNGS.includes(rung);
}
