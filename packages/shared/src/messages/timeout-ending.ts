/**
 * How a call that did not end by its deadline ends, by its tool's side-effect class
 * (`SIDE_EFFECT_DEFAULTS`): a read is told it may retry, a write or a destructive call that its
 * outcome is unknown. The deadline sweeper and the result handler (for a tool that reports it
 * cannot tell whether it acted) both end a call this way.
 */
import { rejecterFor, type Rejected } from '../decision.js';
import { sideEffectDefaults } from '../tools/side-effect-defaults.js';
import type { Observation, SideEffect } from '../types.js';
import {
  observationForRetryableTimeout,
  observationForUnknown,
  type ObservationIds,
} from './observations.js';

const reject = rejecterFor('execution');

/** The terminal observation of a timed-out call, and the refusal it carries for audit. */
export interface TimeoutEnding {
  readonly observation: Observation;
  readonly rejected: Rejected<'execution'>;
}

/**
 * The ending of a call of a tool of class `sideEffect` (undefined when the tool is not loaded here:
 * then the most careful, `unknown_outcome`) that did not end by its deadline, at `now`.
 */
export function timeoutEnding(
  sideEffect: SideEffect | undefined,
  ids: ObservationIds,
  now: Date,
  internalDetail: string,
): TimeoutEnding {
  if (sideEffectDefaults(sideEffect).onTimeout === 'retry') {
    return {
      observation: observationForRetryableTimeout(ids, now),
      rejected: reject('timeout_retryable', undefined, internalDetail),
    };
  }
  return {
    observation: observationForUnknown(ids, now),
    rejected: reject('timeout_outcome_unknown', undefined, internalDetail),
  };
}
