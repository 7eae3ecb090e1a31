import type { Stage } from '../catalogue.js';

/**
 * Stages whose refusals may be offered to the model for repair (DESIGN §1): what it wrote can be
 * fixed by writing it again. Authorization and precondition refusals never are, because rewording
 * a proposal must not change what the runtime permits; truncation is retried, never repaired.
 */
export const REPAIRABLE_STAGES: readonly Stage[] = Object.freeze([
  'representation',
  'schema',
  'semantics',
]);

/** Corrections a model may make to one call unless the deployment sets `repairAttempts`. */
export const DEFAULT_REPAIR_BUDGET = 2;

/** Whether refusals of `stage` may be offered for repair. */
export function isRepairableStage(stage: Stage): boolean {
  return REPAIRABLE_STAGES.includes(stage);
}
